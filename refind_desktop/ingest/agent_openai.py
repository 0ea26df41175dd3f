"""OpenAI-style chat rows (`role`, `content`, `tool_calls`, `tool_call_id`) as messages with marked tool use.

Shared by the readers of agents that log the model's message list itself: Kimi CLI's
`context.jsonl` and the legacy Copilot CLI `history-session-state/*.json`. System rows are
dropped; a tool row's output is attached, marked and clipped, to the call that asked for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .agent_text import args_text, text_of, tool_text
from .base import Message

TextFn = Callable[[object], str]


def tool_outputs(rows: Iterable[dict[str, Any]], text: TextFn = text_of) -> dict[str, str]:
    """Tool output by call id, from the `tool` rows."""
    out: dict[str, str] = {}
    for row in rows:
        if row.get("role") == "tool" and isinstance(row.get("tool_call_id"), str):
            out[row["tool_call_id"]] = text(row.get("content")).strip()
    return out


def row_message(row: dict[str, Any], outputs: dict[str, str], text: TextFn = text_of) -> Message | None:
    """The message of one user or assistant row (None for system, tool and empty rows)."""
    role = row.get("role")
    if role == "user":
        body = text(row.get("content")).strip()
        return Message("user", body) if body else None
    if role != "assistant":
        return None
    parts = [text(row.get("content")).strip()]
    for call in row.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else call
        name = str(fn.get("name") or "tool")
        output = outputs.get(str(call.get("id") or ""), "")
        parts.append(tool_text(name, args_text(fn.get("arguments")), output))
    body = "\n\n".join(p for p in parts if p)
    return Message("assistant", body) if body else None
