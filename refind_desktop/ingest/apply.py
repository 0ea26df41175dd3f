"""Applying one source to a batch: fingerprint check, parse, replayed turns, per-session diff, catalog rows.

Mixed into `Ingestor` (it uses the ingestor's index, catalog, zone, limits and listeners). A source
is applied whole or not at all (`Batch.source`); `_apply_session` turns a parsed session into the
smallest index change (append, replace from the first changed turn, or nothing).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..errors import describe_failure
from ..index.catalog import FileRecord, SessionRecord
from ..index.kept import KEPT_NAME, KeptSources
from ..index.store import TurnWriter
from ..terminal import shell_command
from ..types import Session
from .agent_paths import read_in_one_snapshot
from .base import ParseContext
from .batch import Batch, SourceTooLarge, StagedWriter
from .conversations import split_stored
from .formats import get_parser
from .prepare import alt_id, prepare_session
from .replays import drop_replayed
from .report import IngestReport
from .stored import stored_session
from .walker import Skipped, Source


def fingerprint(path: Path) -> tuple[int, int]:
    """(size, mtime_ns) of a file, or the sum/max over a directory source. Only `stat` is called.

    A database's write-ahead log (`NAME-wal`, Cursor and OpenCode keep their chats in SQLite) holds
    committed rows until a checkpoint, so its mtime counts as the file's (its size does not: a
    checkpoint moves rows into the file, and a file that gets smaller means something else)."""
    if path.is_dir():
        size, mtime = 0, 0
        for p in sorted(path.rglob("*")):
            if p.is_file():
                st = p.stat()
                size += st.st_size
                mtime = max(mtime, st.st_mtime_ns)
        return size, mtime
    st = path.stat()
    try:
        wal = os.stat(f"{path}-wal").st_mtime_ns
    except OSError:
        wal = 0
    return st.st_size, max(st.st_mtime_ns, wal)


def digest(path: Path) -> str:
    """Content hash of a file (streamed, with its write-ahead log if it has one) or of a directory's files."""
    h = hashlib.blake2b(digest_size=16)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
    else:
        files = [path] + [p for p in (Path(f"{path}-wal"),) if p.is_file()]
    for p in files:
        if path.is_dir():
            h.update(str(p.relative_to(path)).encode() + b"\0")
        with open(p, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


class SourceApplier:
    """The per-source half of the ingestor."""

    def _reapply_replays(self, batch: Batch, report: IngestReport) -> None:
        """Apply again the sessions that must give up turns a session just read holds first (in the same
        batch, so a kill never leaves a turn in both): from their files, or from their stored turns
        when the file is gone."""
        rounds = 0
        while self._redo and rounds < 10:  # a redo only moves turns to earlier transcripts: it ends
            rounds += 1
            sids, self._redo = sorted(self._redo), set()
            for sid in sids:
                rec = self.catalog.get_session(sid)
                if rec is None:
                    continue
                if Path(rec.source).exists():
                    self._ingest_source(Source(Path(rec.source), rec.format), batch, report, force=True)
                else:
                    self._reapply_stored(rec, batch, report)
        self._redo = set()

    def _restore_kept(self, report: IngestReport) -> None:
        """Apply the sessions a rebuild kept of files that are gone (index/kept.py), with their file records.

        A messenger chat an older version stored whole is cut into conversations here, as its file
        would be if it were read again (`split_stored`, the ingestor's split rule)."""
        kept = KeptSources(self.index.path.parent / KEPT_NAME)
        if not kept.exists():
            return
        with self.index.writer() as w:
            batch = Batch(w, self.catalog, self.index.journal, self.policy)
            for src in kept.read():
                ctx = ParseContext(tz=self.tz, split=self.split)
                with batch.source(src.path) as stage:
                    for stored in src.sessions:
                        for session in split_stored(stored, src.format, self.split):
                            self._apply_stored(session, src.path, src.format, stage, report, ctx)
                    self.catalog.put_file(
                        FileRecord(src.path, src.format, src.size, src.mtime_ns, src.digest)
                    )
                self._reapply_replays(batch, report)
                if batch.due():
                    batch.commit()
            batch.commit()

    def _apply_stored(
        self,
        session: Session,
        source: str,
        fmt: str,
        w: StagedWriter,
        report: IngestReport,
        ctx: ParseContext,
    ) -> int:
        """Apply a session rebuilt from stored turns through the normal path; returns the turns it keeps."""
        hashes = self._prepare(session, source, ctx)
        replay = drop_replayed(session, fmt, source, self.catalog)
        hashes = tuple(hashes[i] for i in replay.kept)
        if session.turns:
            self._apply_session(session, source, fmt, w, report, ctx, hashes=hashes)
        return len(session.turns)

    def _reapply_stored(self, rec: SessionRecord, batch: Batch, report: IngestReport) -> None:
        """Apply a session again from its stored turns (its file is gone)."""
        session = stored_session(
            rec,
            self.index.session_turns(rec.ord),
            self.catalog.participants(rec.sid),
            self.catalog.positions(rec.sid),
        )
        ctx = ParseContext(tz=self.tz, split=self.split)
        with batch.source(rec.source) as stage:
            if not self._apply_stored(session, rec.source, rec.format, stage, report, ctx):
                stage.delete_session(rec.sid)
                self.catalog.delete_session(rec.sid)
                self._removed(rec.ord)
                report.removed_turns += rec.n_turns
        report.warnings += ctx.warnings

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
        before = (report.added_turns, report.removed_turns, len(report.warnings), set(self._redo))
        try:
            try:
                with batch.source(key) as stage:
                    self._read_source(src, stage, report, force, dirty, accept_shrink)
            except SourceTooLarge:
                self._undo(report, before)
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
        ctx = ParseContext(tz=self.tz, limits=self.limits, split=self.split)
        shrunk = old is not None and size < old.size and not accept_shrink and not dirty
        seen: dict[str, tuple[str, ...]] = {}
        owned: set[str] = set()
        parsed: set[str] = set()
        held: list[str] = []
        if dirty:
            w.delete_source(key)  # also turns of sessions the catalog never heard of
        for session in get_parser(src.format)(src.path, ctx):
            hashes = self._prepare(session, key, ctx)
            parsed.add(session.session_id)
            replay = drop_replayed(session, src.format, key, self.catalog)
            if replay.dropped:
                hashes = tuple(hashes[i] for i in replay.kept)
            self._redo |= replay.redo
            if not session.turns:
                continue  # every turn is kept in the session it replays
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
        if fingerprint(src.path) != (size, mtime) and not read_in_one_snapshot(src.path, src.format):
            raise _ChangedWhileRead()  # (a database read in one snapshot is consistent; the change is read next)
        gone = [rec for rec in self.catalog.sessions_of_source(key) if rec.sid not in owned]
        if gone and (dirty or (not ctx.incomplete and not shrunk)):
            for rec in gone:
                w.delete_session(rec.sid)
                self.catalog.delete_session(rec.sid)
                self._removed(rec.ord)
                report.removed_turns += rec.n_turns
        if dirty or (not ctx.incomplete and not shrunk):
            self.catalog.drop_transcripts(key, keep=parsed)
        if gone and shrunk and not ctx.incomplete and not dirty:
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
                + f": run `{shell_command('refind', 'ingest', '--accept-shrink', key)}` to accept the smaller file"
            )
            self.catalog.put_file(FileRecord(key, src.format, old.size if old else size, -1, ""))
            self.catalog.put_note(key, "held", detail)
            report.held.append(f"{key}: {detail}")
        else:
            self.catalog.put_file(FileRecord(key, src.format, size, mtime, dig))
            self.catalog.clear_note(key)
        report.ingested_files += 1
        report.warnings += ctx.warnings
        if not parsed and not ctx.warnings:
            report.warnings.append(f"{key}: no conversation turns found")
        return True

    def _skip(
        self,
        src: Source,
        reason: str,
        report: IngestReport,
        before: tuple[int, int, int, set[str]],
        keep: bool = False,
    ) -> None:
        """Report a source that was not applied (its changes were undone: `Batch.source`)."""
        self._undo(report, before)
        report.skipped.append(Skipped(str(src.path), reason))
        if not keep:
            self.catalog.put_skipped(str(src.path), reason)

    def _undo(self, report: IngestReport, before: tuple[int, int, int, set[str]]) -> None:
        """Take back what an undone source added to the report and to the sessions to apply again."""
        report.added_turns, report.removed_turns = before[:2]
        del report.warnings[before[2] :]
        self._redo = set(before[3])

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
            SessionRecord(
                s.session_id,
                ord_,
                source,
                fmt,
                s.title,
                s.started_at,
                len(hashes),
                hashes,
                chat=s.chat_id,
                chat_title=s.chat_title,
                continues=s.continues,
            ),
            s.participants,
        )


class _ChangedWhileRead(Exception):
    """The file's size or mtime changed between the start and the end of its parse."""
