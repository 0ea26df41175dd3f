"""Claude.ai data-export parser (`conversations.json`, its `.zip`, wrapper or single-object exports), streamed.

The official export has no active-leaf pointer, so the visible branch ends at the newest leaf
message (`created_at`, then array position); browser-extension exports that carry
`current_leaf_message_uuid` use it. Thinking, tool_use and tool_result blocks are dropped.
Attachments are not indexed as user text: each contributes a `[attachment <file name>]` marker
(its `extracted_content` is left out) and each `files[]` upload a `[file <file name>]` marker.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..types import Session
from .base import (
    Message,
    ParseContext,
    fill_turn_times,
    finish_session,
    pair_turns,
    parse_timestamp,
    roles_present,
)
from .jsonstream import stream_sessions

ROOT_SENTINEL = "00000000-0000-4000-8000-000000000000"
SENDER_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}
_TITLE_CHARS = 80
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per Claude.ai conversation that has visible messages."""

    def build(conv: Any, source: str) -> Session | None:
        return _conversation(conv, source, ctx)

    yield from stream_sessions(path, ctx, build, what="conversation", wrapper_key="conversations")


def _conversation(conv: Any, source: str, ctx: ParseContext) -> Session | None:
    if not isinstance(conv, dict):
        raise TypeError(f"expected a conversation object, got {type(conv).__name__}")
    uuid = conv.get("uuid")
    if not uuid:
        raise ValueError("conversation has no 'uuid'")
    raw = conv.get("chat_messages")
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise ValueError("'chat_messages' is not a list")
    label = f"{source}: conversation {uuid}"
    items = [m for m in raw if isinstance(m, dict)]
    if len(items) != len(raw):
        ctx.warn(f"{label}: {len(raw) - len(items)} message(s) are not objects and were skipped")
    messages: list[Message] = []
    for m in _active_branch(items, conv.get("current_leaf_message_uuid"), ctx, label):
        role = SENDER_ROLES.get(str(m.get("sender") or "").lower())
        if role is None:
            continue
        text = _message_text(m)
        if text:
            messages.append(
                Message(
                    role=role,
                    text=text,
                    timestamp=parse_timestamp(m.get("created_at")),
                    msg_id=str(m.get("uuid") or ""),
                )
            )
    started = parse_timestamp(conv.get("created_at"))
    turns = pair_turns(messages)
    fill_turn_times(turns, started)
    session = Session(
        session_id=f"claude:{uuid}",
        title=_title(conv, messages),
        started_at=started,
        participants=roles_present(messages),
        turns=turns,
    )
    return finish_session(session)


def _title(conv: dict, messages: list[Message]) -> str:
    """`name`, else the first line of `summary`, else the start of the first user message."""
    name = conv.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    summary = conv.get("summary")
    if isinstance(summary, str) and summary.strip():
        return summary.strip().splitlines()[0]
    first = next((m.text for m in messages if m.role == "user"), "")
    line = first.strip().splitlines()[0] if first.strip() else ""
    return line if len(line) <= _TITLE_CHARS else line[: _TITLE_CHARS - 1].rstrip() + "…"


def _active_branch(items: list[dict], leaf_hint: Any, ctx: ParseContext, label: str) -> list[dict]:
    """Messages of the visible branch in order (array order for legacy exports without parents)."""
    if not any(m.get("parent_message_uuid") for m in items):
        return items
    by_id = {m["uuid"]: m for m in items if isinstance(m.get("uuid"), str)}
    if isinstance(leaf_hint, str) and leaf_hint in by_id:
        leaf = by_id[leaf_hint]
    else:
        parents = {m.get("parent_message_uuid") for m in items}
        leaves = [(i, m) for i, m in enumerate(items) if m.get("uuid") not in parents]
        if not leaves:
            ctx.warn(f"{label}: every message is a parent (cycle); using array order")
            return items
        leaf = max(leaves, key=lambda im: (parse_timestamp(im[1].get("created_at")) or _EPOCH, im[0]))[1]
    chain: list[dict] = []
    seen: set[int] = set()
    cur: dict | None = leaf
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        chain.append(cur)
        parent = cur.get("parent_message_uuid")
        if not parent or parent == ROOT_SENTINEL:
            break
        cur = by_id.get(parent)
        if cur is None:
            ctx.warn(f"{label}: parent message {parent!r} is missing; the branch starts after it")
    chain.reverse()
    return chain


def _message_text(m: dict) -> str:
    """Text blocks of `content` (else the flat `text`), after the attachment/file markers."""
    blocks = m.get("content")
    texts: list[str] = []
    if isinstance(blocks, list):
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str):
                if b["text"].strip():
                    texts.append(b["text"])
    body = "\n\n".join(texts) if texts else (m.get("text") if isinstance(m.get("text"), str) else "")
    body = body.strip()
    markers = [_marker("attachment", a) for a in m.get("attachments") or [] if isinstance(a, dict)]
    markers += [_marker("file", f) for f in m.get("files") or [] if isinstance(f, dict)]
    if not markers:
        return body
    line = " ".join(markers)
    return f"{body}\n{line}" if body else line


def _marker(kind: str, item: dict) -> str:
    name = item.get("file_name") or item.get("filename") or item.get("file_type") or ""
    return f"[{kind} {name}]" if name else f"[{kind}]"
