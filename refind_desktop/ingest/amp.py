"""Amp (Sourcegraph) reader: one JSON file per thread, `~/.local/share/amp/threads/T-<id>.json`.

A thread is `{v, id: "T-…", created (epoch ms), title?, messages: [...], env?, meta?}`; each
message is `{role: user|assistant|info, content: [blocks], meta?: {sentAt}, state?}` with blocks
`text`, `thinking`, `tool_use` and `tool_result` (`{toolUseID, run: {status, result}}`, in user
messages). The VS Code extension kept the same files in `globalStorage/sourcegraph.amp/threads3/`
before threads moved to the shared folder. `info` messages (summaries, manual shell runs) are UI
notes. The whole file is rewritten as the thread grows: the ingest re-reads it and adds the new turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_blocks import block_message
from .agent_text import first_line, load_json
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp, stable_id

PREFIX = "amp"


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the thread of one Amp thread file."""
    data = load_json(path, "an Amp thread")
    if isinstance(data, dict) and not isinstance(data.get("messages"), list):
        inner = data.get("thread")
        data = inner if isinstance(inner, dict) else data
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ParseError(f"{path}: not an Amp thread (no 'messages' list); skipped")
    names: dict[str, str] = {}
    messages: list[Message] = []
    for n, msg in enumerate(data["messages"]):
        if not isinstance(msg, dict):
            ctx.warn(f"{path}: message {n} is not an object; skipped")
            continue
        message = _message(msg, names, n)
        if message is not None:
            messages.append(message)
    tid = data.get("id") if isinstance(data.get("id"), str) and data["id"] else ""
    title = data.get("title").strip() if isinstance(data.get("title"), str) else ""
    title = title or next((first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"{PREFIX}:{tid or path.stem or stable_id(str(path))}",
            title=title,
            started_at=parse_timestamp(data.get("created")),
            participants=["user", "amp"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _message(msg: dict[str, Any], names: dict[str, str], n: int) -> Message | None:
    """One thread message as a Message, or None for UI notes and empty messages."""
    role = msg.get("role")
    meta = msg.get("meta") if isinstance(msg.get("meta"), dict) else {}
    ts = parse_timestamp(meta.get("sentAt") or msg.get("sentAt") or msg.get("timestamp"))
    msg_id = str(msg.get("messageId", n))
    # info messages (summaries, manual shell runs, notices): None
    return block_message(role, msg.get("content"), names, ts, msg_id)
