"""GitHub Copilot CLI reader: `~/.copilot/session-state/<id>/events.jsonl` and the older layouts.

The current CLI writes one folder per session with an event log (`events.jsonl`, lines
`{type, data, id, timestamp, parentId}`) and `workspace.yaml` (its `summary` is the title).
Versions before session folders wrote the same events to `session-state/<id>.jsonl`; the
first releases kept `history-session-state/<id>.json`, one object whose `chatMessages` are
OpenAI-style rows. Kept: `user.message` text (not the `transformedContent` the CLI sends the
model), `assistant.message` text and tool requests with their `tool.execution_complete` output,
marked, and session errors. Dropped: `system.message` (the system prompt), reasoning, streaming
deltas and other ephemeral events, sub-agent events (`agentId`), compaction summaries.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_openai import row_message, tool_outputs
from .agent_text import args_text, first_line, load_json, output_text, tool_text
from .base import JsonlStats, Message, ParseContext, finish_session, iter_jsonl, pair_turns, parse_timestamp

_SUMMARY = re.compile(r"^summary:\s*(.+?)\s*$", re.M)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one Copilot CLI event log or legacy session file."""
    if path.suffix == ".json":
        yield from _legacy(path, ctx)
        return
    stats = JsonlStats()
    events = [e for _, e in iter_jsonl(path, ctx, stats) if isinstance(e, dict)]
    if not stats.valid:
        raise ParseError(f"{path}: no JSON lines; not a Copilot CLI event log, skipped")
    start = next((e.get("data") for e in events if e.get("type") == "session.start"), None)
    start = start if isinstance(start, dict) else {}
    outputs: dict[str, str] = {}
    for e in events:
        data = e.get("data")
        if e.get("type") == "tool.execution_complete" and isinstance(data, dict):
            outputs[str(data.get("toolCallId") or "")] = _result(data)
    messages: list[Message] = []
    for e in events:
        data = e.get("data")
        if (
            e.get("ephemeral")
            or e.get("agentId")
            or (isinstance(data, dict) and data.get("parentToolCallId"))
        ):
            continue  # streaming deltas, and what a sub-agent said inside a tool call
        m = _message(e, outputs)
        if m is not None:
            messages.append(m)
    default = path.parent.name if path.name == "events.jsonl" else path.stem
    sid = start.get("sessionId") if isinstance(start.get("sessionId"), str) else default
    session = finish_session(
        Session(
            session_id=f"copilot-cli:{sid}",
            title=_title(path) or next((first_line(m.text) for m in messages if m.role == "user"), ""),
            started_at=parse_timestamp(start.get("startTime")),
            participants=["user", "copilot"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _message(event: dict[str, Any], outputs: dict[str, str]) -> Message | None:
    kind, data = event.get("type"), event.get("data")
    if not isinstance(data, dict):
        return None
    ts, mid = parse_timestamp(event.get("timestamp")), str(event.get("id") or "")
    if kind == "user.message":
        text = data.get("content") if isinstance(data.get("content"), str) else ""
        files = [_attachment(a) for a in data.get("attachments") or [] if isinstance(a, dict)]
        body = "\n".join([text.strip(), *[f for f in files if f]]).strip()
        return Message("user", body, ts, mid) if body else None
    if kind == "assistant.message":
        parts = [data["content"].strip()] if isinstance(data.get("content"), str) else []
        for call in data.get("toolRequests") or []:
            if isinstance(call, dict):
                output = outputs.get(str(call.get("toolCallId") or ""), "")
                parts.append(
                    tool_text(str(call.get("name") or "tool"), args_text(call.get("arguments")), output)
                )
        body = "\n\n".join(p for p in parts if p)
        return Message("assistant", body, ts, mid) if body else None
    if kind == "session.error" and isinstance(data.get("message"), str):
        return Message("assistant", f"[error] {data['message'].strip()}", ts, mid)
    return None  # session.*, system.message, assistant.reasoning/turn_*, tool.*, abort, unknown


def _result(data: dict[str, Any]) -> str:
    """The text a tool returned (or its error) in a `tool.execution_complete` event."""
    result = data.get("result")
    if isinstance(result, dict) and isinstance(result.get("content"), str):
        return result["content"]
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return "[error] " + error["message"]
    return output_text(result) if result is not None else ""


def _attachment(item: dict[str, Any]) -> str:
    name = item.get("displayName") or item.get("path")
    return f"[attached: {name}]" if isinstance(name, str) and name else ""


def _title(path: Path) -> str:
    """The session summary of `workspace.yaml` beside an events.jsonl ('' without one)."""
    if path.name != "events.jsonl":
        return ""
    try:
        text = (path.parent / "workspace.yaml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    m = _SUMMARY.search(text)
    if m is None:
        return ""
    value = m.group(1).strip()
    if value[:1] in ("|", ">"):  # a YAML block: the summary is on the indented lines after it
        value = text[m.end() :].lstrip("\n").split("\n", 1)[0]
    return first_line(value.strip().strip("'\""))


def _legacy(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """`history-session-state/<id>.json`: `{sessionId, startTime, chatMessages: [OpenAI rows]}`."""
    data = load_json(path, "a Copilot CLI session")
    rows = data.get("chatMessages") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise ParseError(f"{path}: a Copilot CLI session file has a 'chatMessages' list; skipped")
    rows = [r for r in rows if isinstance(r, dict)]
    outputs = tool_outputs(rows)
    messages = [m for m in (row_message(r, outputs) for r in rows) if m is not None]
    sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else path.stem
    start = parse_timestamp(data.get("startTime"))
    for m in messages:
        m.timestamp = start  # the rows carry no times of their own
    session = finish_session(
        Session(
            session_id=f"copilot-cli:{sid}",
            title=next((first_line(m.text) for m in messages if m.role == "user"), ""),
            started_at=start,
            participants=["user", "copilot"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session
