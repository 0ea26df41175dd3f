"""Read-only access to other programs' SQLite databases (Cursor's state.vscdb, OpenCode's opencode.db).

`open_readonly` never writes the database or creates a file beside it. A database without a
write-ahead log is opened `mode=ro&immutable=1` (no locks at all, so a running editor is never
disturbed). A database in WAL mode whose `-wal` and `-shm` files exist (its program is running or
was not closed cleanly) is opened `mode=ro`, so the committed rows still in the log are seen;
a read-only reader only takes the shared read marks every reader takes and cannot checkpoint.
If that fails (a stale log only a writer may recover), the database is read immutable as it is.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")


def log_owner(path: str) -> str | None:
    """The database a changed side file speaks for: `NAME` for `NAME-wal` / `NAME-journal` (a writer
    committed rows there), "" for `NAME-shm` (every reader touches it too: nothing to read), None for
    any other file or a side file without its database."""
    for side in SIDE_FILES:
        if path.endswith(side) and os.path.isfile(path[: -len(side)]):
            return "" if side == "-shm" else path[: -len(side)]
    return None


def is_sqlite(path: Path) -> bool:
    """True when the file starts with the SQLite header."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that can only read `path` (see the module docstring for the two modes)."""
    path = Path(path).resolve()
    if all(Path(f"{path}{s}").exists() for s in ("-wal", "-shm")):
        db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            db.execute("PRAGMA query_only = ON")
            return db
        except sqlite3.DatabaseError:
            db.close()  # e.g. a stale log that only a writer may recover: read the database as it is
    db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro&immutable=1", uri=True)
    db.execute("PRAGMA query_only = ON")
    return db
