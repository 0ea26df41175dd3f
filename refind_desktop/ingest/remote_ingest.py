"""Ingest after a pull: the recorded local sources, and only what the pulls wrote into the mirrors.

One core function for every front end that pulls (`refind ingest` with no paths, the watcher, the TUI):
`ingest_pulled` walks the local sources and the mirrors a pull could not account for, and reads the
single files the pulls named (`remote_pending`), under the walk rules of the mirrors folder.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import fields
from pathlib import Path

from .pipeline import Ingestor
from .remote import WORK, mirror_roots, pull_lock
from .remote_pending import done_pending, read_pending
from .remote_spec import MIRRORS
from .report import IngestReport

Walk = Callable[[list[Path]], IngestReport]
"""Ingests whole folders (a front end passes its own, with a progress bar)."""


def ingest_pulled(
    ingestor: Ingestor,
    data_dir: Path,
    local: Iterable[Path] = (),
    force: bool = False,
    accept_shrink: bool = False,
    walk: Walk | None = None,
    cancel: threading.Event | None = None,
) -> IngestReport:
    """Ingest `local` folders and what the pulls brought into the mirrors since the last such ingest.

    With `force`, or before any list of pulled files exists, every mirror is walked. What was read is
    taken off the list only when the ingest was not cancelled."""
    walk = walk or (
        lambda roots: ingestor.ingest(roots, force=force, accept_shrink=accept_shrink, cancel=cancel)
    )
    pending = read_pending(data_dir, WORK)
    mirrors = mirror_roots(data_dir)
    if force or pending.walk_all:
        folders, files = [*local, *mirrors], []
    else:
        marked = set(pending.walk)
        folders = [*local, *(m for m in mirrors if str(m) in marked)]
        files = [Path(p) for p in pending.files if os.path.lexists(p)]
    reports = []
    if folders:
        reports.append(walk(folders))
    if files and not any(r.cancelled for r in reports):
        reports.append(
            ingestor.ingest(files, accept_shrink=accept_shrink, cancel=cancel, walk_root=data_dir / MIRRORS)
        )
    if not any(r.cancelled for r in reports):
        with pull_lock(data_dir):
            done_pending(data_dir, WORK, pending)
    return merged(reports)


def merged(reports: Iterable[IngestReport]) -> IngestReport:
    """One report of several ingest runs (counts added, lists joined, flags or-ed)."""
    out = IngestReport()
    for r in reports:
        for f in fields(IngestReport):
            a, b = getattr(out, f.name), getattr(r, f.name)
            setattr(out, f.name, (a or b) if isinstance(a, bool) else a + b)
    return out
