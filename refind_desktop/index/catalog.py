"""SQLite bookkeeping beside the index: ingested files, sessions (with turn fingerprints), skips."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import IndexDamagedError
from ..terminal import scrub
from ..types import SessionInfo
from .integrity import DAMAGED_HINT
from .migrations import enable_wal, migrate
from .transcripts import MIGRATION as TRANSCRIPTS_MIGRATION
from .transcripts import TranscriptIds

MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_initial",
        """
        CREATE TABLE files(path TEXT PRIMARY KEY, format TEXT, size INTEGER, mtime_ns INTEGER,
                           digest TEXT, ingested_at REAL);
        CREATE TABLE sessions(sid TEXT PRIMARY KEY, ord INTEGER UNIQUE NOT NULL, source TEXT NOT NULL,
                              format TEXT, title TEXT, started_at REAL, participants TEXT,
                              n_turns INTEGER NOT NULL, hashes TEXT NOT NULL);
        CREATE INDEX sessions_source ON sessions(source);
        CREATE TABLE skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL, at REAL);
        CREATE TABLE counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    """,
    ),
    (
        "002_ignore_notes_dupes",
        """
        CREATE TABLE ignored(path TEXT PRIMARY KEY, at REAL);
        CREATE TABLE file_notes(path TEXT PRIMARY KEY, kind TEXT NOT NULL, detail TEXT NOT NULL, at REAL);
        CREATE TABLE dupes(sid TEXT NOT NULL, source TEXT NOT NULL, PRIMARY KEY(sid, source));
        CREATE INDEX dupes_source ON dupes(source);
    """,
    ),
    (
        "003_session_chat",
        """
        ALTER TABLE sessions ADD COLUMN chat TEXT NOT NULL DEFAULT '';
        ALTER TABLE sessions ADD COLUMN chat_title TEXT NOT NULL DEFAULT '';
        CREATE INDEX sessions_chat ON sessions(chat, started_at);
    """,
    ),
    TRANSCRIPTS_MIGRATION,
]


@dataclass(frozen=True, slots=True)
class FileRecord:
    """What was last ingested from one source path."""

    path: str
    format: str
    size: int
    mtime_ns: int
    digest: str


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """Catalog row of a session, with the fingerprints of its turns."""

    sid: str
    """Session id: the stable string its reader gives it (e.g. `chatgpt:<uuid>`)."""
    ord: int
    """Session ordinal ("sord" in the index and elsewhere): a small integer, unique, never reused."""
    source: str
    format: str
    title: str
    started_at: datetime | None
    n_turns: int
    hashes: tuple[str, ...]
    chat: str = ""
    """The chat this session is a conversation of ("" for a session that stands alone)."""
    chat_title: str = ""
    continues: str = ""
    """The session this one continues (a resumed or forked transcript), or ""."""


_COLS = "sid, ord, source, format, title, started_at, n_turns, hashes, chat, chat_title, continues"


def _ts(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, tz=timezone.utc) if value is not None else None


def _under_clause(folders: list[str], outside: bool, column: str = "source") -> tuple[str, list[str]]:
    """`WHERE` over a path column: inside one of `folders` (or, `outside`, in none of them), as ranges
    `prefix/ <= path < prefix0` the column's index answers ('0' follows '/')."""
    if not folders:
        return ("WHERE 0", []) if not outside else ("", [])
    parts, args = [], []
    for folder in folders:
        prefix = folder.rstrip("/")
        parts.append(f"({column} >= ? AND {column} < ?)")
        args += [prefix + "/", prefix + "0"]
    inside = " OR ".join(parts)
    return (f"WHERE NOT ({inside})" if outside else f"WHERE {inside}"), args


