"""Zed agent panel reader: threads in its SQLite `threads/threads.db`, read-only.

Table `threads` (id, summary, updated_at and, since 2025, created_at as RFC 3339 text,
`data_type` 'zstd' or 'json', `data`: the thread as JSON, zstd-compressed when 'zstd').
Current threads (`version` "0.3.0") hold `messages` as `{"User": {content: [{"Text": ...},
{"Mention": {uri, content}}, {"Image": ...}]}}`, `{"Agent": {content: [{"Text": ...},
{"Thinking": ...}, {"RedactedThinking": ...}, {"ToolUse": {id, name, input}}], tool_results:
{id: {tool_name, is_error, content, output}}}}` or `"Resume"`. Older threads (agent 1, no
version or "0.1.0"/"0.2.0") hold `{role, segments: [{type: text/thinking, text}], tool_uses,
tool_results, context}` messages. Messages carry no time of their own: the first turn gets the
thread's creation time and the last its update time. Text makes the turn; a tool use is kept
marked with its result (shortened); thinking, images, mentioned files' contents and a legacy
message's attached `context` are dropped (a mention is kept as its name).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Session
from .agent_db import Remembered, blob_json, columns, read_db
from .agent_text import args_text, first_line, tool_text
from .base import Message, ParseContext, fill_turn_times, finish_session, pair_turns, parse_timestamp


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield every thread of one `threads.db`."""
    yield from read_db(path, "Zed", ("threads",), lambda db: _threads(db, path, ctx))


def _threads(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> list[Session]:
    """Every thread; a thread's data is unpacked again only when its (update time, data size) changed
    since the last read of this file (Zed rewrites a thread's row whole when it saves it)."""
    memo = Remembered(path)
    created = "created_at" if "created_at" in columns(db, "threads") else "updated_at"
    query = f"SELECT id, summary, updated_at, {created} AS created_at, data_type, length(data) AS size FROM threads"
    out = []
    for row in db.execute(query + " ORDER BY created_at, id").fetchall():
        tid, key = str(row["id"]), (row["updated_at"], row["size"])
        kept = memo.get(tid, key)
        if kept is None:
            kept = _decode(db, row, path, ctx)
            memo.put(tid, key, kept)
        title, messages = kept
        session = _session(row, title, messages)
        if session is not None:
            out.append(session)
    memo.save()
    return out


def _decode(
    db: sqlite3.Connection, row: sqlite3.Row, path: Path, ctx: ParseContext
) -> tuple[str, list[Message]]:
    """(title inside the data, messages) of one thread row; no messages when it cannot be read."""
    if row["data_type"] not in ("zstd", "json", None):
        ctx.warn(f"{path}: thread {row['id']} has an unknown data type; skipped")
        return "", []
    data = db.execute("SELECT data FROM threads WHERE id = ?", (row["id"],)).fetchone()
    thread = blob_json(data[0] if data else None, f"{path}: thread {row['id']}", ctx)
    if not isinstance(thread, dict) or not isinstance(thread.get("messages"), list):
        return "", []
    messages: list[Message] = []
    for i, m in enumerate(thread["messages"]):
        role, text = _message(m)
        if role and text:
            messages.append(Message(role, text, None, f"{row['id']}:{i}"))
    title = next(
        (t for t in (thread.get("title"), thread.get("summary")) if isinstance(t, str) and t.strip()), ""
    )
    return title, messages


def _session(row: sqlite3.Row, inner_title: str, messages: list[Message]) -> Session | None:
    start = parse_timestamp(row["created_at"]) or parse_timestamp(row["updated_at"])
    turns = pair_turns(messages)
    if turns:
        turns[-1].timestamp = parse_timestamp(row["updated_at"]) if len(turns) > 1 else start
        turns[0].timestamp = start
        fill_turn_times(turns, start)
    title = row["summary"] if isinstance(row["summary"], str) and row["summary"].strip() else inner_title
    if not title:
        title = next((first_line(m.text) for m in messages if m.role == "user"), "")
    return finish_session(
        Session(
            session_id=f"zed:{row['id']}",
            title=title,
            started_at=start,
            participants=["user", "zed"],
            turns=turns,
        )
    )


def _message(m: object) -> tuple[str, str]:
    """(role, text) of one thread message, current or legacy shape; role "" for anything else."""
    if not isinstance(m, dict):
        return "", ""  # "Resume" markers
    if isinstance(m.get("User"), dict):
        return "user", _join(_user_part(c) for c in _list(m["User"].get("content")))
    if isinstance(m.get("Agent"), dict):
        agent = m["Agent"]
        results = agent.get("tool_results") if isinstance(agent.get("tool_results"), dict) else {}
        return "assistant", _join(_agent_part(c, results) for c in _list(agent.get("content")))
    role = str(m.get("role") or "").lower()
    if role not in ("user", "assistant") or m.get("is_hidden") is True:
        return "", ""  # system prompts, messages the panel did not show
    texts = [
        s["text"]
        for s in _list(m.get("segments"))
        if s.get("type") == "text" and isinstance(s.get("text"), str)
    ]
    if not texts and isinstance(m.get("text"), str):
        texts = [m["text"]]
    results = {str(r.get("tool_use_id")): r for r in _list(m.get("tool_results"))}
    for use in _list(m.get("tool_uses")):
        texts.append(_tool(use, results.get(str(use.get("id")))))
    return role, _join(texts)


def _user_part(c: dict[str, Any]) -> str:
    if isinstance(c.get("Text"), str):
        return c["Text"]
    if isinstance(c.get("Mention"), dict):
        return f"[mention: {_name(c['Mention'].get('uri'))}]"
    return ""  # images


def _agent_part(c: dict[str, Any], results: dict[str, Any]) -> str:
    if isinstance(c.get("Text"), str):
        return c["Text"]
    if isinstance(c.get("ToolUse"), dict):
        use = c["ToolUse"]
        return _tool(use, results.get(str(use.get("id"))))
    return ""  # Thinking, RedactedThinking


def _tool(use: dict[str, Any], result: object) -> str:
    result = result if isinstance(result, dict) else {}
    output = _content(result.get("content"))
    if result.get("is_error") and output:
        output = "[error] " + output
    args = use.get("input") if use.get("input") is not None else use.get("raw_input")
    return tool_text(str(use.get("name") or result.get("tool_name") or "tool"), args_text(args), output)


def _content(value: object) -> str:
    """Tool result content: a string, `{"Text": ...}`, `{"type": "text", "text": ...}` or a list of them."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_content(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("Text", "text"):
            if isinstance(value.get(key), str):
                return value[key]
    return ""


def _name(uri: object) -> str:
    """A mention's shown name: the URI text, else the first path or name inside it."""
    if isinstance(uri, str):
        return uri
    if isinstance(uri, dict):
        for v in uri.values():
            found = _name(v)
            if found:
                return found
    return ""


def _list(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _join(texts: Iterator[str] | list[str]) -> str:
    return "\n\n".join(t.strip() for t in texts if t and t.strip())
