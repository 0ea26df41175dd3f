"""OpenHands reader: a conversation folder, one JSON file per event.

OpenHands 1.x (CLI, SDK, agent server) keeps `~/.openhands/conversations/<id>/base_state.json`
and `events/event-NNNNN-<uuid>.json` (the app server: `~/.openhands/v1_conversations/<id>/<event
id>.json`, ordered by their times), each event an object with a `kind`: `MessageEvent` (from the
user or the agent, `llm_message.content` parts), `ActionEvent` (a tool call with the agent's
`thought`; `FinishAction.message` is the final answer), `ObservationEvent` (the tool's output),
`SystemPromptEvent`, state and token events. Versions before 1.0 kept the file-store layout
`~/.openhands/sessions/<id>/events/<n>.json` with `{action | observation, source, args, content,
cause}` events and a `metadata.json` holding the title. The folder is the source: a new event
file re-reads it. Kept: user and agent messages, the agent's thoughts before tool calls, the
finish message, tool calls with their output (marked), agent errors. Dropped: the system prompt,
skill text added to user messages, thinking blocks, state changes, condensation summaries.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, text_of, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp

_INDEX = re.compile(r"^(?:event-)?(\d+)")
APP_SERVER_DIR = "v1_conversations"
"""The app server keeps `<file store>/[<user id>/]v1_conversations/<id hex>/<event id>.json`."""
_V0_SILENT = {"system", "recall", "think", "change_agent_state", "null", "condensation", "message"}


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the conversation of one OpenHands conversation folder."""
    if not path.is_dir():
        raise ParseError(f"{path}: an OpenHands conversation is a folder of event files; skipped")
    if (path / "events").is_dir():
        events = _events(path / "events", ctx, indexed=True)
    elif path.parent.name == APP_SERVER_DIR:
        events = _events(path, ctx, indexed=False)
    else:
        raise ParseError(f"{path}: an OpenHands conversation is a folder with an 'events' folder; skipped")
    if any("kind" in e for e in events):
        messages = _messages_v1(events, ctx.tz)
    else:
        messages = _messages_v0(events, ctx.tz)
    title = _title(path) or next((first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"openhands:{path.name}",
            title=title,
            participants=["user", "openhands"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _events(folder: Path, ctx: ParseContext, indexed: bool) -> list[dict[str, Any]]:
    """Event objects in order: by the index in their names (`event-NNNNN-<uuid>.json`, `<n>.json`), or
    by their `timestamp` where files are named by event id (the app server's `<uuid>.json`). An
    unreadable or half-written file is skipped with a warning."""
    names = []
    with os.scandir(folder) as it:
        for entry in it:
            m = _INDEX.match(entry.name)
            if entry.name.endswith(".json") and (m or not indexed) and entry.is_file():
                names.append((int(m.group(1)) if m and indexed else 0, entry.name))
    events = []
    for _, name in sorted(names):
        try:
            event = json.loads((folder / name).read_bytes().decode("utf-8", errors="replace"))
        except ValueError:
            ctx.warn(f"{folder / name}: not valid JSON (still being written?); skipped")
            continue
        if isinstance(event, dict) and (indexed or "kind" in event):
            events.append(event)
    if not indexed:
        events.sort(key=lambda e: str(e.get("timestamp") or ""))  # stable: equal times keep name order
    return events


def _title(folder: Path) -> str:
    for name in ("metadata.json", "base_state.json"):
        try:
            with open(folder / name, encoding="utf-8", errors="replace") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("title"), str) and data["title"].strip():
            return first_line(data["title"])
    return ""


def _messages_v1(events: list[dict[str, Any]], tz: tzinfo) -> list[Message]:
    """1.x events; their times are the writer's local time without a zone, read in `tz`."""
    outputs: dict[str, str] = {}
    for e in events:
        if e.get("kind") == "ObservationEvent":
            obs = e.get("observation") if isinstance(e.get("observation"), dict) else {}
            out = text_of(obs.get("content"))
            if not out and isinstance(obs.get("error"), str):
                out = "[error] " + obs["error"]
            for key in (e.get("tool_call_id"), e.get("action_id")):
                if isinstance(key, str):
                    outputs[key] = out
    messages: list[Message] = []
    for e in events:
        kind, ts, mid = e.get("kind"), parse_timestamp(e.get("timestamp"), tz), str(e.get("id") or "")
        if kind == "MessageEvent":
            llm = e.get("llm_message") if isinstance(e.get("llm_message"), dict) else {}
            text = text_of(llm.get("content")).strip()  # extended_content (skills) is not the message
            role = "user" if e.get("source") == "user" else "assistant"
            if text:
                messages.append(Message(role, text, ts, mid))
        elif kind == "ActionEvent":
            text = _action_v1(e, outputs)
            if text:
                messages.append(Message("assistant", text, ts, mid))
        elif kind == "AgentErrorEvent" and isinstance(e.get("error"), str):
            messages.append(Message("assistant", f"[error] {first_line(e['error'], 300)}", ts, mid))
    return messages


def _action_v1(e: dict[str, Any], outputs: dict[str, str]) -> str:
    """An agent tool call: the thought before it, then the call and its output (or the final answer)."""
    parts = [text_of(e.get("thought")).strip()]
    action = e.get("action") if isinstance(e.get("action"), dict) else {}
    name = str(e.get("tool_name") or action.get("kind") or "tool")
    if action.get("kind") == "FinishAction" or name == "finish":
        parts.append(str(action.get("message") or "").strip())
    elif action.get("kind") != "ThinkAction" and name != "think":
        args = {k: v for k, v in action.items() if k != "kind"}
        if not args and isinstance(e.get("tool_call"), dict):
            args = e["tool_call"].get("arguments")
        detail = e.get("summary") if isinstance(e.get("summary"), str) and not args else args_text(args)
        output = outputs.get(str(e.get("tool_call_id") or ""), outputs.get(str(e.get("id") or ""), ""))
        parts.append(tool_text(name, detail, output))
    return "\n\n".join(p for p in parts if p)


def _messages_v0(events: list[dict[str, Any]], tz: tzinfo) -> list[Message]:
    """Before 1.0: `{id, source, action, args, message}` actions and `{cause, observation, content}`."""
    outputs = {
        e["cause"]: str(e.get("content") or "")
        for e in events
        if "observation" in e and isinstance(e.get("cause"), int)
    }
    messages: list[Message] = []
    for e in events:
        action = e.get("action")
        if not isinstance(action, str):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        ts, mid = parse_timestamp(e.get("timestamp"), tz), str(e.get("id", ""))
        if action == "message":
            text = str(args.get("content") or e.get("message") or "").strip()
            if text:
                messages.append(Message("user" if e.get("source") == "user" else "assistant", text, ts, mid))
        elif action == "finish":
            text = str(args.get("final_thought") or args.get("thought") or e.get("message") or "").strip()
            if text:
                messages.append(Message("assistant", text, ts, mid))
        elif action not in _V0_SILENT and e.get("source") == "agent":
            thought = str(args.get("thought") or "").strip()
            detail = {
                k: v for k, v in args.items() if k not in ("thought", "security_risk", "confirmation_state")
            }
            call = tool_text(action, args_text(detail), outputs.get(e.get("id"), ""))
            messages.append(Message("assistant", "\n\n".join(p for p in (thought, call) if p), ts, mid))
    return messages