class Catalog(TranscriptIds):
    """Files, sessions and skipped files. Changes become durable at `commit()`."""

    def __init__(self, path: Path, check: bool = True) -> None:
        new = not path.exists()
        self.path = path
        self.readonly = not new and not os.access(path.parent, os.W_OK)
        if self.readonly:  # a read-only home: read the catalog as it is (no WAL, no migration)
            uri = f"file:{path}?mode=ro&immutable=1"
            self.db = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
        else:
            self.db = sqlite3.connect(
                str(path), timeout=30, isolation_level="DEFERRED", check_same_thread=False
            )
        try:
            if new:
                os.chmod(path, 0o600)
            if not self.readonly:
                enable_wal(self.db)
                self.db.execute("PRAGMA synchronous=NORMAL")
                # forgotten titles are overwritten, not left in free pages
                self.db.execute("PRAGMA secure_delete=ON")
            problem = self.integrity_problem() if check and not new else None
            if problem is None and not self.readonly:
                self._migrate()
        except sqlite3.OperationalError:
            self.db.close()
            raise
        except sqlite3.DatabaseError as exc:  # "file is not a database", "malformed"
            self.db.close()
            raise IndexDamagedError(f"the catalog {path.name} is damaged ({exc}): {DAMAGED_HINT}") from exc
        if problem is not None:
            self.db.close()
            raise IndexDamagedError(f"the catalog {path.name} is damaged ({problem}): {DAMAGED_HINT}")

    def _migrate(self) -> None:
        migrate(self.db, MIGRATIONS)

    def commit(self) -> None:
        """Make pending changes durable."""
        self.db.commit()

    def rollback(self) -> None:
        """Drop pending changes."""
        self.db.rollback()

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def checkpoint(self) -> None:
        """Copy the WAL into the database and truncate it (after `forget`, so old pages leave the WAL)."""
        self.db.commit()
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    # -- files ---------------------------------------------------------------
    def get_file(self, path: str) -> FileRecord | None:
        """The record of a source path, if it was ingested."""
        row = self.db.execute(
            "SELECT path, format, size, mtime_ns, digest FROM files WHERE path=?", (path,)
        ).fetchone()
        return FileRecord(*row) if row else None

    def put_file(self, rec: FileRecord) -> None:
        """Insert or replace a file record; clears any earlier skip of that path."""
        self.db.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?)",
            (rec.path, rec.format, rec.size, rec.mtime_ns, rec.digest, time.time()),
        )
        self.db.execute("DELETE FROM skipped WHERE path=?", (rec.path,))

    def delete_file(self, path: str) -> None:
        """Forget a file record."""
        self.db.execute("DELETE FROM files WHERE path=?", (path,))

    def files(self) -> list[FileRecord]:
        """All ingested source paths."""
        rows = self.db.execute("SELECT path, format, size, mtime_ns, digest FROM files ORDER BY path")
        return [FileRecord(*r) for r in rows]

    # -- skipped -------------------------------------------------------------
    def put_skipped(self, path: str, reason: str) -> None:
        """Remember why a path was skipped (shown by `refind stats`)."""
        self.db.execute(
            "INSERT OR REPLACE INTO skipped VALUES (?,?,?)", (scrub(path), scrub(reason), time.time())
        )

    def clear_skipped(self, path: str) -> None:
        """Forget a skip (the path ingested fine, or it is gone)."""
        self.db.execute("DELETE FROM skipped WHERE path=?", (path,))

    def skipped(self) -> list[tuple[str, str]]:
        """(path, reason) of every skipped path."""
        return list(self.db.execute("SELECT path, reason FROM skipped ORDER BY path"))

    # -- forgotten paths (the ignore list) -------------------------------------
    def ignore(self, path: str) -> None:
        """Never ingest this file or folder again until `unignore` (set by `refind forget`)."""
        self.db.execute("INSERT OR REPLACE INTO ignored VALUES (?, ?)", (path, time.time()))

    def unignore(self, path: str) -> bool:
        """Take a path off the ignore list; False when it was not on it."""
        return self.db.execute("DELETE FROM ignored WHERE path=?", (path,)).rowcount > 0

    def ignored(self) -> list[str]:
        """Every forgotten path, sorted."""
        return [r[0] for r in self.db.execute("SELECT path FROM ignored ORDER BY path")]

    def ignored_root(self, path: str) -> str | None:
        """The forgotten path that `path` is (or lies under), if any."""
        for (root,) in self.db.execute("SELECT path FROM ignored"):
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return root
        return None

    # -- per-file notes: partial reads and held shrinks ----------------------------
    def put_note(self, path: str, kind: str, detail: str) -> None:
        """Mark a file as read in part (`partial`) or with old turns kept (`held`), with the reason."""
        self.db.execute(
            "INSERT OR REPLACE INTO file_notes VALUES (?,?,?,?)", (path, kind, scrub(detail), time.time())
        )

    def clear_note(self, path: str) -> None:
        """The file was read completely and applied as it is."""
        self.db.execute("DELETE FROM file_notes WHERE path=?", (path,))

    def notes(self) -> list[tuple[str, str, str]]:
        """(path, kind, detail) of every partial or held file."""
        return list(self.db.execute("SELECT path, kind, detail FROM file_notes ORDER BY path"))

    # -- duplicate copies kept once ----------------------------------------------
    def add_dupe(self, sid: str, source: str) -> None:
        """`source` also holds session `sid` (identical, or a prefix of the indexed copy)."""
        self.db.execute("INSERT OR IGNORE INTO dupes VALUES (?, ?)", (sid, source))

    def dupe_sources(self, sids: list[str]) -> list[str]:
        """Files that hold copies of these sessions besides the indexed one."""
        out: set[str] = set()
        for i in range(0, len(sids), 500):
            chunk = sids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out |= {r[0] for r in self.db.execute(f"SELECT source FROM dupes WHERE sid IN ({marks})", chunk)}
        return sorted(out)

    def drop_dupes(self, sids: list[str] = (), source: str | None = None) -> None:
        """Forget duplicate bookkeeping of sessions, or of one source."""
        for sid in sids:
            self.db.execute("DELETE FROM dupes WHERE sid=?", (sid,))
        if source is not None:
            self.db.execute("DELETE FROM dupes WHERE source=?", (source,))

    def clear_index_rows(self) -> None:
        """Drop every file, session, skip, note and duplicate row (a rebuild); the ignore list stays."""
        for table in ("files", "sessions", "skipped", "file_notes", "dupes", "transcript_ids"):
            self.db.execute(f"DELETE FROM {table}")

    def integrity_problem(self) -> str | None:
        """SQLite's quick check: None when the catalog is sound, else the first problem."""
        row = self.db.execute("PRAGMA quick_check(1)").fetchone()
        return None if row and row[0] == "ok" else (row[0] if row else "no answer")

    # -- sessions ------------------------------------------------------------
    def next_ord(self) -> int:
        """A session ordinal never used before (ordinals are not reused after deletes)."""
        row = self.db.execute("SELECT value FROM counters WHERE name='sord'").fetchone()
        value = (row[0] if row else 0) + 1
        self.db.execute("INSERT OR REPLACE INTO counters VALUES ('sord', ?)", (value,))
        return value

    def get_session(self, sid: str) -> SessionRecord | None:
        """A session's catalog row."""
        row = self.db.execute(
            f"SELECT {_COLS} FROM sessions WHERE sid=?",
            (sid,),
        ).fetchone()
        return self._session(row) if row else None

    def session_ids_starting(self, prefix: str, limit: int = 10) -> list[str]:
        """Up to `limit` session ids that begin with `prefix`, or whose part after the format name
        (`chatgpt:`, `whatsapp:`...) does, sorted; compared exactly (no wildcards)."""
        rows = self.db.execute(
            "SELECT sid FROM sessions WHERE substr(sid, 1, ?1) = ?2 "
            "OR substr(sid, instr(sid, ':') + 1, ?1) = ?2 ORDER BY sid LIMIT ?3",
            (len(prefix), prefix, int(limit)),
        )
        return [r[0] for r in rows]

    def get_session_by_ord(self, ord_: int) -> SessionRecord | None:
        """A session's catalog row by ordinal."""
        row = self.db.execute(
            f"SELECT {_COLS} FROM sessions WHERE ord=?",
            (ord_,),
        ).fetchone()
        return self._session(row) if row else None

    @staticmethod
    def _session(row: tuple) -> SessionRecord:
        hashes = tuple(row[7].split(",")) if row[7] else ()
        return SessionRecord(
            row[0],
            row[1],
            row[2],
            row[3] or "",
            row[4] or "",
            _ts(row[5]),
            row[6],
            hashes,
            row[8],
            row[9],
            row[10] or "",
        )

    def put_session(self, rec: SessionRecord, participants: list[str] | None = None) -> None:
        """Insert or replace a session row."""
        started = rec.started_at.timestamp() if rec.started_at else None
        self.db.execute(
            "INSERT OR REPLACE INTO sessions(sid, ord, source, format, title, started_at, participants, "
            "n_turns, hashes, chat, chat_title, continues) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                rec.sid,
                rec.ord,
                rec.source,
                rec.format,
                rec.title,
                started,
                json.dumps(participants or []),
                rec.n_turns,
                ",".join(rec.hashes),
                rec.chat,
                rec.chat_title,
                rec.continues or None,
            ),
        )

    def participants(self, sid: str) -> list[str]:
        """The participants recorded for a session."""
        row = self.db.execute("SELECT participants FROM sessions WHERE sid=?", (sid,)).fetchone()
        try:
            names = json.loads(row[0]) if row and row[0] else []
        except ValueError:
            names = []
        return [str(n) for n in names] if isinstance(names, list) else []

    def delete_session(self, sid: str) -> None:
        """Remove a session row."""
        self.db.execute("DELETE FROM sessions WHERE sid=?", (sid,))

    def sessions_of_source(self, source: str) -> list[SessionRecord]:
        """Sessions owned by one source path."""
        rows = self.db.execute(
            f"SELECT {_COLS} FROM sessions WHERE source=?",
            (source,),
        )
        return [self._session(r) for r in rows]

    def session_infos(
        self, limit: int | None = None, under: list[str] | None = None, outside: bool = False
    ) -> Iterator[SessionInfo]:
        """Sessions newest first (unknown dates last); with `under`, only those whose source file lies
        in one of those folders (with `outside`, only those whose source lies in none of them)."""
        where, args = _under_clause(under, outside) if under is not None else ("", [])
        sql = (
            "SELECT sid, title, source, format, started_at, n_turns, chat, chat_title, continues FROM sessions "
            f"{where} ORDER BY started_at IS NULL, started_at DESC, sid"
        )
        if limit:
            sql += f" LIMIT {int(limit)}"
        for r in self.db.execute(sql, args):
            yield SessionInfo(r[0], r[1] or "", r[2], r[3] or "", _ts(r[4]), r[5], r[6], r[7], r[8] or "")

    def sids_under(self, folders: list[str]) -> list[str]:
        """Ids of the sessions whose source file lies in one of `folders` (a mirror folder per host)."""
        if not folders:
            return []
        where, args = _under_clause(folders, False)
        return [r[0] for r in self.db.execute(f"SELECT sid FROM sessions {where}", args)]

    def totals_under(self, folder: str) -> tuple[int, int, int]:
        """(files, sessions, turns) indexed from source files inside `folder` (one host's mirror)."""
        where, args = _under_clause([folder], False)
        files = self.db.execute(
            f"SELECT COUNT(*) FROM files {_under_clause([folder], False, 'path')[0]}", args
        )
        sessions = self.db.execute(f"SELECT COUNT(*), COALESCE(SUM(n_turns),0) FROM sessions {where}", args)
        return (files.fetchone()[0], *sessions.fetchone())

    def chat_sessions(self, chat: str) -> list[SessionRecord]:
        """The conversations of one chat, oldest first (undated ones last)."""
        rows = self.db.execute(
            f"SELECT {_COLS} FROM sessions WHERE chat=? AND chat!='' "
            "ORDER BY started_at IS NULL, started_at, sid",
            (chat,),
        )
        return [self._session(r) for r in rows]

    def chat_sizes(self, chats: list[str]) -> dict[str, tuple[int, int]]:
        """(conversations, turns) of each of these chats."""
        out: dict[str, tuple[int, int]] = {}
        for i in range(0, len(chats), 500):
            chunk = chats[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT chat, COUNT(*), COALESCE(SUM(n_turns),0) FROM sessions WHERE chat IN ({marks}) "
                "GROUP BY chat",
                chunk,
            )
            out.update({r[0]: (r[1], r[2]) for r in rows})
        return out

    def session_count(self) -> int:
        """How many sessions the archive holds."""
        return self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]

    def ords_to_sessions(self, ords: list[int]) -> dict[int, SessionRecord]:
        """Catalog rows of several ordinals at once."""
        out: dict[int, SessionRecord] = {}
        for i in range(0, len(ords), 500):
            chunk = ords[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT {_COLS} FROM sessions WHERE ord IN ({marks})",
                chunk,
            )
            for r in rows:
                out[r[1]] = self._session(r)
        return out

    def iter_sessions(self) -> Iterator[SessionRecord]:
        """Every session row, in ordinal order (the vector catch-up compares them with its own)."""
        rows = self.db.execute(f"SELECT {_COLS} FROM sessions ORDER BY ord")
        for r in rows.fetchall():
            yield self._session(r)

    def sid_to_ords(self, sids: list[str]) -> list[int]:
        """Ordinals of the given session ids (unknown ids are ignored)."""
        out: list[int] = []
        for i in range(0, len(sids), 500):
            chunk = sids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            out += [r[0] for r in self.db.execute(f"SELECT ord FROM sessions WHERE sid IN ({marks})", chunk)]
        return out

    def source_counts(self) -> dict[str, tuple[int, int]]:
        """source path -> (sessions, turns) indexed from it."""
        rows = self.db.execute(
            "SELECT source, COUNT(*), COALESCE(SUM(n_turns),0) FROM sessions GROUP BY source"
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def totals(self) -> dict:
        """Counts for `refind stats`: sources, sessions, turns and per-format figures."""
        sources = self.db.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        sessions, turns = self.db.execute(
            "SELECT COUNT(*), COALESCE(SUM(n_turns),0) FROM sessions"
        ).fetchone()
        formats: dict[str, dict[str, int]] = {}
        for fmt, n in self.db.execute("SELECT format, COUNT(*) FROM files GROUP BY format"):
            formats.setdefault(fmt, {"files": 0, "sessions": 0, "turns": 0})["files"] = n
        for fmt, s, t in self.db.execute(
            "SELECT format, COUNT(*), COALESCE(SUM(n_turns),0) FROM sessions GROUP BY format"
        ):
            entry = formats.setdefault(fmt, {"files": 0, "sessions": 0, "turns": 0})
            entry["sessions"], entry["turns"] = s, t
        return {"sources": sources, "sessions": sessions, "turns": turns, "formats": formats}
