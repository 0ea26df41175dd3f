"""Databases of the SQLite coding agents (Crush, Goose, Zed, Warp) in their real table layouts, made-up content.

Each `*_db(path, wal=False)` creates the agent's tables and returns an open connection (in WAL
mode with automatic checkpoints off when `wal`, as a running agent leaves it: rows stay in the
`-wal` file until a checkpoint). The `add_*` helpers insert rows the way the agent writes them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import zstandard

__all__ = [
    "add_crush_message",
    "add_goose_message",
    "add_warp_query",
    "add_zed_thread",
    "crush_writer",
    "crush_db",
    "goose_db",
    "warp_db",
    "zed_db",
]

CRUSH_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts BLOB NOT NULL default '[]',
    model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER,
    provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
"""

GOOSE_SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (5);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER, metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
"""

ZED_SCHEMA = """
CREATE TABLE threads (
    id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL,
    data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT
);
"""

WARP_SCHEMA = """
CREATE TABLE ai_queries (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, exchange_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
    start_ts DATETIME NOT NULL, input TEXT NOT NULL, working_directory TEXT, output_status TEXT NOT NULL,
    model_id TEXT NOT NULL DEFAULT '', planning_model_id TEXT NOT NULL DEFAULT '',
    coding_model_id TEXT NOT NULL DEFAULT ''
);
CREATE TABLE agent_conversations (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, conversation_id TEXT NOT NULL UNIQUE,
    conversation_data TEXT NOT NULL, last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE blocks (
    id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, pane_leaf_uuid BLOB, stylized_command BLOB,
    stylized_output BLOB, pwd TEXT, exit_code INTEGER, start_ts DATETIME, completed_ts DATETIME, ai_metadata TEXT
);
CREATE TABLE commands (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, command TEXT NOT NULL);
"""


def _open(path: Path, schema: str, wal: bool) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=0.2)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.executescript(schema)
    db.commit()
    return db


def crush_db(path: Path, wal: bool = False) -> sqlite3.Connection:
    """An empty crush.db."""
    return _open(path, CRUSH_SCHEMA, wal)


def goose_db(path: Path, wal: bool = False) -> sqlite3.Connection:
    """An empty Goose sessions.db (schema version 5)."""
    return _open(path, GOOSE_SCHEMA, wal)


def zed_db(path: Path, wal: bool = False) -> sqlite3.Connection:
    """An empty Zed threads.db."""
    return _open(path, ZED_SCHEMA, wal)


def warp_db(path: Path, wal: bool = False) -> sqlite3.Connection:
    """An empty warp.sqlite with the tables the reader looks at."""
    return _open(path, WARP_SCHEMA, wal)


def add_crush_message(
    db: sqlite3.Connection, sid: str, mid: str, role: str, parts: list[dict], at: int, zstd: bool = False
) -> None:
    """One Crush message row; the session row is created on first use. `zstd` stores parts compressed."""
    db.execute(
        "INSERT OR IGNORE INTO sessions (id, title, updated_at, created_at) VALUES (?, ?, ?, ?)",
        (sid, "", at, at),
    )
    raw = json.dumps(parts).encode()
    blob = zstandard.ZstdCompressor().compress(raw) if zstd else raw.decode()
    db.execute(
        "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?,?,?,?,?,?,?)",
        (mid, sid, role, blob, "claude-sonnet-4", at, at),
    )


def add_goose_message(
    db: sqlite3.Connection, sid: str, role: str, content: list[dict], at: int, metadata: dict | None = None
) -> None:
    """One Goose message row; the session row is created on first use."""
    db.execute(
        "INSERT OR IGNORE INTO sessions (id, name, working_dir, created_at) VALUES (?, '', '/home/u/proj', ?)",
        (sid, "2026-03-01 09:00:00"),
    )
    meta = json.dumps(metadata or {"userVisible": True, "agentVisible": True})
    db.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?,?,?,?,?)",
        (sid, role, json.dumps(content), at, meta),
    )


def add_zed_thread(
    db: sqlite3.Connection,
    tid: str,
    title: str,
    messages: list,
    created: str,
    updated: str,
    zstd: bool = True,
) -> None:
    """One Zed thread (current layout, version 0.3.0), inserted or replaced as Zed saves it."""
    data = json.dumps(
        {"title": title, "messages": messages, "updated_at": updated, "version": "0.3.0"}
    ).encode()
    blob = zstandard.ZstdCompressor(level=3).compress(data) if zstd else data
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data, created_at) VALUES (?,?,?,?,?,?) "
        "ON CONFLICT(id) DO UPDATE SET summary=excluded.summary, updated_at=excluded.updated_at, "
        "data_type=excluded.data_type, data=excluded.data",
        (tid, title, updated, "zstd" if zstd else "json", blob, created),
    )


def add_warp_query(db: sqlite3.Connection, cid: str, eid: str, at: str, text: str | None) -> None:
    """One Warp exchange: a typed prompt with its context items, or a follow-up with empty input."""
    entries = []
    if text is not None:
        entries = [
            {
                "Query": {
                    "text": text,
                    "context": [
                        {"Directory": {"pwd": "/home/u/proj", "home_dir": "/home/u"}},
                        {"Git": {"head": "main"}},
                        {"CurrentTime": {"current_time": _pacific(at)}},
                    ],
                    "referenced_attachments": {},
                }
            }
        ]
    db.execute(
        "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory, output_status,"
        " model_id) VALUES (?,?,?,?,?,?,?)",
        (eid, cid, at, json.dumps(entries), "/home/u/proj", '"Completed"', "claude-4-5-sonnet"),
    )


def crush_writer(path: str, exchanges: int, pause: float, out: str) -> None:
    """Crush as it runs, in another process: per exchange, a user row and an assistant row committed, then
    the assistant row updated with its full text (Crush streams a reply into its row). The busy timeout is
    0, so any lock the reader held would fail a write at once; the errors met are written to `out` as JSON."""
    errors: list[str] = []
    db = sqlite3.connect(path, timeout=0)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        for i in range(exchanges):
            sid, at = f"live-{i // 10}", 1772528400 + i
            try:
                question = [{"type": "text", "data": {"text": f"question kiwi{i:04d} about the pond"}}]
                add_crush_message(db, sid, f"u{i}", "user", question, at)
                add_crush_message(
                    db, sid, f"a{i}", "assistant", [{"type": "text", "data": {"text": "Let"}}], at
                )
                db.commit()
                reply = [{"type": "text", "data": {"text": f"Let me answer mango{i:04d} now."}}]
                db.execute("UPDATE messages SET parts = ? WHERE id = ?", (json.dumps(reply), f"a{i}"))
                db.commit()
            except sqlite3.Error as e:
                errors.append(f"{type(e).__name__}: {e}")
                db.rollback()
            time.sleep(pause)
    finally:
        db.close()
        Path(out).write_text(json.dumps(errors), encoding="utf-8")


def _pacific(utc: str) -> str:
    """A naive UTC time as the prompt's clock shows it in California (whole seconds, with its offset)."""
    t = datetime.fromisoformat(utc).replace(tzinfo=timezone.utc, microsecond=0)
    return t.astimezone(timezone(timedelta(hours=-8))).isoformat()
