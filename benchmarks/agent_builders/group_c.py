"""Crush, Goose, Zed and Warp databases (their SQLite layouts) of synthetic sessions, for agent_readers_bench.py."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import zstandard

T0 = 1772528400  # 2026-03-03 09:00 UTC

CRUSH = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
    parts BLOB NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE INDEX idx_messages_session_id ON messages (session_id);
"""
GOOSE = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}');
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER, metadata_json TEXT);
CREATE INDEX idx_messages_session ON messages(session_id);
"""
ZED = """
CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL,
    data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT);
"""
WARP = """
CREATE TABLE ai_queries (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, exchange_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL, start_ts DATETIME NOT NULL, input TEXT NOT NULL, working_directory TEXT,
    output_status TEXT NOT NULL, model_id TEXT NOT NULL DEFAULT '');
CREATE TABLE blocks (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, stylized_command BLOB, stylized_output BLOB,
    pwd TEXT, exit_code INTEGER, start_ts DATETIME, completed_ts DATETIME, ai_metadata TEXT);
"""


def _db(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript(schema)
    return db


def build_crush(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """One project's `.crush/crush.db`: a user row and an assistant row (text, then finish) per exchange."""
    path = folder / "proj" / ".crush" / "crush.db"
    db = _db(path, CRUSH)
    for s in range(sessions):
        at = T0 + s * 3600
        db.execute(
            "INSERT INTO sessions VALUES (?, NULL, ?, 0, 0, 0, 0, ?, ?)", (f"s{s}", f"Session {s}", at, at)
        )
        for e in range(exchanges):
            t = at + e * 60
            user = [
                {"type": "text", "data": {"text": text()}},
                {"type": "finish", "data": {"reason": "stop", "time": t}},
            ]
            reply = [
                {"type": "text", "data": {"text": text()}},
                {"type": "finish", "data": {"reason": "end_turn", "time": t + 5}},
            ]
            for mid, role, parts, when in (
                (f"s{s}u{e}", "user", user, t),
                (f"s{s}a{e}", "assistant", reply, t + 5),
            ):
                db.execute(
                    "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (mid, f"s{s}", role, json.dumps(parts), "claude-sonnet-4", when, when),
                )
    db.commit()
    db.close()
    return path


def build_goose(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """Goose's `sessions/sessions.db`: one user and one assistant message row per exchange."""
    path = folder / "goose" / "sessions" / "sessions.db"
    db = _db(path, GOOSE)
    meta = json.dumps({"userVisible": True, "agentVisible": True})
    for s in range(sessions):
        sid = f"20260303_{s + 1}"
        db.execute(
            "INSERT INTO sessions (id, name, working_dir) VALUES (?, ?, '/home/u/proj')",
            (sid, f"Session {s}"),
        )
        for e in range(exchanges):
            t = T0 + s * 3600 + e * 60
            for role, when in (("user", t), ("assistant", t + 5)):
                content = json.dumps([{"type": "text", "text": text()}])
                db.execute(
                    "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json)"
                    " VALUES (?,?,?,?,?)",
                    (sid, role, content, when, meta),
                )
    db.commit()
    db.close()
    return path


def build_zed(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """Zed's `threads/threads.db`: one zstd-compressed thread (version 0.3.0) per session."""
    path = folder / "zed" / "threads" / "threads.db"
    db = _db(path, ZED)
    packer = zstandard.ZstdCompressor(level=3)
    for s in range(sessions):
        messages: list[dict] = []
        for e in range(exchanges):
            messages.append({"User": {"id": f"u{s}-{e}", "content": [{"Text": text()}]}})
            messages.append({"Agent": {"content": [{"Text": text()}], "tool_results": {}}})
        at = f"2026-03-03T{9 + s // 60 % 12:02d}:{s % 60:02d}:00+00:00"
        data = json.dumps(
            {"title": f"Thread {s}", "messages": messages, "updated_at": at, "version": "0.3.0"}
        )
        db.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, created_at) VALUES (?,?,?,?,?,?)",
            (f"thread-{s}", f"Thread {s}", at, "zstd", packer.compress(data.encode()), at),
        )
    db.commit()
    db.close()
    return path


def build_warp(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """Warp's `warp.sqlite`: a prompt row per exchange and the command the agent ran, with its output."""
    path = folder / "warp-terminal" / "warp.sqlite"
    db = _db(path, WARP)
    for s in range(sessions):
        cid = f"conv-{s:05d}"
        for e in range(exchanges):
            ts = f"2026-03-{3 + s // 24 % 25:02d} {s % 24:02d}:{e % 60:02d}:00.000"
            query = [{"Query": {"text": text(), "context": [{"Directory": {"pwd": "/home/u/proj"}}]}}]
            db.execute(
                "INSERT INTO ai_queries (exchange_id, conversation_id, start_ts, input, working_directory,"
                " output_status, model_id) VALUES (?,?,?,?,?,?,?)",
                (
                    f"{cid}-{e}",
                    cid,
                    ts,
                    json.dumps(query),
                    "/home/u/proj",
                    '"Completed"',
                    "claude-4-5-sonnet",
                ),
            )
            meta = json.dumps({"action_id": f"toolu_{s}_{e}", "conversation_id": cid})
            db.execute(
                "INSERT INTO blocks (stylized_command, stylized_output, pwd, exit_code, start_ts, ai_metadata)"
                " VALUES (?,?,?,?,?,?)",
                (b"grep -rn pattern .", text().encode(), "/home/u/proj", 0, ts[:-4] + ".500", meta),
            )
    db.commit()
    db.close()
    return path


BUILDERS = {"crush": build_crush, "goose": build_goose, "zed": build_zed, "warp": build_warp}
