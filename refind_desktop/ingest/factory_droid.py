"""Factory Droid reader: `~/.factory/sessions/<cwd-slug>/<session>.jsonl` (the `.settings.json` beside it is no chat).

Each line is an event: a `session_start` line (`id`, `title`, `cwd`, ...) then `message` lines
`{type: message, id, parentId?, timestamp, message: {role: user|assistant, content}}` whose
content is a string or Anthropic-style blocks (`text`, `thinking`, `tool_use`, and `tool_result`
inside user messages). Droid adds `<system-reminder>` blocks to user text; they are not the
user's words and are dropped. Other line types (`todo_state`, compaction state, ...) are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Session
from .agent_blocks import block_message
from .agent_text import first_line
from .base import Message, ParseContext, finish_session, jsonl_objects, pair_turns, parse_timestamp

PREFIX = "factory-droid"
_TITLE_KEYS = ("title", "sessionTitle", "name")


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one session of a Droid session file."""
    sid, title = "", ""
    started: datetime | None = None
    messages: list[Message] = []
    names: dict[str, str] = {}
    seen: set[str] = set()
    for _lineno, line in jsonl_objects(path, ctx, "a Factory Droid session? skipped"):
        kind = line.get("type")
        if kind == "session_start":
            sid = sid or str(line.get("id") or line.get("sessionId") or "")
            title = next((line[k].strip() for k in _TITLE_KEYS if isinstance(line.get(k), str)), title)
            started = started or parse_timestamp(line.get("timestamp"))
            continue
        if kind in ("session_title", "title") and isinstance(line.get("title"), str):
            title = line["title"].strip()
            continue
        if kind != "message" or line.get("isSidechain"):
            continue
        line_id = line.get("id")
        if isinstance(line_id, str) and line_id:
            if line_id in seen:
                continue
            seen.add(line_id)
        message = _message(line, names)
        if message is not None:
            messages.append(message)
    title = title or next((first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"{PREFIX}:{sid or path.stem}",
            title=title,
            started_at=started,
            participants=["user", "droid"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _message(line: dict[str, Any], names: dict[str, str]) -> Message | None:
    """One `message` line as a Message, or None when it holds nothing visible."""
    msg = line.get("message")
    if not isinstance(msg, dict):
        return None
    role = msg.get("role")
    ts = parse_timestamp(line.get("timestamp") or msg.get("timestamp"))
    msg_id = str(line.get("id") or "")
    # system and other roles are not chat: None
    return block_message(role, msg.get("content"), names, ts, msg_id)
