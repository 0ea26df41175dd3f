"""The window table (SQLite beside the vector shards): window → turns, tombstones, and the ingest hook."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..index.migrations import enable_wal, migrate
from .windows import Window

TABLE_FILE = "windows.sqlite"
MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_initial",
        """
        CREATE TABLE windows(wid INTEGER PRIMARY KEY, sord INTEGER NOT NULL, start INTEGER NOT NULL,
                             n_tokens INTEGER NOT NULL, first_turn INTEGER NOT NULL,
                             last_turn INTEGER NOT NULL, char_start INTEGER NOT NULL,
                             char_end INTEGER NOT NULL, key TEXT NOT NULL, shard INTEGER NOT NULL,
                             row INTEGER NOT NULL, dead INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX windows_sord ON windows(sord, dead);
        CREATE TABLE sessions(sord INTEGER PRIMARY KEY, fp TEXT NOT NULL, hashes TEXT NOT NULL DEFAULT '');
        CREATE TABLE shards(shard INTEGER PRIMARY KEY, rows INTEGER NOT NULL, at REAL);
        CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    ),
]


@dataclass(frozen=True, slots=True)
class WindowRow:
    """A stored window: where its vector lives and which turns of which session it covers."""

    wid: int
    """Window id: the row key of the window table."""
    sord: int
    """Session ordinal (`SessionRecord.ord`)."""
    first_turn: int
    last_turn: int
    shard: int
    row: int


