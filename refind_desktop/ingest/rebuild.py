"""Rebuild the index from the chat files: from the catalog's file list, or from the recorded folders.

`refind reindex` calls `rebuild()`. With a sound catalog it re-reads every file the catalog lists;
when the catalog is damaged or gone (or with `--from-sources`), it walks the folders recorded in
the source book (or the folders given), so a lost catalog never means a lost index. Forgotten
paths stay forgotten across the rebuild. The turns of files that are gone are never dropped:
they are read back from the index before the wipe (`keep_gone`, whatever the index's schema
version) and applied again first (a messenger chat stored whole by an older version is cut into
conversations then, `conversations.split_stored`); `refind forget` stays the one way to delete them.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import IndexDamagedError, NotFoundError
from ..index.catalog import Catalog
from ..index.journal import JOURNAL_NAME
from ..index.kept import KEPT_NAME, KeptSource, KeptSources
from ..index.lock import DEFAULT_WAIT, LOCK_NAME, writer_lock
from ..index.readback import read_sessions
from ..index.sourcebook import REBUILD_NAME, SOURCES_NAME, RebuildMarker, SourceBook
from .forget import under
from .pipeline import IngestReport, ProgressFn
from .stored import stored_session

TRASH_PREFIX = "trash-"


@dataclass
class RebuildResult:
    """What a rebuild read and from where (`origin`: catalog, recorded folders or given folders).

    `gone`: files that no longer exist; their turns were rebuilt from the archive (`kept_turns`)."""

    report: IngestReport
    origin: str
    read: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    kept_turns: int = 0


def wipe(data_dir: Path, index_dir: Path, catalog_file: Path) -> None:
    """Delete the index, the catalog and the write journal (call it holding the writer lock).

    Each is first renamed into a trash folder (atomic), so a kill leaves either the whole index
    or none of it, never a meta.json that names deleted segment files.
    """
    empty_trash(data_dir)
    trash = data_dir / f"{TRASH_PREFIX}{os.getpid()}-{time.time_ns()}"
    trash.mkdir(mode=0o700)
    if index_dir.exists():
        os.rename(index_dir, trash / index_dir.name)
    for suffix in ("", "-wal", "-shm"):
        p = catalog_file.with_name(catalog_file.name + suffix)
        if p.exists():
            os.rename(p, trash / p.name)
    (data_dir / JOURNAL_NAME).unlink(missing_ok=True)
    shutil.rmtree(trash, ignore_errors=True)


def empty_trash(data_dir: Path) -> None:
    """Remove what a killed wipe left in a trash folder."""
    for t in data_dir.glob(f"{TRASH_PREFIX}*"):
        shutil.rmtree(t, ignore_errors=True)


def rebuild(
    data_dir: Path,
    index_dir: Path,
    catalog_file: Path,
    open_services: Callable[[], object],
    folders: Iterable[Path] = (),
    from_sources: bool = False,
    lock_wait: float = DEFAULT_WAIT,
    progress: ProgressFn | None = None,
) -> RebuildResult:
    """Wipe and re-ingest; `open_services()` builds fresh services (with `.ingestor`, `.catalog`, `.close()`)."""
    book = SourceBook(data_dir / SOURCES_NAME)
    given = [str(Path(f).expanduser().resolve()) for f in folders]
    with writer_lock(data_dir / LOCK_NAME).hold(lock_wait):
        notes: list[str] = []
        forgotten = set(book.forgotten())
        files: list[str] = []
        unfinished = RebuildMarker(data_dir / REBUILD_NAME).pending()
        kept = KeptSources(data_dir / KEPT_NAME)
        if unfinished is None:
            kept.remove()  # left by a rebuild killed before its marker: nothing was wiped
        kept_turns = 0
        if catalog_file.exists():
            cat = None
            try:
                cat = Catalog(catalog_file)
                files = [f.path for f in cat.files()]
                forgotten |= set(cat.ignored())
            except (IndexDamagedError, sqlite3.DatabaseError) as exc:
                notes.append(
                    f"the catalog could not be read ({getattr(exc, 'message', exc)}); rebuilding from folders"
                )
                if cat is not None:
                    cat.close()
                cat = None
            if cat is not None:
                try:
                    if unfinished is None:  # (a killed rebuild kept them already)
                        kept_turns = keep_gone(cat, index_dir, kept, forgotten)
                finally:
                    cat.close()
        elif not from_sources:
            notes.append("there is no catalog; rebuilding from folders")
        if unfinished and not given and not from_sources:
            files = sorted(set(files) | set(unfinished))
            notes.append("finishing a reindex that was interrupted")
        if from_sources or given or not files:
            paths = given or book.roots()
            origin = "given folders" if given else "recorded folders"
        else:
            paths, origin = files, "catalog"
        if not paths:
            raise NotFoundError(
                "nothing to rebuild from: no folder was recorded; run "
                "`refind reindex --from-sources FOLDER...` with the folders that hold your chats"
            )
        present = [p for p in paths if Path(p).exists()]
        gone = [p for p in paths if not Path(p).exists()]
        # a killed rebuild is finished by the next writer (the kept sources are written before this)
        RebuildMarker(data_dir / REBUILD_NAME).start(present)
        wipe(data_dir, index_dir, catalog_file)
        svc = open_services()
        try:
            for p in sorted(forgotten):
                svc.catalog.ignore(p)
            svc.catalog.commit()
            report = svc.ingestor.ingest([Path(p) for p in present], progress=progress, force=True)
        finally:
            svc.close()
    return RebuildResult(report, origin, present, gone, notes, kept_turns)


def keep_gone(cat: Catalog, index_dir: Path, kept: KeptSources, forgotten: set[str]) -> int:
    """Save the sessions of the catalog's files that are gone (read back from the index) before a wipe;
    returns the turns saved. An index that cannot be read while such files exist stops the rebuild."""
    gone = [
        f
        for f in cat.files()
        if not Path(f.path).exists() and not any(under(f.path, root) for root in forgotten)
    ]
    if not gone:
        kept.remove()
        return 0
    recs = {f.path: cat.sessions_of_source(f.path) for f in gone}
    try:
        stored = read_sessions(index_dir, [r.sid for rs in recs.values() for r in rs])
    except BaseException as exc:  # a damaged index (ValueError, a Rust panic): nothing is wiped
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise IndexDamagedError(
            f"{len(gone)} source files are gone (e.g. {gone[0].path}) and their turns are only in the index, "
            f"which cannot be read ({type(exc).__name__}); nothing was changed. `refind forget PATH` the "
            "gone files you accept to lose (`refind stats` lists them), then run `refind reindex` again"
        ) from exc
    sources = [
        KeptSource(
            f.path,
            f.format,
            f.size,
            f.mtime_ns,
            f.digest,
            [
                stored_session(r, stored[r.sid], cat.participants(r.sid), cat.positions(r.sid))
                for r in recs[f.path]
                if stored[r.sid]
            ],
        )
        for f in gone
    ]
    return kept.write(sources)
