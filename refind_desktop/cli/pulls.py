"""`refind ingest` with no paths: pull every remote source, then ingest the recorded sources and the mirrors.

The pulling is `ingest.remote.pull_all`; this module only prints what each host did and turns a failed
host into the exit code (RemoteError.exit_code), after everything that could be ingested was.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from ..errors import NotFoundError
from ..ingest.remote import WORK, PullResult, RemoteError, mirror_roots, pull_all, pull_lock
from ..ingest.remote_pending import done_pending, read_pending
from ..ingest.remote_spec import MIRRORS
from ..ingest.remote_store import RemoteStore
from ..ingest.report import IngestReport
from ..terminal import printable
from .common import print_json, services


def size_text(n: int) -> str:
    """Bytes as B/kB/MB with one decimal."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def pull_line(r: PullResult) -> str:
    """One line per pulled source: what came over, or why the host failed."""
    if r.ok:
        return (
            f"pulled {r.spec.url}: {r.files} new or changed files, {size_text(r.bytes)} "
            f"in {r.seconds:.1f} s ({r.method})"
        )
    return (
        f"FAILED {r.spec.host_key} ({r.spec.path}): {r.error}; what was pulled before stays searchable "
        "and the next `refind ingest` tries again"
    )


def ingest_pulled(svc, data: Path, local: list[Path], mirrors: list[Path], args, run_ingest, quiet: bool):
    """Ingest the recorded local sources (walked) and what the pulls wrote into the mirrors: the files
    they named, or a whole mirror when a pull could not name them (`ingest.remote_pending`)."""
    pending = read_pending(data, WORK)
    if args.force or pending.walk_all:
        walk, files = [*local, *mirrors], []
    else:
        walk = [*local, *(m for m in mirrors if str(m) in set(pending.walk))]
        files = [Path(p) for p in pending.files if os.path.lexists(p)]
    reports = []
    if walk:
        reports.append(run_ingest(svc, walk, args.force, args.accept_shrink, bar=not quiet))
    if files and not any(r.cancelled for r in reports):
        reports.append(svc.ingestor.ingest(files, accept_shrink=args.accept_shrink, walk_root=data / MIRRORS))
    if not any(r.cancelled for r in reports):
        with pull_lock(data):
            done_pending(data, WORK, pending)
    return merged(reports)


def merged(reports: list[IngestReport]) -> IngestReport:
    """One report of several ingest runs."""
    out = IngestReport()
    for r in reports:
        for f in fields(IngestReport):
            a, b = getattr(out, f.name), getattr(r, f.name)
            setattr(out, f.name, a or b if isinstance(a, bool) else a + b)
    return out


def cmd_ingest_all(args: argparse.Namespace, run_ingest: Callable, print_ingest_report: Callable) -> int:
    """`refind ingest` (no paths): pull the remote sources, then ingest recorded sources and mirrors
    (with `cli.core`'s `run_ingest` and `print_ingest_report`, passed in)."""
    svc = services()
    try:
        data = svc.paths.data_dir
        quiet = args.json
        results: list[PullResult] = []
        if RemoteStore(data).list():
            results = pull_all(
                data,
                on_result=None
                if quiet
                else lambda r: print(printable(pull_line(r), one_line=True), file=sys.stderr),
            )
        local = [Path(p) for p in svc.settings.sources]
        mirrors = mirror_roots(data)
        if not local and not mirrors and results:  # every remote failed before its first pull
            if quiet:
                print_json({"remotes": [r.to_json() for r in results]})
            return RemoteError.exit_code if any(not r.ok for r in results) else 0
        if not local and not mirrors:
            raise NotFoundError(
                "nothing to ingest: name files or folders (`refind ingest PATH`), record this machine's "
                "agent folders (`refind sources discover --add`) or add a remote folder "
                "(`refind sources add ssh://USER@HOST/PATH`)"
            )
        report = ingest_pulled(svc, data, local, mirrors, args, run_ingest, quiet)
    finally:
        svc.close()
    failed = [r for r in results if not r.ok]
    if quiet:
        print_json({**report.to_json(), "remotes": [r.to_json() for r in results]})
    else:
        print_ingest_report(report)
        for host in dict.fromkeys(r.spec.host_key for r in failed):
            print(printable(f"refind: host {host} failed (see above)", one_line=True), file=sys.stderr)
    return RemoteError.exit_code if failed else 0
