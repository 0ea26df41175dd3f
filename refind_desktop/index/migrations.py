"""One SQLite migration runner for every database of the program (catalog, vector window table).

Migrations are an append-only list of `(name, sql)`; a name is applied once per database. The
runner checks without writing first (readers open a database while a writer holds SQLite's write
lock), then takes SQLite's exclusive lock, re-reads what is applied and runs each missing
migration together with its bookkeeping row in that one transaction, so two processes opening a
new database at the same moment never apply a migration twice nor see a half-built schema.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

Migration = tuple[str, str]
_TABLE = "CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, at REAL)"


def applied(db: sqlite3.Connection) -> set[str]:
    """Names of the migrations already applied (empty for a new database)."""
    exists = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='migrations'").fetchone()
    return {r[0] for r in db.execute("SELECT name FROM migrations")} if exists else set()


def statements(sql: str) -> list[str]:
    """Split a migration script into complete SQL statements (semicolons inside strings are kept)."""
    out: list[str] = []
    buf = ""
    for part in sql.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \t\r\n;"):
                out.append(buf.strip())
            buf = ""
    if buf.strip(" \t\r\n;"):
        out.append(buf.strip())
    return out


def migrate(db: sqlite3.Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply the missing migrations in order, atomically and at most once; returns the names applied."""
    names = [n for n, _ in migrations]
    if len(set(names)) != len(names):
        raise ValueError("migration names must be unique")
    if set(names) <= applied(db):
        return []
    db.commit()
    saved = db.isolation_level
    db.isolation_level = None  # explicit transaction control: DDL and bookkeeping in one BEGIN
    done: list[str] = []
    try:
        db.execute("BEGIN EXCLUSIVE")
        try:
            db.execute(_TABLE)
            have = applied(db)
            for name, sql in migrations:
                if name in have:
                    continue
                for stmt in statements(sql):
                    db.execute(stmt)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))
                done.append(name)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.isolation_level = saved
    return done


def enable_wal(db: sqlite3.Connection, timeout: float = 30.0) -> None:
    """Switch to WAL, retrying while another process opens the same new file (the switch needs an
    exclusive lock and SQLite does not always wait for it)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
