"""Helpers for the readers of coding agents that keep their chats in SQLite (Crush, Goose, Zed, Warp).

`read_db(path, what, tables, read)` opens the database read-only (`sqlite_ro.open_readonly`),
checks that the agent's tables are there and runs `read(db)`; any SQLite error becomes a
ParseError naming the file. `blob_json` decodes a JSON column that may be zstd-compressed
(bounded by the parse limits), `columns` lists a table's columns so older layouts without a
newer column are read too.
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar

from ..errors import ParseError
from .base import ZSTD_MAGIC, ParseContext
from .sqlite_ro import open_readonly

T = TypeVar("T")


def read_db(path: Path, what: str, tables: Iterable[str], read: Callable[[sqlite3.Connection], T]) -> T:
    """`read(db)` on a read-only connection to `path`, once the `tables` of `what` are known to exist."""
    try:
        with closing(open_readonly(path)) as db:
            db.row_factory = sqlite3.Row
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
