"""Incremental, idempotent ingest: discover sources, parse them, and apply only what changed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path
from typing import Protocol

from ..errors import ParseError
from ..index.catalog import Catalog, FileRecord, SessionRecord
from ..index.store import TurnIndex, TurnWriter
from ..types import Session
from .base import ParseContext
from .formats import get_parser
from .limits import Limits
from .walker import Skipped, Source, discover

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
        }


def turn_hash(text: str, speaker: str, ts: object) -> str:
    """Short fingerprint of a turn's content, used to find what changed in a re-read file."""
    return hashlib.blake2b(f"{speaker}\x1f{ts}\x1f{text}".encode(), digest_size=6).hexdigest()


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


class Ingestor:
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
    ) -> None:
        self.limits = limits or Limits()
        self.index = index
        self.catalog = catalog
        self.tz = tz
        self.listeners = list(listeners)
        self._lock = threading.Lock()

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
    ) -> IngestReport:
        """Ingest files and folders; unchanged files are skipped unless `force`."""
        with self._lock, self.index.write_lock():
            report = IngestReport()
            journal = self.index.journal
            pending = journal.pending()
            if pending["forget"]:
                self._forget_paths(pending["forget"])
            redo = set(pending["ingest"])
            roots = [Path(p).expanduser().resolve() for p in paths]
            roots += [Path(p) for p in sorted(redo) if Path(p).exists()]  # interrupted last time
            missing = [p for p in roots if not p.exists()]
            for p in missing:
                report.skipped.append(Skipped(str(p), "path does not exist"))
            sources, skipped = discover([p for p in roots if p.exists()], self.limits)
            own = str(self.index.path.parent.resolve())  # never ingest our own data folder
            sources = [s for s in sources if not _under(str(s.path), own)]
            skipped = [s for s in skipped if not _under(s.path, own)]
            report.skipped += skipped
            for s in skipped:
                self.catalog.put_skipped(s.path, s.reason)
            self.catalog.commit()
            if not sources:
                return report
            with self.index.writer() as w:
                for i, src in enumerate(sources):
                    if cancel is not None and cancel.is_set():
                        report.cancelled = True
                        break
                    if progress:
                        progress(IngestProgress(i, len(sources), str(src.path), report.added_turns))
                    key = str(src.path)
                    applied = self._ingest_source(src, w, report, force, dirty=key in redo)
                    if applied:
                        journal.add("ingest", [key])
                    w.commit()
                    self.catalog.commit()
                    if applied:
                        journal.done("ingest", [key])
                if progress:
                    progress(IngestProgress(len(sources), len(sources), "", report.added_turns))
            return report

    def apply_sessions(self, sessions: Iterable[Session], source: str, fmt: str) -> IngestReport:
        """Index already-parsed sessions under a pseudo source (benchmarks, tests, eval harness)."""
        with self._lock, self.index.write_lock():
            report = IngestReport()
            ctx = ParseContext(tz=self.tz)
            with self.index.writer() as w:
                for s in sessions:
                    self._apply_session(s, source, fmt, w, report, ctx)
                w.commit()
                self.catalog.commit()
            report.warnings += ctx.warnings
            return report

    def _ingest_source(
        self, src: Source, w: TurnWriter, report: IngestReport, force: bool, dirty: bool = False
    ) -> bool:
        """Apply one source to the writer and catalog (uncommitted); True when it was parsed and applied.

        `dirty`: an earlier run was killed between this source's index and catalog commits, so
        the index may be ahead of the catalog; every turn of the source is deleted and re-added.
        """
        key = str(src.path)
        force = force or dirty
        try:
            size, mtime = fingerprint(src.path)
            old = self.catalog.get_file(key)
            if old and not force and old.size == size and old.mtime_ns == mtime and old.format == src.format:
                report.unchanged_files += 1
                return False
            dig = digest(src.path)
            if old and not force and old.digest == dig and old.format == src.format:
                self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
                report.unchanged_files += 1
                return False
            ctx = ParseContext(tz=self.tz, limits=self.limits)
            seen: set[str] = set()
            if dirty:
                w.delete_source(key)  # also turns of sessions the catalog never heard of
            for session in get_parser(src.format)(src.path, ctx):
                if session.session_id in seen:
                    ctx.warn(f"{key}: session {session.session_id} appears twice; kept the first")
                    continue
                seen.add(session.session_id)
                self._apply_session(session, key, src.format, w, report, ctx, dirty)
            if dirty or not ctx.incomplete:
                for rec in self.catalog.sessions_of_source(key):
                    if rec.sid not in seen:
                        w.delete_session(rec.sid)
                        self.catalog.delete_session(rec.sid)
                        self._removed(rec.ord)
                        report.removed_turns += rec.n_turns
            self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
            report.ingested_files += 1
            report.warnings += ctx.warnings
            if not seen and not ctx.warnings:
                report.warnings.append(f"{key}: no conversation turns found")
            return True
        except FileNotFoundError:
            self._skip(src, "file vanished during ingest", w, report)
        except (ParseError, OSError, UnicodeError, ValueError) as exc:
            self._skip(src, _reason(exc), w, report)
        return False

    def _skip(self, src: Source, reason: str, w: TurnWriter, report: IngestReport) -> None:
        # Undo this source's partial changes; earlier sources are already committed.
        w.rollback()
        self.catalog.rollback()
        report.skipped.append(Skipped(str(src.path), reason))
        self.catalog.put_skipped(str(src.path), reason)

    def _apply_session(
        self,
        s: Session,
        source: str,
        fmt: str,
        w: TurnWriter,
        report: IngestReport,
        ctx: ParseContext,
        dirty: bool = False,
    ) -> None:
        for t in s.turns:
            if t.timestamp is None:
                t.timestamp = s.started_at
        hashes = tuple(turn_hash(t.text, t.speaker, t.timestamp) for t in s.turns)
        old = self.catalog.get_session(s.session_id)
        if old is not None and old.source != source and not dirty:
            if old.hashes == hashes:
                ctx.warn(
                    f"{source}: session {s.session_id} is identical to the one in {old.source}; kept once"
                )
                return
            if Path(old.source).exists() and len(hashes) <= len(old.hashes):
                ctx.warn(
                    f"{source}: session {s.session_id} also in {old.source} with more or equal "
                    "turns; kept that copy"
                )
                return
        if old is None:
            ord_ = self.catalog.next_ord()
            w.delete_session(s.session_id)  # leftovers of an interrupted run
            report.added_turns += w.add_turns(s.session_id, source, ord_, s.turns)
        else:
            ord_ = old.ord
            common = 0
            for a, b in zip(old.hashes, hashes, strict=False):
                if a != b:
                    break
                common += 1
            if not dirty and common == len(old.hashes) == len(hashes) and old.source == source:
                self._put(s, source, fmt, ord_, hashes)
                return
            self._changed(ord_, 0 if (old.source != source or dirty) else common)
            if common == 0 or old.source != source or dirty:
                w.delete_session(s.session_id)
                report.removed_turns += old.n_turns
                report.added_turns += w.add_turns(s.session_id, source, ord_, s.turns)
            else:
                for i in range(common, max(len(old.hashes), len(hashes))):
                    w.delete_turn(s.session_id, i)
                report.removed_turns += len(old.hashes) - common
                report.added_turns += w.add_turns(s.session_id, source, ord_, s.turns[common:])
        self._put(s, source, fmt, ord_, hashes)

    def _put(self, s: Session, source: str, fmt: str, ord_: int, hashes: tuple[str, ...]) -> None:
        self.catalog.put_session(
            SessionRecord(s.session_id, ord_, source, fmt, s.title, s.started_at, len(hashes), hashes),
            s.participants,
        )

    def forget(self, target: Path) -> int:
        """Remove every session of a source path (or of every source under a folder) from disk.

        Returns the number of turns removed, or -1 when nothing under `target` was ever ingested.
        The text is physically deleted (see `TurnIndex.purge`), not only hidden from results.
        """
        with self._lock, self.index.write_lock():
            key = str(Path(target).expanduser().resolve())
            pending = self.index.journal.pending()
            if pending["forget"]:
                self._forget_paths(pending["forget"])
            known = [f.path for f in self.catalog.files()] + pending["ingest"]
            files = sorted({p for p in known if _under(p, key)})
            return self._forget_paths(files) if files else -1

    def _forget_paths(self, paths: list[str]) -> int:
        recs = [r for f in paths for r in self.catalog.sessions_of_source(f)]
        self.index.journal.add("forget", paths)  # finished by the next writer if we are killed
        sources: dict[int, str] = {}

        def source_of(sord: int) -> str:
            if sord not in sources:
                rec = self.catalog.get_session_by_ord(sord)
                sources[sord] = rec.source if rec else ""
            return sources[sord]

        self.index.purge([r.sid for r in recs], paths, source_of)
        for r in recs:
            self.catalog.delete_session(r.sid)
            self._removed(r.ord)
        for f in paths:
            self.catalog.delete_file(f)
            self.catalog.clear_skipped(f)
        self.catalog.commit()
        self.catalog.checkpoint()
        self.index.journal.done("forget", paths)
        self.index.journal.done("ingest", paths)
        return sum(r.n_turns for r in recs)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ParseError):
        return exc.message
    if isinstance(exc, UnicodeError):
        return f"cannot decode text ({exc})"
    return f"{type(exc).__name__}: {exc}"
