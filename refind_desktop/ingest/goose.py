"""Goose (block) reader: `sessions/sessions.db` (SQLite, current releases) and the older `sessions/*.jsonl`.

The database has table `sessions` (id like `20250301_1`, name or description, session_type,
working_dir, created_at) and table `messages` (session_id, role user / assistant,
`content_json`, `created_timestamp` in epoch seconds, `metadata_json` with `userVisible`).
A JSONL session file starts with a metadata line (`working_dir`, `description`, ...) followed by
one message per line (`role`, `created`, `content`). Content items are typed: `text`,
`toolRequest` (`toolCall.value.name/arguments`), `toolResponse` (`toolResult.value`: content
items, or `{content, isError}`), `thinking`, `redactedThinking`, `image` and notifications.
Text makes the turn; a tool request is kept marked with its response's text (shortened);
thinking, images, notifications, messages hidden from the user and hidden sessions are dropped.
A user message that only carries tool responses belongs to the reply, not to a new turn.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_db import Remembered, blob_json, columns, read_db, session_rows
from .agent_text import args_text, first_line, tool_text
from .base import JsonlStats, Message, ParseContext, finish_session, iter_jsonl, pair_turns, parse_timestamp
from .sqlite_ro import is_sqlite

_Row = tuple[str, Any, Any, str]  # role, content items, time, message id


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield every session of `sessions.db`, or the one session of a legacy `.jsonl` file."""
    if is_sqlite(path):
        yield from read_db(path, "Goose", ("sessions", "messages"), lambda db: _db_sessions(db, path, ctx))
        return
    yield from _jsonl_session(path, ctx)


def _db_sessions(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> list[Session]:
    """Every session; messages are decoded again only for sessions whose (row count, last row id, size
    of the metadata) changed since the last read of this file (goose appends rows, replaces a
    conversation whole, and may hide a message from the user by its metadata)."""
    memo = Remembered(path)
    meta = "total(length(metadata_json))" if "metadata_json" in columns(db, "messages") else "0"
    keys = {
        str(r[0]): tuple(r[1:])
        for r in db.execute(f"SELECT session_id, count(*), max(id), {meta} FROM messages GROUP BY session_id")
    }
    known = {sid: memo.get(sid, key) for sid, key in keys.items()}
    todo = {sid for sid, got in known.items() if got is None}
    for sid, rows in _rows(db, path, ctx, todo).items():
        known[sid] = _messages(rows)
        memo.put(sid, keys[sid], known[sid])
    scols = columns(db, "sessions")
    out = []
    for s in db.execute("SELECT * FROM sessions ORDER BY created_at, id").fetchall():
        if "session_type" in scols and s["session_type"] == "hidden":
            continue
        title = next((s[c] for c in ("name", "description") if c in scols and s[c]), "")
        session = _session(str(s["id"]), title, s["created_at"], known.get(str(s["id"])) or [])
        if session is not None:
            out.append(session)
    memo.save()
    return out


def _rows(db: sqlite3.Connection, path: Path, ctx: ParseContext, todo: set[str]) -> dict[str, list[_Row]]:
    """The visible message rows of the sessions in `todo` (one scan when many, else one query each)."""
    meta = "metadata_json" in columns(db, "messages")
    select = "SELECT id, session_id, role, content_json, created_timestamp" + (
        ", metadata_json" if meta else ""
    )
    rows: dict[str, list[_Row]] = {sid: [] for sid in todo}
    for m in session_rows(db, select + " FROM messages", "session_id, created_timestamp, id", todo):
        where = f"{path}: message {m['id']}"
        if meta and not _visible(blob_json(m["metadata_json"], where, ctx)):
            continue
        content = blob_json(m["content_json"], where, ctx)
        rows[str(m["session_id"])].append((m["role"], content, m["created_timestamp"], str(m["id"])))
    return rows


def _jsonl_session(path: Path, ctx: ParseContext) -> Iterator[Session]:
    stats = JsonlStats()
    title, rows = "", []
    for lineno, obj in iter_jsonl(path, ctx, stats):
        if not isinstance(obj, dict):
            continue
        if "role" not in obj:
            if lineno == 1 and isinstance(obj.get("description"), str):
                title = obj["description"]
            continue
        if _visible(obj.get("metadata")):
            rows.append(
                (obj.get("role"), obj.get("content"), obj.get("created"), str(obj.get("id") or lineno))
            )
    if not stats.valid and not stats.torn:
        raise ParseError(f"{path}: no JSON lines; is this really a Goose session file? skipped")
    session = _session(path.stem, title, None, _messages(rows))
    if session is not None:
        yield session


def _visible(metadata: object) -> bool:
    return not (isinstance(metadata, dict) and metadata.get("userVisible") is False)


def _messages(rows: list[_Row]) -> list[Message]:
    """The user and assistant messages of a session's rows, tool responses shown with their requests."""
    items = [
        (role, [c for c in content if isinstance(c, dict)], ts, mid)
        for role, content, ts, mid in rows
        if isinstance(content, list)
    ]
    results = {
        str(c.get("id")): c for _, content, _, _ in items for c in content if c.get("type") == "toolResponse"
    }
    called: set[str] = set()
    messages: list[Message] = []
    for role, content, ts, mid in items:
        if role not in ("user", "assistant"):
            continue
        texts = [t for t in (_item_text(c, results, called) for c in content) if t]
        if not texts:
            continue
        typed = any(c.get("type") == "text" for c in content)
        side = "user" if role == "user" and typed else "assistant"  # tool responses ride in user messages
        messages.append(Message(side, "\n\n".join(texts), parse_timestamp(ts), mid))
    return messages


def _session(sid: str, title: str, created: object, messages: list[Message]) -> Session | None:
    if not title.strip():
        title = next((first_line(m.text) for m in messages if m.role == "user"), "")
    return finish_session(
        Session(
            session_id=f"goose:{sid}",
            title=title,
            started_at=parse_timestamp(created),
            participants=["user", "goose"],
            turns=pair_turns(messages),
        )
    )


def _item_text(item: dict[str, Any], results: dict[str, dict[str, Any]], called: set[str]) -> str:
    kind = item.get("type")
    if kind == "text":
        return item["text"].strip() if isinstance(item.get("text"), str) else ""
    if kind in ("toolRequest", "frontendToolRequest"):
        cid = str(item.get("id"))
        called.add(cid)
        call = item.get("toolCall") if isinstance(item.get("toolCall"), dict) else {}
        value = call.get("value") if isinstance(call.get("value"), dict) else {}
        name = str(value.get("name") or "tool")
        if call.get("status") == "error":
            return tool_text(name, "", "[error] " + str(call.get("error") or ""))
        return tool_text(name, args_text(value.get("arguments")), _output(results.get(cid)))
    if kind == "toolResponse" and str(item.get("id")) not in called:
        return tool_text("tool", "", _output(item))
    return ""  # thinking, redactedThinking, image, confirmations, notifications, compaction markers


def _output(response: dict[str, Any] | None) -> str:
    """The text items of a tool response (`value` is a list of items, or `{content, isError}`)."""
    result = response.get("toolResult") if isinstance(response, dict) else None
    if not isinstance(result, dict):
        return ""
    if result.get("status") == "error":
        return "[error] " + str(result.get("error") or "")
    value = result.get("value")
    error = isinstance(value, dict) and value.get("isError") is True
    items = value.get("content") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return ""
    texts = [i["text"] for i in items if isinstance(i, dict) and isinstance(i.get("text"), str)]
    text = "\n".join(texts)
    return ("[error] " + text) if error and text else text
