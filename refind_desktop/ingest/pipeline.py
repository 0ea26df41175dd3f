"""Incremental, idempotent ingest: discover sources, parse them, and apply only what changed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import Protocol

from ..errors import describe_failure
from ..index.catalog import Catalog, FileRecord, SessionRecord
from ..index.sourcebook import REBUILD_NAME, SOURCES_NAME, RebuildMarker, SourceBook
from ..index.store import TurnIndex, TurnWriter
from ..terminal import scrub
from ..types import Session
from .base import ParseContext
from .batch import Batch, CommitPolicy, SourceTooLarge, StagedWriter
from .forget import Forgetting, under
from .formats import get_parser
from .limits import Limits
from .prepare import alt_id, prepare_session, turn_hash  # noqa: F401 - turn_hash is public here
from .walker import Skipped, Source, discover, discover_within

ProgressFn = Callable[["IngestProgress"], None]


@dataclass
class IngestProgress:
    """Progress of an ingest run (files done of files total, turns added so far)."""

    files_done: int
    files_total: int
    current: str
    turns_added: int


@dataclass
class IngestReport:
    """What an ingest run changed: the contract behind `refind ingest --json`."""

    added_turns: int = 0
    removed_turns: int = 0
    unchanged_files: int = 0
    ingested_files: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False
    partial: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    commits: int = 0
    """Index commits the run made (batched: many sources per commit)."""

    def to_json(self) -> dict:
        """The stable JSON shape."""
        return {
            "added_turns": self.added_turns,
            "removed_turns": self.removed_turns,
            "unchanged_files": self.unchanged_files,
            "ingested_files": self.ingested_files,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "warnings": self.warnings,
            "cancelled": self.cancelled,
            "partial": self.partial,
            "held": self.held,
        }


def fingerprint(path: Path) -> tuple[int, int]:
    """(size, mtime_ns) of a file, or the sum/max over a directory source."""
    if path.is_dir():
        size, mtime = 0, 0
        for p in sorted(path.rglob("*")):
            if p.is_file():
                st = p.stat()
                size += st.st_size
                mtime = max(mtime, st.st_mtime_ns)
        return size, mtime
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def digest(path: Path) -> str:
    """Content hash of a file (streamed) or of a directory's files."""
    h = hashlib.blake2b(digest_size=16)
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for p in files:
        if path.is_dir():
            h.update(str(p.relative_to(path)).encode() + b"\0")
        with open(p, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


class ChangeListener(Protocol):
    """Told of every change to indexed turns (the vector store tombstones the windows they cover)."""

    def turns_changed(self, sord: int, from_turn: int) -> None:
        """Turns `from_turn`.. of a session were replaced or removed (an append passes the old length)."""

    def session_removed(self, sord: int) -> None:
        """A session left the index."""


class Ingestor(Forgetting):
    """Applies chat files to the index and catalog under the cross-process writer lock.

    Crash safety: each source is one index commit followed by one catalog commit. A source is
    recorded in the index's write journal before its index commit and removed after its catalog
    commit; a source left in the journal by a killed writer is re-applied from scratch at the
    next ingest (its old turns deleted by source and session, then re-added), so nothing that was
    committed is lost and nothing is duplicated.
    """

    def __init__(
        self,
        index: TurnIndex,
        catalog: Catalog,
        tz: tzinfo,
        listeners: Iterable[ChangeListener] = (),
        limits: Limits | None = None,
        policy: CommitPolicy | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.policy = policy or CommitPolicy()
        self.index = index
        self.catalog = catalog
        self.tz = tz
        self.listeners = list(listeners)
        self._lock = threading.Lock()
        self.book = SourceBook(index.path.parent / SOURCES_NAME)

    def _changed(self, sord: int, from_turn: int) -> None:
        """Tell the listeners (the vector store) that turns `from_turn`.. of a session changed."""
        for listener in self.listeners:
            listener.turns_changed(sord, from_turn)

    def _removed(self, sord: int) -> None:
        """Tell the listeners that a session left the index."""
        for listener in self.listeners:
            listener.session_removed(sord)

    def ingest(
        self,
        paths: Iterable[Path],
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
        force: bool = False,
        accept_shrink: bool = False,
        within: Path | None = None,
    ) -> IngestReport:
        """Ingest files and folders; unchanged files are skipped unless `force`.

        A file that got smaller keeps the turns it no longer holds until `accept_shrink`
        (`refind ingest --accept-shrink PATH`) or until a complete copy at least as large returns.
        Forgotten paths (`refind forget`) are skipped until `unforget`. With `within` (a folder),
        the paths inside it are read as a walk of that folder would read them, without walking
        the rest of it (the watcher's new files: `discover_within`).
        """
        revive: list[str] = []
        with self._lock, self.index.write_lock():
            report = IngestReport()
            journal = self.index.journal
            pending = journal.pending()
            self._sync_ignored(pending["ignore"])
            if pending["forget"]:
                revive = self._forget_paths(pending["forget"])[1]
            redo = set(pending["ingest"])
            roots = [Path(p).expanduser().resolve() for p in paths]
            marker = RebuildMarker(self.index.path.parent / REBUILD_NAME)
            rebuilding = marker.pending()
            if rebuilding is not None:  # a reindex was killed: start it over before anything else
                self._empty_everything()
                roots += [Path(p) for p in rebuilding]
                force = True
                redo = set()
            roots = list(dict.fromkeys(roots))
            inside = (
                Path(within).expanduser().resolve() if within is not None and rebuilding is None else None
            )
            own_dir = str(self.index.path.parent.resolve())
            recorded = [inside] if inside is not None else roots
            self.book.add_roots([str(p) for p in recorded if p.exists() and not under(str(p), own_dir)])
            roots += [
                Path(p) for p in sorted(redo | set(revive)) if Path(p).exists()
            ]  # interrupted last time
            missing = [p for p in roots if not p.exists()]
            for p in missing:
                report.skipped.append(Skipped(str(p), "path does not exist"))
            sources: list[Source] = []
            skipped: list[Skipped] = []
            known = None if force else self._unchanged_format
            existing = [p for p in roots if p.exists()]
            targeted = [p for p in existing if inside is not None and under(str(p), str(inside))]
            if targeted:
                try:
                    sources, skipped = discover_within(inside, targeted, self.limits, known)
                except Exception as exc:  # a folder that cannot be walked never stops the others
                    skipped = [Skipped(str(inside), describe_failure(exc))]
            for root in [p for p in existing if p not in targeted]:
                try:
                    found, skips = discover([root], self.limits, known)
                except Exception as exc:  # a folder that cannot be walked never stops the others
                    found, skips = [], [Skipped(str(root), describe_failure(exc))]
                sources += found
                skipped += skips
            own = str(self.index.path.parent.resolve())  # never ingest our own data folder
            sources = [s for s in sources if not under(str(s.path), own)]
            skipped = [s for s in skipped if not under(s.path, own)]
            kept: list[Source] = []
            for src in sources:
                if scrub(str(src.path)) != str(src.path):
                    report.skipped.append(
                        Skipped(
                            str(src.path), "the file name is not valid UTF-8; rename the file to ingest it"
                        )
                    )
                    continue
                root = self.catalog.ignored_root(str(src.path))
                if root is None:
                    kept.append(src)
                else:
                    report.skipped.append(Skipped(str(src.path), forgotten_reason(root)))
            sources = list({str(s.path): s for s in kept}.values())
            skipped = [s for s in skipped if self.catalog.ignored_root(s.path) is None]
            report.skipped += skipped
            for s in skipped:
                self.catalog.put_skipped(s.path, s.reason)
            self.catalog.commit()
            if not sources:
                if rebuilding is not None:
                    marker.done()
                return report
            with self.index.writer() as w:
                batch = Batch(w, self.catalog, journal, self.policy)
                for i, src in enumerate(sources):
                    if cancel is not None and cancel.is_set():
                        report.cancelled = True
                        break
                    if progress:
                        progress(IngestProgress(i, len(sources), str(src.path), report.added_turns))
                    self._ingest_source(src, batch, report, force, str(src.path) in redo, accept_shrink)
                    if batch.due():
                        batch.commit()
                batch.commit()
                report.commits = batch.commits
                if progress:
                    progress(IngestProgress(len(sources), len(sources), "", report.added_turns))
            if rebuilding is not None and not report.cancelled:
                marker.done()
            return report

    def _unchanged_format(self, path: Path) -> str | None:
        """The recorded format of a file whose size and mtime are as recorded (the walk then need not
        open it to detect its format); None for anything new, changed or unknown."""
        try:
            rec = self.catalog.get_file(str(path))
            if rec is None or rec.mtime_ns < 0:
                return None
            return rec.format if fingerprint(path) == (rec.size, rec.mtime_ns) else None
        except (OSError, UnicodeError):  # gone, or a name that is not valid UTF-8 (skipped later)
            return None

    def _empty_everything(self) -> None:
        """Delete every turn and every catalog row but the ignore list (an interrupted rebuild)."""
        with self.index.writer() as w:
            w.delete_everything()
        for rec in self.catalog.iter_sessions():
            self._removed(rec.ord)
        self.catalog.clear_index_rows()
        self.catalog.commit()
        self.index.journal.done("ingest", self.index.journal.pending()["ingest"])

    def apply_sessions(self, sessions: Iterable[Session], source: str, fmt: str) -> IngestReport:
        """Index already-parsed sessions under a pseudo source (benchmarks, tests, eval harness)."""
        with self._lock, self.index.write_lock():
            report = IngestReport()
            ctx = ParseContext(tz=self.tz)
            with self.index.writer() as w:
                for s in sessions:
                    self._apply_session(s, source, fmt, w, report, ctx, hashes=self._prepare(s, source, ctx))
                w.commit()
                self.catalog.commit()
            report.warnings += ctx.warnings
            return report

    def _ingest_source(
        self,
        src: Source,
        batch: Batch,
        report: IngestReport,
        force: bool,
        dirty: bool = False,
        accept_shrink: bool = False,
    ) -> None:
        """Apply one source to the batch whole, or skip it and leave the batch as it was.

        A source too large to stage in memory is applied on its own commit (`Batch.alone`)."""
        key = str(src.path)
        before = (report.added_turns, report.removed_turns, len(report.warnings))
        try:
            try:
                with batch.source(key) as stage:
                    self._read_source(src, stage, report, force, dirty, accept_shrink)
            except SourceTooLarge:
                report.added_turns, report.removed_turns = before[:2]
                del report.warnings[before[2] :]
                with batch.alone(key) as w:
                    self._read_source(src, w, report, force, dirty, accept_shrink)
        except FileNotFoundError:
            self._skip(src, "file vanished during ingest", report, before)
        except _ChangedWhileRead:
            self._skip(
                src,
                "changed while being read (still being written?); nothing of it was "
                "changed in the index, it is read again at the next ingest",
                report,
                before,
                keep=True,
            )
        except Exception as exc:  # RecursionError, MemoryError, OSError, a parser bug: skip this file only
            self._skip(src, describe_failure(exc), report, before)

    def _read_source(
        self,
        src: Source,
        w: TurnWriter | StagedWriter,
        report: IngestReport,
        force: bool,
        dirty: bool = False,
        accept_shrink: bool = False,
    ) -> bool:
        """Apply one source to the writer and catalog (uncommitted); True when it was parsed and applied.

        `dirty`: an earlier run was killed between this source's index and catalog commits, so
        the index may be ahead of the catalog; every turn of the source is deleted and re-added.
        The file's identity (size, mtime, digest) is recorded only when it was read completely
        and did not change while being read; otherwise it is read again next time.
        """
        key = str(src.path)
        force = force or dirty
        size, mtime = fingerprint(src.path)
        old = self.catalog.get_file(key)
        if old and not force and old.size == size and old.mtime_ns == mtime and old.format == src.format:
            report.unchanged_files += 1
            return False
        # The content hash tells a touched file from a changed one; a new file is read once, to parse
        # it (its hash is taken when its size or mtime change).
        dig = digest(src.path) if old is not None else ""
        if old and not force and dig and old.digest == dig and old.format == src.format:
            self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
            report.unchanged_files += 1
            return False
        ctx = ParseContext(tz=self.tz, limits=self.limits)
        shrunk = old is not None and size < old.size and not accept_shrink and not dirty
        seen: dict[str, tuple[str, ...]] = {}
        owned: set[str] = set()
        held: list[str] = []
        if dirty:
            w.delete_source(key)  # also turns of sessions the catalog never heard of
        for session in get_parser(src.format)(src.path, ctx):
            hashes = self._prepare(session, key, ctx)
            sid = session.session_id
            if sid in seen:
                if seen[sid] == hashes:
                    ctx.warn(f"{key}: session {sid} appears twice with the same text; kept once")
                    continue
                n = 2
                while f"{sid}~{n}" in seen:
                    n += 1
                session.session_id = f"{sid}~{n}"
                ctx.warn(
                    f"{key}: session {sid} appears twice with different text; both kept "
                    f"(the second as {session.session_id})"
                )
            seen[session.session_id] = hashes
            used = self._apply_session(session, key, src.format, w, report, ctx, dirty, hashes, shrunk, held)
            if used:
                owned.add(used)
        if fingerprint(src.path) != (size, mtime):
            raise _ChangedWhileRead()
        gone = [rec for rec in self.catalog.sessions_of_source(key) if rec.sid not in owned]
        if gone and (dirty or (not ctx.incomplete and not shrunk)):
            for rec in gone:
                w.delete_session(rec.sid)
                self.catalog.delete_session(rec.sid)
                self._removed(rec.ord)
                report.removed_turns += rec.n_turns
        elif gone and shrunk and not ctx.incomplete:
            held.append(f"{len(gone)} sessions ({sum(r.n_turns for r in gone)} turns) no longer in the file")
        if ctx.incomplete:
            reason = next((m for m in ctx.warnings if m), "read in part")
            self.catalog.put_file(FileRecord(key, src.format, max(size, old.size if old else 0), -1, ""))
            self.catalog.put_note(key, "partial", reason)
            report.partial.append(key)
        elif held:
            detail = (
                "the file got smaller; kept the indexed turns of "
                + "; ".join(held)
                + f": run `refind ingest --accept-shrink {key}` to accept the smaller file"
            )
            self.catalog.put_file(FileRecord(key, src.format, old.size if old else size, -1, ""))
            self.catalog.put_note(key, "held", detail)
            report.held.append(f"{key}: {detail}")
        else:
            self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
            self.catalog.clear_note(key)
        report.ingested_files += 1
        report.warnings += ctx.warnings
        if not seen and not ctx.warnings:
            report.warnings.append(f"{key}: no conversation turns found")
        return True

    def _skip(
        self,
        src: Source,
        reason: str,
        report: IngestReport,
        before: tuple[int, int, int],
        keep: bool = False,
    ) -> None:
        """Report a source that was not applied (its changes were undone: `Batch.source`)."""
        report.added_turns, report.removed_turns = before[:2]
        del report.warnings[before[2] :]
        report.skipped.append(Skipped(str(src.path), reason))
        if not keep:
            self.catalog.put_skipped(str(src.path), reason)

    def _prepare(self, s: Session, source: str, ctx: ParseContext) -> tuple[str, ...]:
        return prepare_session(s, source, ctx)

    def _apply_session(
        self,
        s: Session,
        source: str,
        fmt: str,
        w: TurnWriter,
        report: IngestReport,
        ctx: ParseContext,
        dirty: bool = False,
        hashes: tuple[str, ...] = (),
        shrunk: bool = False,
        held: list[str] | None = None,
    ) -> str | None:
        """Apply one session; returns the session id this source now owns (None: kept in another file)."""
        sid = s.session_id
        old = self.catalog.get_session(sid)
        if old is not None and old.source != source:
            alt = alt_id(sid, source)
            own = self.catalog.get_session(alt)
            if own is not None:  # this file's own, differing copy from an earlier run
                s.session_id, old = alt, own
            elif old.hashes[: len(hashes)] == hashes:
                self.catalog.add_dupe(sid, source)
                same = "is identical to" if old.hashes == hashes else "is a shorter copy of"
                ctx.warn(f"{source}: session {sid} {same} the one in {old.source}; kept once")
                return None
            elif hashes[: len(old.hashes)] == old.hashes:
                self.catalog.add_dupe(sid, old.source)
                ctx.warn(
                    f"{source}: session {sid} continues the copy in {old.source}; the longer copy is indexed"
                )
            else:
                s.session_id = alt
                ctx.warn(
                    f"{source}: session {sid} is also in {old.source} with different text; "
                    f"both are kept (this copy as {alt})"
                )
                old = self.catalog.get_session(alt)
        sid = s.session_id
        if old is None:
            ord_ = self.catalog.next_ord()
            w.delete_session(sid)  # leftovers of an interrupted run
            report.added_turns += w.add_turns(sid, source, ord_, s.turns)
        else:
            ord_ = old.ord
            common = 0
            for a, b in zip(old.hashes, hashes, strict=False):
                if a != b:
                    break
                common += 1
            if not dirty and common == len(old.hashes) == len(hashes) and old.source == source:
                self._put(s, source, fmt, ord_, hashes)
                return sid
            if shrunk and old.source == source and len(hashes) < len(old.hashes):
                if held is not None:
                    held.append(f"session {sid} ({len(old.hashes)} turns, {len(hashes)} in the file)")
                return sid
            self._changed(ord_, 0 if (old.source != source or dirty) else common)
            if common == 0 or old.source != source or dirty:
                w.delete_session(sid)
                report.removed_turns += old.n_turns
                report.added_turns += w.add_turns(sid, source, ord_, s.turns)
            else:
                for i in range(common, max(len(old.hashes), len(hashes))):
                    w.delete_turn(sid, i)
                report.removed_turns += len(old.hashes) - common
                report.added_turns += w.add_turns(sid, source, ord_, s.turns[common:])
        self._put(s, source, fmt, ord_, hashes)
        return sid

    def _put(self, s: Session, source: str, fmt: str, ord_: int, hashes: tuple[str, ...]) -> None:
        self.catalog.put_session(
            SessionRecord(s.session_id, ord_, source, fmt, s.title, s.started_at, len(hashes), hashes),
            s.participants,
        )


class _ChangedWhileRead(Exception):
    """The file's size or mtime changed between the start and the end of its parse."""


def forgotten_reason(root: str) -> str:
    """Skip reason of a path on the ignore list."""
    return f"forgotten (`refind forget {root}`); run `refind unforget {root}` to index it again"
