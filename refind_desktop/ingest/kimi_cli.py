"""Kimi CLI reader: `~/.kimi/sessions/<work dir hash>/<session id>/context.jsonl` and its side files.

`context.jsonl` is the model's message list, OpenAI-style lines (`role` user / assistant / tool,
`content` a string or `{type: text|think, ...}` parts, `tool_calls`) mixed with bookkeeping lines
whose role starts with `_` (`_system_prompt`, `_checkpoint`, `_usage`). `/clear`, `/compact` and
undo move the file to `context_<n>.jsonl` and start a new one (empty, the summary plus the last
messages, or the head of the old one): the rotated files are read first, oldest first, and a file's
opening messages that repeat the one before it are kept once. Context lines carry no time: a user
message gets the time of the `TurnBegin` record with the same text in `wire.jsonl` beside it (the
UI's event log, `{timestamp, message: {type, payload}}`); turns without one take the time before
them, and a session without any takes its context file's modification time. Sessions before
session folders (`sessions/<hash>/<id>.jsonl`) are read the same way. Kimi Code, its successor,
keeps no context file: its `~/.kimi-code/sessions/<work dir>/<session>/agents/main/wire.jsonl`
is read by `kimi_wire` (sub-agents' logs are left out). Kept: user and assistant
text, tool calls with their output (marked). Dropped: the system prompt, `<system>` notes the CLI
adds (checkpoint markers, tool status), thinking parts, the compaction summary.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_openai import row_message, tool_outputs
from .agent_paths_a import ROTATED_CONTEXT
from .agent_text import first_line
from .base import JsonlStats, Message, ParseContext, fill_turn_times, finish_session, iter_jsonl, pair_turns
from .kimi_wire import title as wire_title
from .kimi_wire import wire_messages

_COMPACTED = "<system>Previous context has been compacted"
_SYSTEM = re.compile(r"<system>(.*)</system>", re.S)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one Kimi CLI context file (with its rotated predecessors), or of one
    Kimi Code main-agent log (`agents/main/wire.jsonl`, read by `kimi_wire`)."""
    if path.name == "wire.jsonl":
        yield from _agent_log(path, ctx)
        return
    rows: list[dict[str, Any]] = []
    previous: list[dict[str, Any]] = []
    for file in [*_rotated(path), path]:
        stats = JsonlStats()
        current = [r for _, r in iter_jsonl(file, ctx, stats) if _is_message(r)]
        if file == path and not stats.valid and path.stat().st_size:
            raise ParseError(f"{path}: no JSON lines; not a Kimi CLI context file, skipped")
        rows += _new_part(previous, current)
        previous = current
    outputs = tool_outputs(rows, _text)
    messages = [m for m in (row_message(r, outputs, _text) for r in rows) if m is not None]
    _add_times(messages, path)
    sid = path.parent.name if path.name == "context.jsonl" else path.stem
    session = finish_session(
        Session(
            session_id=f"kimi-cli:{sid}",
            title=next((first_line(m.text) for m in messages if m.role == "user"), ""),
            participants=["user", "kimi"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        fill_turn_times(session.turns, session.started_at)
        yield session


def _agent_log(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Kimi Code: `sessions/<work dir>/<session>/agents/main/wire.jsonl` (see `kimi_wire`)."""
    messages, decoded = wire_messages(path, ctx, _text)
    if not decoded and path.stat().st_size:
        raise ParseError(f"{path}: no JSON lines; not a Kimi Code agent log, skipped")
    sid = path.parents[2].name if len(path.parents) > 2 else path.parent.name
    session = finish_session(
        Session(
            session_id=f"kimi-cli:{sid}",
            title=wire_title(path) or next((first_line(m.text) for m in messages if m.role == "user"), ""),
            participants=["user", "kimi"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        fill_turn_times(session.turns, session.started_at)
        yield session


def _rotated(path: Path) -> list[Path]:
    """`context_<n>.jsonl` files beside a session's context.jsonl, oldest (lowest n) first."""
    if path.name != "context.jsonl":
        return []
    found = []
    for p in path.parent.iterdir():
        m = ROTATED_CONTEXT.match(p.name)
        if m and p.is_file():
            found.append((int(m.group(1)), p))
    return [p for _, p in sorted(found)]


def _is_message(row: object) -> bool:
    return isinstance(row, dict) and row.get("role") in ("user", "assistant", "tool")


def _key(row: dict[str, Any]) -> str:
    return json.dumps(
        [row.get("role"), row.get("content"), row.get("tool_calls")], sort_keys=True, default=str
    )


def _new_part(previous: list[dict[str, Any]], current: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of a context file that the file before it does not already hold at its start:
    a compaction summary is dropped, then leading messages the previous file holds are skipped."""
    if (
        current
        and current[0].get("role") == "user"
        and _text(current[0].get("content"), raw=True).startswith(_COMPACTED)
    ):
        current = current[1:]
    held = Counter(_key(r) for r in previous)
    start = 0
    for row in current:
        k = _key(row)
        if not held[k]:
            break
        held[k] -= 1
        start += 1
    return current[start:]


def _text(content: object, raw: bool = False) -> str:
    """Text parts of a message; `<system>...</system>` notes the CLI adds and thinking parts are left
    out, except a failed tool call's `<system>ERROR</system>` and the message after it."""
    parts = content if isinstance(content, list) else [content]
    out: list[str] = []
    for part in parts:
        text = part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None
        if not isinstance(text, str) or (isinstance(part, dict) and part.get("type") not in (None, "text")):
            continue
        note = _SYSTEM.fullmatch(text.strip())
        if raw or note is None:
            out.append(text if raw else text.strip())
        elif note.group(1) == "ERROR":
            out.append("[error]")
        elif out and out[-1] == "[error]":
            out[-1] = f"[error] {note.group(1).strip()}"
    return "".join(out) if raw else "\n".join(t for t in out if t)


def _add_times(messages: list[Message], path: Path) -> None:
    """User messages get the time of the wire log's TurnBegin with the same text, in order."""
    times: dict[str, list[datetime]] = {}
    wire = path.parent / "wire.jsonl" if path.name == "context.jsonl" else None
    if wire is not None and wire.is_file():
        ctx = ParseContext()
        for _, rec in iter_jsonl(wire, ctx):
            msg = rec.get("message") if isinstance(rec, dict) else None
            if not isinstance(msg, dict) or msg.get("type") != "TurnBegin":
                continue
            payload = msg.get("payload") if isinstance(msg.get("payload"), dict) else {}
            ts = rec.get("timestamp")
            if isinstance(ts, int | float) and ts > 0:
                text = _text(payload.get("user_input")).strip()
                times.setdefault(text, []).append(datetime.fromtimestamp(ts, tz=UTC))
    for m in messages:
        if m.role == "user" and times.get(m.text):
            m.timestamp = times[m.text].pop(0)
    if not any(m.timestamp for m in messages) and messages:
        messages[0].timestamp = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
