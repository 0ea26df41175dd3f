"""OpenAI Codex CLI rollout parser (`~/.codex/sessions/**/rollout-*.jsonl`), wrapped and bare eras."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Session
from .base import (
    Message,
    ParseContext,
    finish_session,
    jsonl_objects,
    pair_turns,
    parse_timestamp,
    stable_id,
)

# Harness-injected context that is recorded as "user" messages in the response_item stream.
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<multi_agent_mode>",
    "<apps_instructions>",
    "# AGENTS.md",
    "<user_shell_command>",
    "<turn_aborted>",
)
_MULTI_AGENT_ROOT = re.compile(r"^You are `/root`")
_MY_REQUEST = "## My request for Codex:"
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.IGNORECASE)
_TITLE_CHARS = 80

# The three recordings of the visible conversation, best first (see chat-formats.md §5).
_ITEMS, _EVENTS, _RESPONSES = "item_completed", "event_msg", "response_item"


@dataclass
class _Rollout:
    """What one rollout file says about its session."""

    session_id: str = ""
    started_at: datetime | None = None
    thread_name: str = ""
    forked_from: str = ""
    streams: dict[str, list[Message]] = field(
        default_factory=lambda: {_ITEMS: [], _EVENTS: [], _RESPONSES: []}
    )
    # (stream, role, timestamp + text) of messages already taken, to drop replayed lines
    seen: set[tuple[str, str, str]] = field(default_factory=set)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one session of a Codex rollout file (both the wrapped and the bare layout)."""
    r = _Rollout()
    for lineno, obj in jsonl_objects(path, ctx, "a Codex rollout?"):
        if "payload" in obj and isinstance(obj.get("type"), str):
            _wrapped_line(obj, r, path, lineno, ctx)
        else:
            _bare_line(obj, r)
    # the best recording that holds a user prompt (else any that holds something)
    ordered = [r.streams[k] for k in (_ITEMS, _EVENTS, _RESPONSES)]
    messages = next((s for s in ordered if any(m.role == "user" for m in s)), None) or next(
        (s for s in ordered if s), []
    )
    if not r.session_id:
        m = _UUID.search(path.name)
        r.session_id = m.group(1) if m else stable_id(path.name)
    session_id = f"codex:{r.session_id}"
    title = _index_title(path, r.session_id) or r.thread_name
    if not title:
        title = next((_first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=session_id,
            title=title,
            started_at=r.started_at,
            participants=["user", "assistant"],
            turns=pair_turns(messages),
            continues=f"codex:{r.forked_from}" if r.forked_from else "",
        )
    )
    if session is not None:
        for t in session.turns:
            t.turn_id = t.turn_id or f"{session_id}:{t.index}"
        yield session


def _wrapped_line(obj: dict[str, Any], r: _Rollout, path: Path, lineno: int, ctx: ParseContext) -> None:
    """A `{"timestamp", "type", "payload"}` line of the current layout."""
    kind, payload = obj["type"], obj["payload"]
    if not isinstance(payload, dict):
        ctx.warn(f"{path}: line {lineno} has a non-object payload; skipped")
        return
    ts = parse_timestamp(obj.get("timestamp"))
    if kind == "session_meta":
        if not r.session_id and isinstance(payload.get("id"), str):
            r.session_id = payload["id"]  # a later session_meta is a forked parent's replay
            r.started_at = parse_timestamp(payload.get("timestamp")) or ts
            if isinstance(payload.get("forked_from_id"), str):
                r.forked_from = payload["forked_from_id"]
    elif kind == "response_item":
        _response_item(payload, r, ts)
    elif kind == "event_msg":
        _event(payload, r, ts)


def _bare_line(obj: dict[str, Any], r: _Rollout) -> None:
    """A line of the legacy layout: header `{id, timestamp, instructions}` then bare response items."""
    if "record_type" in obj:
        return
    if obj.get("type") is None and isinstance(obj.get("id"), str) and "timestamp" in obj:
        if not r.session_id:
            r.session_id = obj["id"]
            r.started_at = parse_timestamp(obj.get("timestamp"))
        return
    _response_item(obj, r, parse_timestamp(obj.get("timestamp")))


def _response_item(item: dict[str, Any], r: _Rollout, ts: datetime | None) -> None:
    """A model-API message; reasoning, tool calls and tool outputs are dropped."""
    if item.get("type") != "message" or item.get("role") not in ("user", "assistant"):
        return  # developer/system messages are instructions, not chat
    if item["role"] == "assistant" and item.get("phase") == "commentary":
        return
    text = "\n\n".join(_texts(item.get("content")))
    if item["role"] == "user":
        text = _visible_request(text)
    _add(r, _RESPONSES, item["role"], text, ts)


