"""Claude Code transcript parser (`~/.claude/projects/**/*.jsonl`): real prompts and assistant text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Session
from .base import Message, ParseContext, finish_session, jsonl_objects, pair_turns, parse_timestamp

# User strings that the harness writes for the local output of commands (not typed by the user).
_LOCAL_OUTPUT_PREFIXES = ("<local-command-stdout>", "<local-command-caveat>", "<local-command-stderr>")
# A slash command as recorded: <command-message>…</command-message><command-name>/x</command-name>
# <command-args>…</command-args>; the name and arguments are what the user typed.
_COMMAND_NAME = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>\s*(.*?)\s*</command-args>", re.DOTALL)
# Built-in commands that only change the client (no prompt reaches the model) when given no arguments.
_UI_COMMANDS = {
    "clear", "compact", "model", "config", "help", "cost", "status", "exit", "quit", "login", "logout",
    "resume", "doctor", "memory", "permissions", "vim", "theme", "terminal-setup", "ide", "mcp", "agents",
    "hooks", "context", "usage", "export", "rewind", "statusline", "add-dir", "bashes", "upgrade",
    "release-notes", "privacy-settings", "output-style", "todos", "plugin",
}  # fmt: skip
_SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
# Harness markers written as user text when the user presses Esc (not something the user typed).
_INTERRUPT = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
_TITLE_CHARS = 80


@dataclass
class _SessionState:
    """Everything collected for one `sessionId` while reading the file."""

    session_id: str
    started_at: datetime | None = None
    messages: list[Message] = field(default_factory=list)
    uuids: set[str] = field(default_factory=set)
    # message.id -> (index into messages, texts already merged) for split API responses
    responses: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    custom_title: str = ""
    summary: str = ""


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per `sessionId` found in a Claude Code transcript file."""
    sessions: dict[str, _SessionState] = {}
    summaries: list[tuple[str, str]] = []  # (leafUuid, summary) — summary lines carry no sessionId
    seen_uuids: set[str] = set()
    for _lineno, obj in jsonl_objects(path, ctx, "a Claude Code transcript?"):
        kind = obj.get("type")
        if kind == "summary":
            if isinstance(obj.get("summary"), str):
                summaries.append((str(obj.get("leafUuid") or ""), obj["summary"]))
            continue
        sid = obj.get("sessionId")
        if kind == "custom-title":
            if isinstance(sid, str) and isinstance(obj.get("customTitle"), str):
                _state(sessions, sid).custom_title = obj["customTitle"]
            continue
        if kind not in ("user", "assistant", "system"):
            continue  # progress, file-history-snapshot, queue-operation, agent-name, ...
        state = _state(sessions, sid if isinstance(sid, str) and sid else path.stem)
        if state.started_at is None:
            state.started_at = parse_timestamp(obj.get("timestamp"))
        uuid = obj.get("uuid")
        if isinstance(uuid, str) and uuid:
            if uuid in seen_uuids:
                continue  # duplicate entry (stream-json input, replays)
            seen_uuids.add(uuid)
            state.uuids.add(uuid)
        if kind == "user":
            _add_user(obj, state)
        elif kind == "assistant":
            _add_assistant(obj, state)
    for state in sessions.values():
        title = state.custom_title or _summary_for(state, summaries, single=len(sessions) == 1)
        turns = pair_turns(state.messages)
        if not title:
            title = next((_first_line(m.text) for m in state.messages if m.role == "user"), "")
        session = finish_session(
            Session(
                session_id=f"claude-code:{state.session_id}",
                title=title,
                started_at=state.started_at,
                participants=["user", "assistant"],
                turns=turns,
            )
        )
        if session is not None:
            yield session


def _state(sessions: dict[str, _SessionState], sid: str) -> _SessionState:
    if sid not in sessions:
        sessions[sid] = _SessionState(sid)
    return sessions[sid]


def _skipped(obj: dict[str, Any]) -> bool:
    """Sidechain (sub-agent), meta and auto-generated lines are not part of the visible chat."""
    return any(
        obj.get(flag)
        for flag in (
            "isSidechain",
            "isMeta",
            "isCompactSummary",
            "isVisibleInTranscriptOnly",
            "isApiErrorMessage",
        )
    )


def _add_user(obj: dict[str, Any], state: _SessionState) -> None:
    if _skipped(obj):
        return
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        # text blocks only: tool_result blocks are tool output, image blocks carry base64 data
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return
    texts = []
    for part in parts:
        if part.lstrip().startswith(_LOCAL_OUTPUT_PREFIXES):
            continue
        if "<command-name>" in part or part.lstrip().startswith("<command-message>"):
            command = _command_prompt(part)
            if command:
                texts.append(command)
            continue
        part = _SYSTEM_REMINDER.sub("", part).strip()
        if part and not _INTERRUPT.match(part):
            texts.append(part)
    if texts:
        state.messages.append(
            Message(
                "user", "\n\n".join(texts), parse_timestamp(obj.get("timestamp")), str(obj.get("uuid") or "")
            )
        )


def _command_prompt(text: str) -> str:
    """`/name args` of a recorded slash command; "" for a client-only command without arguments."""
    name_m, args_m = _COMMAND_NAME.search(text), _COMMAND_ARGS.search(text)
    name = name_m.group(1).strip() if name_m else ""
    args = args_m.group(1).strip() if args_m else ""
    if not name:
        return ""
    if not name.startswith("/"):
        name = "/" + name
    if not args and name[1:].lower() in _UI_COMMANDS:
        return ""
    return f"{name} {args}".strip()


def _add_assistant(obj: dict[str, Any], state: _SessionState) -> None:
    if _skipped(obj):
        return
    message = obj.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        # thinking and tool_use blocks are dropped
        texts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return
    texts = [t for t in texts if t.strip()]
    if not texts:
        return
    api_id = message.get("id")
    merged = state.responses.get(api_id) if isinstance(api_id, str) else None
    if merged is not None and merged[0] == len(state.messages) - 1:
        # another content block of the same API response: merge, skipping repeated blocks
        index, done = merged
        new = [t for t in texts if t not in done]
        if new:
            done.extend(new)
            state.messages[index].text = "\n\n".join(done)
        return
    state.messages.append(
        Message(
            "assistant", "\n\n".join(texts), parse_timestamp(obj.get("timestamp")), str(obj.get("uuid") or "")
        )
    )
    if isinstance(api_id, str):
        state.responses[api_id] = (len(state.messages) - 1, list(texts))


def _summary_for(state: _SessionState, summaries: list[tuple[str, str]], single: bool) -> str:
    """The last `summary` line whose leaf is in this session (any summary when the file has one session)."""
    matching = [s for leaf, s in summaries if leaf in state.uuids]
    if matching:
        return matching[-1]
    return summaries[-1][1] if single and summaries else ""


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"
