"""Crush (charmbracelet) reader: sessions and messages in its SQLite `crush.db`, read-only.

Crush keeps one database per project (`<project>/.crush/crush.db`, or the global data folder's
`crush.db`). Table `sessions` (id, parent_session_id, title, created_at, updated_at: epoch
seconds) and table `messages` (id, session_id, role user / assistant / tool / system, `parts`,
created_at). `parts` is a JSON list of `{"type": ..., "data": {...}}`: text (`text`; `hidden`
for generated continuations), reasoning (`thinking`), tool_call (`id`, `name`, `input`),
tool_result (`tool_call_id`, `name`, `content`, `is_error`, in role `tool` messages), finish,
image_url and binary. Newer versions store `parts` as a zstd frame of the same JSON.
Text makes the turn; a tool call is kept marked with its result's output (shortened); reasoning,
finish markers, hidden continuations, summary messages and system messages are dropped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Session
from .agent_db import Remembered, blob_json, columns, read_db, session_rows
from .agent_text import args_text, first_line, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield every session of one `crush.db`."""
    yield from read_db(path, "Crush", ("sessions", "messages"), lambda db: _sessions(db, path, ctx))


def _sessions(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> list[Session]:
    """Every session; messages are decoded again only for sessions whose (row count, last update,
    total size of parts) changed since the last read of this file (a reply streams into its row)."""
    memo = Remembered(path)
    keys = {
        str(r[0]): tuple(r[1:])
        for r in db.execute(
            "SELECT session_id, count(*), max(updated_at), total(length(parts)) FROM messages GROUP BY session_id"
        )
    }
    known = {sid: memo.get(sid, key) for sid, key in keys.items()}
    todo = {sid for sid, got in known.items() if got is None}
    for sid, rows in _rows(db, todo).items():
        known[sid] = _messages(rows, path, ctx)
        memo.put(sid, keys[sid], known[sid])
    out = []
    for s in db.execute("SELECT id, title, created_at FROM sessions ORDER BY created_at, id").fetchall():
        session = _session(s, known.get(str(s["id"])) or [])
        if session is not None:
            out.append(session)
    memo.save()
    return out


def _rows(db: sqlite3.Connection, todo: set[str]) -> dict[str, list[sqlite3.Row]]:
    """The message rows of the sessions in `todo` (one scan when many, else one query each)."""
    summary = "is_summary_message" in columns(db, "messages")
    select = "SELECT id, session_id, role, parts, created_at" + (", is_summary_message" if summary else "")
    rows: dict[str, list[sqlite3.Row]] = {sid: [] for sid in todo}
    for m in session_rows(db, select + " FROM messages", "created_at, rowid", todo):
        if not (summary and m["is_summary_message"]):  # a summary written on compaction
            rows[str(m["session_id"])].append(m)
    return rows


def _messages(rows: list[sqlite3.Row], path: Path, ctx: ParseContext) -> list[Message]:
    """The user and assistant messages of a session's rows, tool results shown with their calls."""
    decoded = []
    for m in rows:
        parts = blob_json(m["parts"], f"{path}: message {m['id']}", ctx)
        if isinstance(parts, list):
            decoded.append((m, [p for p in parts if isinstance(p, dict)]))
    results = {
        str(d.get("tool_call_id")): d
        for _, parts in decoded
        for p in parts
        if p.get("type") == "tool_result" and isinstance(d := p.get("data"), dict)
    }
    called: set[str] = set()
    messages: list[Message] = []
    for m, parts in decoded:
        role = m["role"]
        if role not in ("user", "assistant", "tool"):
            continue  # system prompts
        texts = [t for t in (_part_text(p, results, called) for p in parts) if t]
        if texts:
            side = "user" if role == "user" else "assistant"  # tool results belong to the reply
            messages.append(Message(side, "\n\n".join(texts), parse_timestamp(m["created_at"]), str(m["id"])))
    return messages


def _session(s: sqlite3.Row, messages: list[Message]) -> Session | None:
    title = s["title"] if isinstance(s["title"], str) else ""
    if not title.strip():
        title = next((first_line(m.text) for m in messages if m.role == "user"), "")
    return finish_session(
        Session(
            session_id=f"crush:{s['id']}",
            title=title,
            started_at=parse_timestamp(s["created_at"]),
            participants=["user", "crush"],
            turns=pair_turns(messages),
        )
    )


def _part_text(part: dict[str, Any], results: dict[str, dict[str, Any]], called: set[str]) -> str:
    data = part.get("data") if isinstance(part.get("data"), dict) else {}
    kind = part.get("type")
    if kind == "text":
        text = data.get("text")
        return text.strip() if isinstance(text, str) and not data.get("hidden") else ""
    if kind == "tool_call":
        cid = str(data.get("id"))
        called.add(cid)
        return tool_text(
            str(data.get("name") or "tool"), args_text(data.get("input")), _output(results.get(cid))
        )
    if kind == "tool_result":
        if str(data.get("tool_call_id")) in called:
            return ""  # shown with its call
        return tool_text(str(data.get("name") or "tool"), "", _output(data))
    if kind in ("image_url", "binary"):
        name = data.get("Path") or data.get("url") or "image"
        return f"[attached file: {name}]" if isinstance(name, str) and not name.startswith("data:") else ""
    return ""  # reasoning, finish, and kinds added later


def _output(result: dict[str, Any] | None) -> str:
    if not result:
        return ""
    content = result.get("content") if isinstance(result.get("content"), str) else ""
    return ("[error] " + content) if result.get("is_error") and content else content
