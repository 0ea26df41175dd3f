"""Qwen Code reader: `~/.qwen/projects/<cwd>/chats/<session>.jsonl` and the older `~/.qwen/tmp/<hash>/` files.

Current layout (JSONL, one record a line, appended as the chat goes): `{uuid, parentUuid,
sessionId, timestamp, type: user|assistant|tool_result|system, subtype?, message: {role,
parts}, systemPayload?, toolCallResult?, isSidechain?}` with Gemini API parts (`text`,
`thought`, `functionCall`, `functionResponse`). A typed prompt is a `user` record without a
subtype (its `systemPayload.displayText` is what the user typed, before `@file` expansion);
notifications, cron prompts and Goal runtime records are user-typed records with a subtype and
are not the user's words. `system` records carry titles (`custom_title`) and UI state.

Older versions (a Gemini CLI fork) wrote Gemini-style files under `~/.qwen/tmp/<hash>/`:
`chats/session-*.json` (messages of type user/qwen), `checkpoint-<tag>.json` and `logs.json`;
they are read by the Gemini CLI reader with Qwen's own ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Session
from . import gemini_cli
from .agent_text import args_text, first_line, output_text, tool_text
from .base import Message, ParseContext, finish_session, jsonl_objects, pair_turns, parse_timestamp

PREFIX = "qwen-code"
# Files named with `@path` are appended to the prompt after this line (older records keep them in
# the prompt text); the user typed what comes before it.
_REFERENCED = "\n--- Content from referenced files ---"
_TYPED_SUBTYPES = (None, "mid_turn_user_message")


@dataclass
class _State:
    """What one JSONL file has given so far."""

    session_id: str = ""
    started_at: datetime | None = None
    title: str = ""
    messages: list[Message] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one Qwen Code file: a JSONL chat, or a legacy Gemini-style JSON file."""
    if path.name == "logs.json":
        yield from _prompt_log(path, ctx)
        return
    if path.suffix == ".json":
        yield from gemini_cli.read(path, ctx, PREFIX, "qwen", "Qwen Code")
        return
    state = _State()
    for _lineno, rec in jsonl_objects(path, ctx, "a Qwen Code chat? skipped"):
        _record(rec, state)
    title = state.title or next((first_line(m.text) for m in state.messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"{PREFIX}:{state.session_id or path.stem}",
            title=title,
            started_at=state.started_at,
            participants=["user", "qwen"],
            turns=pair_turns(state.messages),
        )
    )
    if session is not None:
        yield session


def _prompt_log(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """The prompt log `tmp/<hash>/logs.json`: only the sessions no JSONL chat holds (with their replies).

    Qwen Code goes on logging prompts there beside its JSONL chats, which are named by session id;
    the log's own sessions get ids of their own (`qwen-code:log:<id>`) so the two never collide.
    """
    qwen = path.parents[2]
    chats = {p.stem for p in qwen.glob("*/*/chats/*.jsonl")}
    for session in gemini_cli.read(path, ctx, f"{PREFIX}:log", "qwen", "Qwen Code"):
        if session.session_id.removeprefix(f"{PREFIX}:log:") not in chats:
            yield session


def _record(rec: dict[str, Any], state: _State) -> None:
    """Add one JSONL record to the session being read."""
    uuid = rec.get("uuid")
    if isinstance(uuid, str) and uuid:
        if uuid in state.seen:
            return  # the same record written twice (a resumed writer)
        state.seen.add(uuid)
    if not state.session_id and isinstance(rec.get("sessionId"), str):
        state.session_id = rec["sessionId"]
    ts = parse_timestamp(rec.get("timestamp"))
    if state.started_at is None:
        state.started_at = ts
    kind, subtype = rec.get("type"), rec.get("subtype")
    if kind == "system":
        payload = rec.get("systemPayload")
        if (
            subtype == "custom_title"
            and isinstance(payload, dict)
            and isinstance(payload.get("customTitle"), str)
        ):
            state.title = payload["customTitle"].strip()
        return  # compression checkpoints, telemetry, slash-command replays, ...
    if rec.get("isSidechain"):
        return  # a sub-agent's own conversation
    msg_id = str(uuid or "")
    parts = _parts(rec)
    if kind == "user":
        if subtype not in _TYPED_SUBTYPES:
            return  # notification, cron, goal runtime, agent launch prompt: not typed by the user
        text = _prompt(rec, parts)
        if text and gemini_cli.is_setup(text):
            return  # the context message sent first in a chat, not typed by the user
        if text:
            state.messages.append(Message("user", text, ts, msg_id))
        elif tools := _responses(rec, parts):  # tool responses in a user record belong to the reply
            state.messages.append(Message("assistant", "\n\n".join(tools), ts, msg_id))
    elif kind == "assistant":
        texts = [p["text"].strip() for p in parts if _is_text(p)]
        calls = [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]
        lines = [t for t in texts if t and not gemini_cli.is_setup(t)]
        lines += [tool_text(str(c.get("name") or "tool"), args_text(c.get("args"))) for c in calls]
        if lines:
            state.messages.append(Message("assistant", "\n\n".join(lines), ts, msg_id))
    elif kind == "tool_result":
        tools = _responses(rec, parts)
        if tools:
            state.messages.append(Message("assistant", "\n\n".join(tools), ts, msg_id))


def _parts(rec: dict[str, Any]) -> list[dict[str, Any]]:
    message = rec.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _is_text(part: dict[str, Any]) -> bool:
    return isinstance(part.get("text"), str) and not part.get("thought")


def _prompt(rec: dict[str, Any], parts: list[dict[str, Any]]) -> str:
    """What the user typed: the record's display text, else its text parts before any file contents."""
    payload = rec.get("systemPayload")
    shown = payload.get("displayText") if isinstance(payload, dict) else None
    if isinstance(shown, str) and shown.strip():
        return shown.strip()
    text = "\n".join(p["text"] for p in parts if _is_text(p))
    return text.split(_REFERENCED, 1)[0].strip()


def _responses(rec: dict[str, Any], parts: list[dict[str, Any]]) -> list[str]:
    """Tool results as marked tool lines: the UI's result text, else the function response's output."""
    result = rec.get("toolCallResult") if isinstance(rec.get("toolCallResult"), dict) else {}
    display = result.get("resultDisplay")
    out = []
    for part in parts:
        fr = part.get("functionResponse")
        if not isinstance(fr, dict):
            continue
        response = fr.get("response")
        if isinstance(display, str) and display.strip():
            output = display
        elif isinstance(response, dict):
            value = response.get("output", response.get("error", response.get("content", "")))
            output = value if isinstance(value, str) else output_text(value)
        else:
            output = output_text(response)
        out.append(tool_text(str(fr.get("name") or "tool"), "", output))
    if not out and isinstance(display, str) and display.strip():
        out.append(tool_text(str(result.get("name") or "tool"), "", display))
    return out
