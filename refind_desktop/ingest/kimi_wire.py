"""Kimi Code's agent log, `~/.kimi-code/sessions/<work dir>/<session>/agents/main/wire.jsonl`, as messages.

Kimi Code (the successor of the Python Kimi CLI) keeps no context file: each agent of a session
appends typed records `{type, ..., time}` (epoch ms) to its own `wire.jsonl`, after a `metadata`
line. `context.append_message` adds a message to the model's context (`message.role`, `content`
parts, `origin.kind`: `user` for what the person typed), `context.append_loop_event` carries the
reply as it is made (`content.part` text and think parts, `tool.call`, `tool.result`,
`step.begin` / `step.end`), and resuming a long session may fold earlier records into one
`context.snapshot` whose `snapshot.history` lists the messages they held. Request traces
(`llm.request`, `request.header` with the system prompt, tool schemas), usage and state records
are not chat and are skipped. The session's `state.json` holds its title.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .agent_text import args_text, first_line, tool_text
from .base import Message, ParseContext, iter_jsonl, parse_timestamp

TextFn = Callable[[object], str]


def wire_messages(path: Path, ctx: ParseContext, text: TextFn) -> tuple[list[Message], bool]:
    """The messages of a Kimi Code agent log, and whether any line decoded. `text` reads content parts."""
    records = [r for _, r in iter_jsonl(path, ctx) if isinstance(r, dict)]
    outputs = _outputs(records, text)
    typed = any(_is_typed(r) for r in records)
    out: list[Message] = []
    reply: Message | None = None
    for r in records:
        kind, ts = r.get("type"), parse_timestamp(r.get("time"))
        if kind == "context.snapshot":
            snap = r.get("snapshot") if isinstance(r.get("snapshot"), dict) else {}
            for m in snap.get("history") or []:
                msg = _message(m, outputs, text, ts) if isinstance(m, dict) else None
                if msg is not None:
                    out.append(msg)
            reply = None
        elif kind == "context.append_message" and isinstance(r.get("message"), dict):
            msg = _message(r["message"], outputs, text, ts)
            if msg is not None:
                out.append(msg)
                reply = msg if msg.role == "assistant" else None
        elif kind in ("turn.prompt", "prompt.accepted") and not typed:
            body = text(r.get("input") if "input" in r else r.get("content")).strip()
            if body:
                out.append(Message("user", body, ts))
                reply = None
        elif kind == "context.append_loop_event" and isinstance(r.get("event"), dict):
            part = _loop_part(r["event"], outputs, text)
            if part:
                if reply is None:
                    reply = Message("assistant", "", ts)
                    out.append(reply)
                reply.text = f"{reply.text}\n\n{part}" if reply.text else part
    return [m for m in out if m.text], bool(records)


def title(path: Path) -> str:
    """The session title in `state.json`, two folders above `agents/main/wire.jsonl` ('' without one)."""
    try:
        with open(path.parents[2] / "state.json", encoding="utf-8", errors="replace") as f:
            state = json.load(f)
    except (OSError, ValueError, IndexError):
        return ""
    value = state.get("title") if isinstance(state, dict) else None
    return first_line(value) if isinstance(value, str) else ""


def _is_typed(record: dict[str, Any]) -> bool:
    """A user message added to the context (then the turn prompts are not read a second time)."""
    msg = record.get("message")
    return (
        record.get("type") == "context.append_message" and isinstance(msg, dict) and msg.get("role") == "user"
    )


def _outputs(records: list[dict[str, Any]], text: TextFn) -> dict[str, str]:
    """Tool output by call id, from loop `tool.result` events and `tool` messages."""
    out: dict[str, str] = {}
    for r in records:
        event, msg = r.get("event"), r.get("message")
        if isinstance(event, dict) and event.get("type") == "tool.result":
            result = event.get("result")
            value = result.get("output") if isinstance(result, dict) else result
            body = value if isinstance(value, str) else text(value) or args_text(value)
            if isinstance(result, dict) and result.get("isError"):
                body = f"[error] {body}"
            out[str(event.get("toolCallId") or "")] = body
        elif isinstance(msg, dict) and msg.get("role") == "tool":
            out.setdefault(
                str(msg.get("toolCallId") or msg.get("tool_call_id") or ""), text(msg.get("content"))
            )
    return out


def _message(msg: dict[str, Any], outputs: dict[str, str], text: TextFn, ts) -> Message | None:
    """A context message: a user message the person typed, or an assistant one with its tool calls."""
    role = msg.get("role")
    origin = msg.get("origin")
    if role == "user":
        if isinstance(origin, dict) and origin.get("kind") not in (None, "user"):
            return None  # text the CLI injected (reminders, skills, compaction summaries)
        body = text(msg.get("content")).strip()
        return Message("user", body, ts) if body else None
    if role != "assistant":
        return None
    parts = [text(msg.get("content")).strip()]
    for call in msg.get("toolCalls") or msg.get("tool_calls") or []:
        if isinstance(call, dict):
            fn = call.get("function") if isinstance(call.get("function"), dict) else call
            output = outputs.get(str(call.get("id") or call.get("toolCallId") or ""), "")
            args = fn.get("arguments", fn.get("args"))
            parts.append(tool_text(str(fn.get("name") or "tool"), args_text(args), output))
    body = "\n\n".join(p for p in parts if p)
    return Message("assistant", body, ts) if body else None


def _loop_part(event: dict[str, Any], outputs: dict[str, str], text: TextFn) -> str:
    """The visible part of one loop event: reply text, or a tool call with its output."""
    kind = event.get("type")
    if kind == "content.part" and isinstance(event.get("part"), dict):
        part = event["part"]
        return (
            part["text"].strip() if part.get("type") == "text" and isinstance(part.get("text"), str) else ""
        )
    if kind == "tool.call":
        output = outputs.get(str(event.get("toolCallId") or ""), "")
        return tool_text(str(event.get("name") or "tool"), args_text(event.get("args")), output)
    return ""  # step.begin / step.end, think parts, tool.result (attached to its call)
