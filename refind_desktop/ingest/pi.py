"""Pi coding agent reader: `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`.

The first line is a `session` header (`id`, `timestamp`, `cwd`, `version`); the rest are entries.
Version 1 files are a flat list of `message` entries; versions 2 and 3 give each entry an `id`
and a `parentId`, so a session is a tree whose branches (`/tree`, `/fork` in place) are appended
to the same file. Each entry is written once, so the file order is the order a person saw the
turns in, branches after the turns they left: that order is kept, and no turn is repeated.
Kept: user text, assistant text and tool calls with their `toolResult` output (marked), shell
commands the user ran (`bashExecution`), and the `session_info` name as the title. Dropped:
thinking, images, extension messages and state, compaction and branch summaries (they restate
turns that are already there), model and thinking-level changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, text_of, tool_text
from .base import (
    JsonlStats,
    Message,
    ParseContext,
    finish_session,
    iter_jsonl,
    pair_turns,
    parse_timestamp,
    stable_id,
)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one Pi session file."""
    stats = JsonlStats()
    entries = [e for _, e in iter_jsonl(path, ctx, stats) if isinstance(e, dict)]
    if not stats.valid:
        raise ParseError(f"{path}: no JSON lines; not a Pi session file, skipped")
    header = next((e for e in entries if e.get("type") == "session"), {})
    outputs: dict[str, str] = {}
    for e in entries:
        msg = e.get("message")
        if e.get("type") == "message" and isinstance(msg, dict) and msg.get("role") == "toolResult":
            outputs[str(msg.get("toolCallId") or "")] = text_of(msg.get("content")).strip()
    messages: list[Message] = []
    name = ""
    for e in entries:
        if e.get("type") == "session_info" and isinstance(e.get("name"), str):
            name = e["name"].strip()  # the latest /name wins
        elif e.get("type") == "message" and isinstance(e.get("message"), dict):
            m = _message(e, e["message"], outputs)
            if m is not None:
                messages.append(m)
    sid = header.get("id") if isinstance(header.get("id"), str) else stable_id(str(path))
    session = finish_session(
        Session(
            session_id=f"pi:{sid}",
            title=first_line(name)
            if name
            else next((first_line(m.text) for m in messages if m.role == "user"), ""),
            started_at=parse_timestamp(header.get("timestamp")),
            participants=["user", "pi"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _message(entry: dict[str, Any], msg: dict[str, Any], outputs: dict[str, str]) -> Message | None:
    role = msg.get("role")
    ts = parse_timestamp(entry.get("timestamp")) or parse_timestamp(msg.get("timestamp"))
    # a fork copies entries with their ids and times: the pair names the turn across files (replays.py);
    # ids alone are 8 hex digits, too few to be unique across every session of a machine
    mid = f"{entry['id']}@{entry.get('timestamp')}" if entry.get("id") else ""
    if role == "user":
        text = text_of(msg.get("content")).strip()
        return Message("user", text, ts, mid) if text else None
    if role == "assistant":
        parts: list[str] = []
        content = msg.get("content")
        for part in content if isinstance(content, list) else [content]:
            if isinstance(part, str) and part.strip():
                parts.append(part.strip())
            elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                if part["text"].strip():
                    parts.append(part["text"].strip())
            elif isinstance(part, dict) and part.get("type") == "toolCall":
                output = outputs.get(str(part.get("id") or ""), "")
                parts.append(
                    tool_text(str(part.get("name") or "tool"), args_text(part.get("arguments")), output)
                )
        if not parts and msg.get("stopReason") == "error" and isinstance(msg.get("errorMessage"), str):
            parts.append(f"[error] {msg['errorMessage'].strip()}")
        return Message("assistant", "\n\n".join(parts), ts, mid) if parts else None
    if role == "bashExecution" and isinstance(msg.get("command"), str):
        output = msg.get("output") if isinstance(msg.get("output"), str) else ""
        return Message("assistant", tool_text("bash (run by the user)", msg["command"], output), ts, mid)
    return None  # toolResult (attached to its call), custom, branchSummary, compactionSummary, unknown
