"""Antigravity reader: `~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript*.jsonl`.

Each line is a step `{step_index, source, type, status, content, created_at, thinking,
tool_calls}`. `USER_INPUT` steps hold the user's text inside `<USER_REQUEST>` tags (with
metadata around it), `PLANNER_RESPONSE` steps the model's reply and the tool calls it declares;
the steps after it (`VIEW_FILE`, `RUN_COMMAND`, `CODE_ACTION`, ...) are those calls' results, in
order. The `logs` folder is the source: its `transcript_full.jsonl` is read where it exists (the
compact `transcript.jsonl` is cut at checkpoints), so the conversation is read once whichever of the
two appears first. The IDE's `~/.gemini/antigravity/brain/` has the same layout. Kept: the user request,
the model's text, tool calls with their results (marked), model errors. Dropped: thinking, system
messages, checkpoints and conversation-history recaps, the metadata around the user request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, text_of, tool_text
from .base import JsonlStats, Message, ParseContext, finish_session, iter_jsonl, pair_turns, parse_timestamp

_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.S)
_METADATA = re.compile(r"<(ADDITIONAL_METADATA|USER_SETTINGS_CHANGE|EPHEMERAL_MESSAGE)>.*?</\1>", re.S)
_TO_USER = {"notify_user", "message_user", "send_message"}
_BODY = {"message", "body", "text", "content"}
_NOT_TURNS = {
    "SYSTEM_MESSAGE",
    "CHECKPOINT",
    "CONVERSATION_HISTORY",
    "KNOWLEDGE_ARTIFACTS",
    "EPHEMERAL_MESSAGE",
}


class _Reply:
    """A model reply being built: its text, and its tool calls waiting for their result steps."""

    def __init__(self, ts, mid: str) -> None:
        self.ts, self.mid = ts, mid
        self.parts: list[str] = []
        self.pending: list[tuple[int, str, str]] = []  # (index in parts, tool name, arguments)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the conversation of an Antigravity `logs` folder (its full transcript, else the compact
    one), or of one transcript file (a copy outside the brain folder)."""
    if path.is_dir():
        full = path / "transcript_full.jsonl"
        path = full if full.is_file() else path / "transcript.jsonl"
        if not path.is_file():
            raise ParseError(f"{path.parent}: an Antigravity logs folder without a transcript; skipped")
    stats = JsonlStats()
    steps = [s for _, s in iter_jsonl(path, ctx, stats) if isinstance(s, dict)]
    if not stats.valid:
        raise ParseError(f"{path}: no JSON lines; not an Antigravity transcript, skipped")
    out: list[Message | _Reply] = []
    reply: _Reply | None = None
    for step in steps:
        kind, ts = step.get("type"), parse_timestamp(step.get("created_at"))
        mid = str(step.get("step_index", ""))
        if kind == "USER_INPUT":
            text = _user_text(step.get("content"))
            if text:
                out.append(Message("user", text, ts, mid))
                reply = None
        elif kind == "PLANNER_RESPONSE":
            reply = _Reply(ts, mid)
            out.append(reply)
            text = text_of(step.get("content")).strip()
            if text:
                reply.parts.append(text)
            for call in step.get("tool_calls") or []:
                if isinstance(call, dict):
                    name, args = (
                        str(call.get("name") or "tool"),
                        _decoded(call.get("args") or call.get("arguments")),
                    )
                    if name in _TO_USER and isinstance(args, dict):  # a message shown to the user
                        reply.parts += [
                            v.strip() for k, v in args.items() if k.lower() in _BODY and isinstance(v, str)
                        ]
                    reply.pending.append((len(reply.parts), name, args_text(args)))
                    reply.parts.append(tool_text(name, args_text(args)))
        elif kind == "ERROR_MESSAGE":
            text = text_of(step.get("content")).strip()
            if text:
                out.append(Message("assistant", f"[error] {first_line(text, 300)}", ts, mid))
        elif isinstance(kind, str) and kind not in _NOT_TURNS and step.get("source", "MODEL") == "MODEL":
            reply = _result(step, kind, reply, out, ts, mid)  # a tool's result (other sources: notices)
    messages = [m if isinstance(m, Message) else _done(m) for m in out]
    conv = next((d.name for d in path.parents if d.parent.name == "brain"), path.parent.name)
    session = finish_session(
        Session(
            session_id=f"antigravity:{conv}",
            title=next((first_line(m.text) for m in messages if m.role == "user"), ""),
            participants=["user", "antigravity"],
            turns=pair_turns([m for m in messages if m.text]),
        )
    )
    if session is not None:
        yield session


def _result(step: dict[str, Any], kind: str, reply: _Reply | None, out: list, ts, mid: str) -> _Reply:
    """A tool's result step: the output of the next call its reply declared (or a call of its own)."""
    if reply is None:
        reply = _Reply(ts, mid)
        out.append(reply)
    output = text_of(step.get("content"))
    if reply.pending:
        at, name, args = reply.pending.pop(0)
        reply.parts[at] = tool_text(name, args, output)
    else:
        reply.parts.append(tool_text(kind.lower(), "", output))
    return reply


def _done(reply: _Reply) -> Message:
    return Message("assistant", "\n\n".join(p for p in reply.parts if p), reply.ts, reply.mid)


def _user_text(content: object) -> str:
    """The request a person typed: inside `<USER_REQUEST>` when present, metadata blocks removed."""
    text = text_of(content)
    m = _REQUEST.search(text)
    if m:
        return m.group(1).strip()
    return _METADATA.sub("", text).strip()


def _decoded(args: object) -> object:
    """Tool arguments; Antigravity encodes each value as JSON of its own (`"\\"path\\""`)."""
    if not isinstance(args, dict):
        return args
    decoded = {}
    for k, v in args.items():
        try:
            decoded[k] = json.loads(v) if isinstance(v, str) else v
        except ValueError:
            decoded[k] = v
    return decoded
