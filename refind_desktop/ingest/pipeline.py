"""Incremental, idempotent ingest: discover sources, parse them, and apply only what changed."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import tzinfo
from pathlib import Path

from ..errors import ParseError
from ..index.catalog import Catalog, FileRecord, SessionRecord
from ..index.store import TurnIndex, TurnWriter
from ..types import Session
from .base import ParseContext
from .detect import Skipped, Source, discover
from .formats import get_parser

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


class Ingestor:
    """Applies chat files to the index and catalog. One instance per writer process."""

    def __init__(self, index: TurnIndex, catalog: Catalog, tz: tzinfo) -> None:
        self.index = index
        self.catalog = catalog
        self.tz = tz
        self._lock = threading.Lock()

    def ingest(self, paths: Iterable[Path], progress: ProgressFn | None = None,
               cancel: threading.Event | None = None, force: bool = False) -> IngestReport:
        """Ingest files and folders; unchanged files are skipped unless `force`."""
        with self._lock:
            report = IngestReport()
            roots = [Path(p).expanduser().resolve() for p in paths]
            missing = [p for p in roots if not p.exists()]
            for p in missing:
                report.skipped.append(Skipped(str(p), "path does not exist"))
            sources, skipped = discover([p for p in roots if p.exists()])
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
                    self._ingest_source(src, w, report, force)
                    w.commit()
                    self.catalog.commit()
                if progress:
                    progress(IngestProgress(len(sources), len(sources), "", report.added_turns))
            return report

    def apply_sessions(self, sessions: Iterable[Session], source: str, fmt: str) -> IngestReport:
        """Index already-parsed sessions under a pseudo source (benchmarks, tests, eval harness)."""
        with self._lock:
            report = IngestReport()
            ctx = ParseContext(tz=self.tz)
            with self.index.writer() as w:
                for s in sessions:
                    self._apply_session(s, source, fmt, w, report, ctx)
                w.commit()
                self.catalog.commit()
            report.warnings += ctx.warnings
            return report

    def _ingest_source(self, src: Source, w: TurnWriter, report: IngestReport, force: bool) -> None:
        key = str(src.path)
        try:
            size, mtime = fingerprint(src.path)
            old = self.catalog.get_file(key)
            if old and not force and old.size == size and old.mtime_ns == mtime and old.format == src.format:
                report.unchanged_files += 1
                return
            dig = digest(src.path)
            if old and not force and old.digest == dig and old.format == src.format:
                self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
                report.unchanged_files += 1
                return
            ctx = ParseContext(tz=self.tz)
            seen: set[str] = set()
            for session in get_parser(src.format)(src.path, ctx):
                if session.session_id in seen:
                    ctx.warn(f"{key}: session {session.session_id} appears twice; kept the first")
                    continue
                seen.add(session.session_id)
                self._apply_session(session, key, src.format, w, report, ctx)
            if not ctx.incomplete:
                for rec in self.catalog.sessions_of_source(key):
                    if rec.sid not in seen:
                        w.delete_session(rec.sid)
                        self.catalog.delete_session(rec.sid)
                        report.removed_turns += rec.n_turns
            self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
            report.ingested_files += 1
            report.warnings += ctx.warnings
            if not seen and not ctx.warnings:
                report.warnings.append(f"{key}: no conversation turns found")
        except FileNotFoundError:
            self._skip(src, "file vanished during ingest", w, report)
        except (ParseError, OSError, UnicodeError, ValueError) as exc:
            self._skip(src, _reason(exc), w, report)

    def _skip(self, src: Source, reason: str, w: TurnWriter, report: IngestReport) -> None:
        # Undo this source's partial changes; earlier sources are already committed.
        w.rollback()
        self.catalog.rollback()
        report.skipped.append(Skipped(str(src.path), reason))
        self.catalog.put_skipped(str(src.path), reason)

    def _apply_session(self, s: Session, source: str, fmt: str, w: TurnWriter,
                       report: IngestReport, ctx: ParseContext) -> None:
        for t in s.turns:
            if t.timestamp is None:
                t.timestamp = s.started_at
        hashes = tuple(turn_hash(t.text, t.speaker, t.timestamp) for t in s.turns)
        old = self.catalog.get_session(s.session_id)
        if old is not None and old.source != source:
            if old.hashes == hashes:
                ctx.warn(f"{source}: session {s.session_id} is identical to the one in {old.source}; "
                         "kept once")
                return
            if Path(old.source).exists() and len(hashes) <= len(old.hashes):
                ctx.warn(f"{source}: session {s.session_id} also in {old.source} with more or equal "
                         "turns; kept that copy")
                return
        if old is None:
            ord_ = self.catalog.next_ord()
            w.delete_session(s.session_id)  # leftovers of an interrupted run
            report.added_turns += w.add_turns(s.session_id, source, ord_, s.turns)
        else:
            ord_ = old.ord
            common = 0
            for a, b in zip(old.hashes, hashes):
                if a != b:
                    break
                common += 1
            if common == len(old.hashes) == len(hashes) and old.source == source:
                self._put(s, source, fmt, ord_, hashes)
                return
            if common == 0 or old.source != source:
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
            s.participants)

    def forget(self, target: Path) -> int:
        """Remove every session of a source path (or of every source under a folder)."""
        with self._lock:
            key = str(Path(target).expanduser().resolve())
            files = [f.path for f in self.catalog.files() if f.path == key or f.path.startswith(key + "/")]
            recs = [r for f in files for r in self.catalog.sessions_of_source(f)]
            removed = 0
            with self.index.writer() as w:
                for r in recs:
                    w.delete_session(r.sid)
                    removed += r.n_turns
            for r in recs:
                self.catalog.delete_session(r.sid)
            for f in files:
                self.catalog.delete_file(f)
                self.catalog.clear_skipped(f)
            self.catalog.commit()
            return removed if files else -1


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ParseError):
        return exc.message
    if isinstance(exc, UnicodeError):
        return f"cannot decode text ({exc})"
    return f"{type(exc).__name__}: {exc}"