class WindowTable:
    """Window rows, per-session fingerprints of what was embedded, shard list and meta values.

    Every change bumps the `gen` counter, so a reader knows when its loaded vectors are stale.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), timeout=30, check_same_thread=False)
        enable_wal(self.db)
        self.db.execute("PRAGMA synchronous=NORMAL")
        migrate(self.db, MIGRATIONS)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    # -- meta ----------------------------------------------------------------------------------------
    def meta(self, name: str, default: str = "") -> str:
        """A stored meta value (model name, dimension, window size, gen)."""
        row = self.db.execute("SELECT value FROM meta WHERE name=?", (name,)).fetchone()
        return row[0] if row else default

    def set_meta(self, name: str, value: object) -> None:
        """Set a meta value (committed with the next commit)."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, str(value)))

    def gen(self) -> int:
        """Change counter: differs whenever a window was added or tombstoned."""
        return int(self.meta("gen", "0"))

    def _bump(self) -> None:
        self.db.execute(
            "INSERT INTO meta VALUES ('gen', '1') ON CONFLICT(name) DO UPDATE SET "
            "value = CAST(value AS INTEGER) + 1"
        )

    # -- sessions ------------------------------------------------------------------------------------
    def fingerprints(self) -> dict[int, str]:
        """sord → fingerprint of the session content whose windows are all embedded."""
        return dict(self.db.execute("SELECT sord, fp FROM sessions"))

    def set_fingerprint(self, sord: int, fp: str) -> None:
        """Record that every window of this session content is embedded ('' = needs a look)."""
        self.db.execute(
            "INSERT INTO sessions(sord, fp) VALUES (?, ?) ON CONFLICT(sord) DO UPDATE SET fp=excluded.fp",
            (sord, fp),
        )

    def set_content(self, sord: int, hashes: tuple[str, ...]) -> None:
        """The turn hashes of the content the session's live windows were cut from."""
        self.db.execute(
            "INSERT INTO sessions(sord, fp, hashes) VALUES (?, '', ?) ON CONFLICT(sord) DO "
            "UPDATE SET hashes=excluded.hashes",
            (sord, ",".join(hashes)),
        )

    def contents(self, sords: list[int]) -> dict[int, tuple[str, ...]]:
        """sord → turn hashes the live windows were cut from (see `set_content`)."""
        out: dict[int, tuple[str, ...]] = {}
        for i in range(0, len(sords), 500):
            chunk = sords[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for sord, h in self.db.execute(
                f"SELECT sord, hashes FROM sessions WHERE sord IN ({marks})", chunk
            ):
                out[sord] = tuple(h.split(",")) if h else ()
        return out

    # -- windows -------------------------------------------------------------------------------------
    def live_keys(self, sord: int) -> dict[str, int]:
        """Window key → wid of a session's live windows."""
        return {
            k: w for k, w in self.db.execute("SELECT key, wid FROM windows WHERE sord=? AND dead=0", (sord,))
        }

    def add(self, items: Iterable[tuple[int, Window]], shard: int) -> int:
        """Insert windows whose vectors are rows 0..n-1 of `shard` (same order); returns n."""
        rows = [
            (sord, w.start, w.n_tokens, w.first_turn, w.last_turn, w.char_start, w.char_end, w.key, shard, i)
            for i, (sord, w) in enumerate(items)
        ]
        self.db.executemany(
            "INSERT INTO windows(sord, start, n_tokens, first_turn, last_turn, char_start, "
            "char_end, key, shard, row) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        self.db.execute("INSERT OR REPLACE INTO shards VALUES (?, ?, ?)", (shard, len(rows), time.time()))
        self._bump()
        return len(rows)

    def kill(self, wids: Iterable[int]) -> None:
        """Tombstone windows."""
        self.db.executemany("UPDATE windows SET dead=1 WHERE wid=?", [(w,) for w in wids])
        self._bump()

    def kill_session(self, sord: int, from_turn: int = 0) -> int:
        """Tombstone a session's windows that reach `from_turn` or later; returns how many."""
        cur = self.db.execute(
            "UPDATE windows SET dead=1 WHERE sord=? AND dead=0 AND last_turn>=?", (sord, from_turn)
        )
        self._bump()
        return cur.rowcount

    def forget_session(self, sord: int) -> int:
        """Tombstone every window of a session and drop its fingerprint."""
        n = self.kill_session(sord, 0)
        self.db.execute("DELETE FROM sessions WHERE sord=?", (sord,))
        return n

    def live(self) -> Iterator[WindowRow]:
        """Live windows in storage order (shard, row)."""
        for r in self.db.execute(
            "SELECT wid, sord, first_turn, last_turn, shard, row FROM windows "
            "WHERE dead=0 ORDER BY shard, row"
        ):
            yield WindowRow(*r)

    def spans(self, wids: list[int]) -> dict[int, tuple[int, int, int, int, int]]:
        """wid → (sord, first_turn, last_turn, char_start, char_end), to rebuild window texts."""
        out: dict[int, tuple[int, int, int, int, int]] = {}
        for i in range(0, len(wids), 500):
            chunk = wids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for r in self.db.execute(
                "SELECT wid, sord, first_turn, last_turn, char_start, char_end FROM "
                f"windows WHERE wid IN ({marks})",
                chunk,
            ):
                out[r[0]] = tuple(r[1:])  # type: ignore[assignment]
        return out

    def next_shard(self) -> int:
        """A shard number never used before."""
        row = self.db.execute("SELECT MAX(shard) FROM shards").fetchone()
        return (row[0] or 0) + 1

    def shard_numbers(self) -> list[int]:
        """Every shard that has rows in the table."""
        return [r[0] for r in self.db.execute("SELECT shard FROM shards ORDER BY shard")]

    def counts(self) -> dict[str, int]:
        """Live and dead window counts, embedded sessions and shards."""
        live, dead = self.db.execute(
            "SELECT COALESCE(SUM(dead=0),0), COALESCE(SUM(dead=1),0) FROM windows"
        ).fetchone()
        sessions = self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        shards = self.db.execute("SELECT COUNT(*) FROM shards").fetchone()[0]
        return {"live_windows": live, "dead_windows": dead, "sessions": sessions, "shards": shards}

    def commit(self) -> None:
        """Make changes durable and visible to other processes."""
        self.db.commit()


def vectors_folder(index_path: Path) -> Path:
    """Where the vectors of a turn index live: `vectors/` beside the index folder."""
    return index_path.parent / "vectors"


class StaleMarker:
    """The ingest hook: when turns change or vanish, tombstone their windows at once.

    Given to `Ingestor(listeners=...)`. It never embeds (that is `refind embed`); it only makes
    sure no window of changed or forgotten text is returned, and marks the session for re-embedding.
    It does nothing until the vector folder exists (the user never embedded anything).
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / TABLE_FILE
        self._table: WindowTable | None = None
        self._lock = threading.Lock()

    def _open(self) -> WindowTable | None:
        if self._table is None and self.path.exists():
            self._table = WindowTable(self.path)
        return self._table

    def turns_changed(self, sord: int, from_turn: int) -> None:
        """Turns `from_turn`.. of a session were replaced or removed (appends pass the old length)."""
        with self._lock:
            table = self._open()
            if table is None:
                return
            table.kill_session(sord, from_turn)
            table.set_fingerprint(sord, "")
            table.commit()

    def session_removed(self, sord: int) -> None:
        """A session left the index (its source changed or was forgotten)."""
        with self._lock:
            table = self._open()
            if table is None:
                return
            table.forget_session(sord)
            table.commit()

    def close(self) -> None:
        """Close the table if it was opened."""
        if self._table is not None:
            self._table.close()
            self._table = None
