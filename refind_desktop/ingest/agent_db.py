"""Helpers for the readers of coding agents that keep their chats in SQLite (Crush, Goose, Zed, Warp).

`read_db(path, what, tables, read)` opens the database read-only (`sqlite_ro.open_readonly`),
checks that the agent's tables are there and runs `read(db)`; any SQLite error becomes a
ParseError naming the file. `blob_json` decodes a JSON column that may be zstd-compressed
(bounded by the parse limits), `columns` lists a table's columns so older layouts without a
newer column are read too. `Remembered` keeps what the last read of a database made of each
session, so a watcher that reads a large database again after one new row decodes only the
sessions whose key (row count, last row id or update time, size) changed.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar

from ..errors import ParseError
from .base import ZSTD_MAGIC, ParseContext
from .sqlite_ro import open_readonly

T = TypeVar("T")

CACHED_DATABASES = 4
"""How many databases' decoded sessions are remembered between reads (the most recently read ones)."""
_MEMORY: OrderedDict[tuple[str, int], dict[str, tuple[object, Any]]] = OrderedDict()
_MEMORY_LOCK = threading.Lock()


class Remembered:
    """The sessions one database read made (key and value per session id), from the last read of the
    same file: `get` a session's value when its key is unchanged, `put` a newly decoded one, `save` at
    the end (sessions not seen in this read are forgotten)."""

    def __init__(self, path: Path) -> None:
        st = os.stat(path)
        self.ident = (os.path.realpath(path), st.st_ino)
        with _MEMORY_LOCK:
            self.old = _MEMORY.get(self.ident, {})
        self.new: dict[str, tuple[object, Any]] = {}

    def get(self, sid: str, key: object) -> Any | None:
        """The value remembered for `sid` under `key`, or None (new or changed since)."""
        hit = self.old.get(sid)
        if hit is None or hit[0] != key:
            return None
        self.new[sid] = hit
        return hit[1]

    def put(self, sid: str, key: object, value: Any) -> None:
        """Remember `value` for `sid` under `key`."""
        self.new[sid] = (key, value)

    def save(self) -> None:
        """Keep this read's sessions for the next read of the same file."""
        with _MEMORY_LOCK:
            _MEMORY[self.ident] = self.new
            _MEMORY.move_to_end(self.ident)
            while len(_MEMORY) > CACHED_DATABASES:
                _MEMORY.popitem(last=False)


def read_db(path: Path, what: str, tables: Iterable[str], read: Callable[[sqlite3.Connection], T]) -> T:
    """`read(db)` on a read-only connection to `path`, in one read transaction (a consistent snapshot,
    which never blocks the agent's writes), once the `tables` of `what` are known to exist."""
    try:
        with closing(open_readonly(path)) as db:
            db.row_factory = sqlite3.Row
            db.execute("BEGIN")  # one read snapshot for every query: rows committed meanwhile wait
            have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            missing = [t for t in tables if t not in have]
            if missing:
                raise ParseError(f"{path}: SQLite database without {what}'s {', '.join(missing)} table(s)")
            return read(db)
    except sqlite3.DatabaseError as e:
        raise ParseError(f"{path}: cannot read this SQLite database ({e}); skipped") from None


def columns(db: sqlite3.Connection, table: str) -> set[str]:
    """The column names of `table` (empty when it does not exist)."""
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


ONE_SCAN = 20
"""Sessions to read above which one scan of the table beats one query per session."""


def session_rows(db: sqlite3.Connection, select: str, order: str, todo: set[str]) -> Iterator[sqlite3.Row]:
    """The rows of `select` (a query on a table with a session_id column) whose session is in `todo`,
    each session's in `order`: one scan when many sessions are to be read, else one query each."""
    if len(todo) > ONE_SCAN:
        cursors = [db.execute(f"{select} ORDER BY {order}")]
    else:
        cursors = [
            db.execute(f"{select} WHERE session_id = ? ORDER BY {order}", (sid,)) for sid in sorted(todo)
        ]
    for cursor in cursors:
        for row in cursor:
            if str(row["session_id"]) in todo:
                yield row


def blob_json(raw: object, where: str, ctx: ParseContext) -> Any:
    """A JSON column value (text, bytes or a zstd frame of JSON); None with a warning when unreadable."""
    if raw is None:
        return None
    if isinstance(raw, bytes | memoryview):
        data = bytes(raw)
        if data[:4] == ZSTD_MAGIC:
            data = _unzstd(data, where, ctx)
            if data is None:
                return None
        raw = data.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw)
    except RecursionError:
        ctx.warn(f"{where} is nested too deeply to read; skipped")
    except ValueError:
        ctx.warn(f"{where} is not valid JSON (still being written?); skipped")
    return None


def _unzstd(data: bytes, where: str, ctx: ParseContext) -> bytes | None:
    """A zstd frame unpacked, at most `max_string_bytes` (the limit on one JSON value)."""
    import zstandard

    limit = ctx.limits.max_string_bytes
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data)) as r:
            out = r.read(limit + 1)
    except zstandard.ZstdError as e:
        ctx.warn(f"{where} is not a readable zstd frame ({e}); skipped")
        return None
    if len(out) > limit:
        ctx.warn(f"{where} unpacks to more than {limit >> 20} MiB (setting max_string_mb); skipped")
        return None
    return out