def _event(payload: dict[str, Any], r: _Rollout, ts: datetime | None) -> None:
    kind = payload.get("type")
    if kind == "user_message":
        if payload.get("kind") not in (None, "plain"):
            return  # older CLIs tagged injected context as kind environment_context/user_instructions
        text = payload.get("message")
        if isinstance(text, str):
            _add(r, _EVENTS, "user", _visible_request(text), ts)
    elif kind == "agent_message":
        if payload.get("phase") != "commentary" and isinstance(payload.get("message"), str):
            _add(r, _EVENTS, "assistant", payload["message"], ts)
    elif kind == "task_complete":
        last = payload.get("last_agent_message")
        events = r.streams[_EVENTS]
        if isinstance(last, str) and events and events[-1].role == "user":
            _add(r, _EVENTS, "assistant", last, ts)
    elif kind == "item_completed":
        _turn_item(payload.get("item"), r, ts)
    elif kind == "thread_rolled_back":
        n = payload.get("num_turns")
        if isinstance(n, int) and n > 0:
            for stream in r.streams.values():
                _roll_back(stream, n)
    elif kind == "thread_name_updated":
        name = payload.get("thread_name") or payload.get("name")
        if isinstance(name, str) and name.strip():
            r.thread_name = name.strip()


def _turn_item(item: object, r: _Rollout, ts: datetime | None) -> None:
    """Paginated history mode: `item_completed.item` is a TurnItem (UserMessage / AgentMessage)."""
    if not isinstance(item, dict):
        return
    kind = str(item.get("type", "")).replace("_", "").lower()
    if kind not in ("usermessage", "agentmessage"):
        return
    if kind == "agentmessage" and item.get("phase") == "commentary":
        return
    texts = _texts(item.get("content"))
    if not texts and isinstance(item.get("text"), str):
        texts = [item["text"]]
    text = "\n\n".join(texts)
    _add(
        r,
        _ITEMS,
        "user" if kind == "usermessage" else "assistant",
        _visible_request(text) if kind == "usermessage" else text,
        ts,
    )


def _add(r: _Rollout, stream: str, role: str, text: str, ts: datetime | None) -> None:
    if not text.strip():
        return
    key = (stream, role, f"{ts.isoformat() if ts else ''}\x1f{text}")
    if ts is not None and key in r.seen:
        return  # forked/sub-agent files replay the parent's lines verbatim
    r.seen.add(key)
    r.streams[stream].append(Message(role, text, ts, _message_id(role, text, ts)))


def _message_id(role: str, text: str, ts: datetime | None) -> str:
    """A dated message's id across files: a forked rollout replays its parent's lines verbatim (same
    time, same text), so the turns it replays get the ids they have in the parent's file. Codex
    lines carry no message id of their own in every era; an undated message gets none."""
    if ts is None:
        return ""
    digest = hashlib.blake2b(f"{role}\x1f{ts.isoformat()}\x1f{text}".encode(), digest_size=8).hexdigest()
    return f"codex-msg:{digest}"


def _roll_back(stream: list[Message], n: int) -> None:
    """`thread_rolled_back {num_turns}`: the last n user turns leave the visible history."""
    users = [i for i, m in enumerate(stream) if m.role == "user"]
    if users:
        del stream[users[-min(n, len(users))] :]


def _texts(content: object) -> list[str]:
    """Text of `input_text`/`output_text`/`text` content blocks (images are dropped)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"]
        for b in content
        if isinstance(b, dict)
        and isinstance(b.get("text"), str)
        and str(b.get("type", "text")).lower() in ("input_text", "output_text", "text")
    ]


def _visible_request(text: str) -> str:
    """The human's request: '' for injected context, the part after '## My request for Codex:' if any."""
    stripped = text.lstrip()
    if stripped.startswith(_INJECTED_PREFIXES) or _MULTI_AGENT_ROOT.match(stripped):
        return ""
    if _MY_REQUEST in text:
        return text.split(_MY_REQUEST, 1)[1].strip()
    return text


def _index_title(path: Path, session_id: str) -> str:
    """`thread_name` from `$CODEX_HOME/session_index.jsonl` (newest entry wins), if the file is there."""
    for parent in path.parents:
        if parent.name in ("sessions", "archived_sessions"):
            index = parent.parent / "session_index.jsonl"
            try:
                st = index.stat()
            except OSError:
                return ""
            return _read_index(str(index), st.st_size, st.st_mtime_ns).get(session_id, "")
    return ""


@functools.lru_cache(maxsize=4)
def _read_index(index: str, size: int, mtime_ns: int) -> dict[str, str]:
    """id -> thread_name; cached per (path, size, mtime) since every rollout of a home shares it."""
    names: dict[str, tuple[str, str]] = {}
    try:
        with open(index, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                    continue
                name, updated = row.get("thread_name"), str(row.get("updated_at") or "")
                if isinstance(name, str) and name.strip():
                    old = names.get(row["id"])
                    if old is None or updated >= old[1]:
                        names[row["id"]] = (name.strip(), updated)
    except OSError:
        return {}
    return {k: v[0] for k, v in names.items()}


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"
