"""Open WebUI chat-export parser (`chat-export-<ms>.json`: an array of chats, or one bare chat), streamed.

The visible branch is walked from `chat.history.currentId` up `parentId` (falling back to the
linearized `chat.messages`). Reasoning and tool-call `<details>` blocks and `<think>` blocks that
Open WebUI stores inside `content` are hidden in its UI and are stripped here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Session
from . import described
from .base import (
    Message,
    ParseContext,
    fill_turn_times,
    finish_session,
    pair_turns,
    parse_timestamp,
    roles_present,
    stable_id,
)
from .jsonstream import stream_sessions

_ANY_JSON = re.compile(r".*\.json$", re.IGNORECASE)
_HIDDEN_BLOCKS = re.compile(
    r"<details\b[^>]*\btype=\"(?:reasoning|tool_calls|code_interpreter)\"[^>]*>.*?</details>"
    r"|<think>.*?</think>",
    re.DOTALL | re.IGNORECASE,
)
ROLES = {"user", "assistant"}


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per exported Open WebUI chat with visible messages."""

    def build(record: Any, source: str) -> Session | None:
        return _chat(record, source, ctx)

    yield from stream_sessions(path, ctx, build, what="chat", member=_ANY_JSON)


def _chat(record: Any, source: str, ctx: ParseContext) -> Session | None:
    if not isinstance(record, dict):
        raise TypeError(f"expected a chat object, got {type(record).__name__}")
    body = record.get("chat") if isinstance(record.get("chat"), dict) else record
    if not isinstance(body.get("history"), dict) and not isinstance(body.get("messages"), list):
        raise ValueError("chat has neither 'history' nor 'messages'")
    title = str(record.get("title") or body.get("title") or "")
    chat_id = record.get("id") or body.get("id")
    started = parse_timestamp(record.get("created_at")) or parse_timestamp(body.get("timestamp"))
    if not chat_id:
        chat_id = stable_id(title, str(started))
    label = f"{source}: chat {chat_id}"
    messages: list[Message] = []
    for m in _active_branch(body, ctx, label):
        role = str(m.get("role") or "").lower()
        content = m.get("content")
        if role not in ROLES or not isinstance(content, str):
            continue
        text = _HIDDEN_BLOCKS.sub("", content).strip()
        names = [f.get("name") for f in m.get("files") or [] if isinstance(f, dict) and f.get("name")]
        if names:
            markers = " ".join(f"[file {n}]" for n in names)
            text = f"{text}\n{markers}" if text else markers
        if text:
            messages.append(
                Message(
                    role=role,
                    text=text,
                    timestamp=parse_timestamp(m.get("timestamp")),
                    msg_id=str(m.get("id") or ""),
                )
            )
    turns = pair_turns(messages)
    fill_turn_times(turns, started)
    session = Session(
        session_id=f"openwebui:{chat_id}",
        title=title,
        started_at=started,
        participants=roles_present(messages),
        turns=turns,
    )
    return finish_session(session)


def _active_branch(body: dict, ctx: ParseContext, label: str) -> list[dict]:
    """Messages from the root to `history.currentId`; the `messages` list when that is unusable."""
    history = body.get("history") if isinstance(body.get("history"), dict) else {}
    nodes = history.get("messages") if isinstance(history.get("messages"), dict) else {}
    current = history.get("currentId")
    linear = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if nodes and current not in nodes:
        if linear:
            ctx.warn(
                f"{label}: history.currentId {described.value(current)} is not a message; using chat.messages"
            )
            return linear
        ctx.warn(
            f"{label}: history.currentId {described.value(current)} is not a message; using the latest leaf"
        )
        current = _latest_leaf(nodes)
    if not nodes:
        return linear
    chain: list[dict] = []
    seen: set[str] = set()
    nid: Any = current
    while isinstance(nid, str) and nid not in seen:
        node = nodes.get(nid)
        if not isinstance(node, dict):
            ctx.warn(
                f"{label}: message {described.value(nid)} is missing from history; the branch starts after it"
            )
            break
        seen.add(nid)
        chain.append(node)
        nid = node.get("parentId")
    chain.reverse()
    return chain


def _latest_leaf(nodes: dict[str, Any]) -> str | None:
    """The childless message with the greatest timestamp (the last one on ties)."""
    parents = {n.get("parentId") for n in nodes.values() if isinstance(n, dict)}
    leaves = [
        (i, nid) for i, (nid, n) in enumerate(nodes.items()) if isinstance(n, dict) and nid not in parents
    ]
    if not leaves:
        return None

    def when(item: tuple[int, str]) -> tuple[float, int]:
        ts = nodes[item[1]].get("timestamp")
        return (float(ts) if isinstance(ts, (int, float)) else 0.0, item[0])

    return max(leaves, key=when)[1]
