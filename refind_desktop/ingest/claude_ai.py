"""Claude.ai data-export parser (`conversations.json`, its `.zip`, wrapper or single-object exports), streamed.

The official export has no active-leaf pointer, so the visible branch ends at the newest leaf
message (`created_at`, then array position); browser-extension exports that carry
`current_leaf_message_uuid` use it. Exports without parent links are put in time order (array
position breaks ties), never paired in raw array order. Thinking and tool_result blocks are
dropped. What Claude wrote as an artifact or file (`tool_use` blocks of the artifact and file
tools) is kept inside its turn between `[artifact <title>]` and `[/artifact]`; the extracted text of an
attachment follows an `[attachment <file name>]` marker (ending `[/attachment]`); each `files[]`
upload (not in the export) leaves a `[file <file name>]` marker.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
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
    """Messages of the visible branch in order (time order for legacy exports without parents)."""
    if not any(m.get("parent_message_uuid") for m in items):
        # no tree: time order (an export's array is not always chronological), array index breaks ties
        keys, last = [], _EPOCH
        for i, m in enumerate(items):  # an untimed message keeps its place after the one before it
            last = parse_timestamp(m.get("created_at")) or last
            keys.append((last, i))
        order = sorted(range(len(items)), key=keys.__getitem__)
        if order != sorted(order):
            ctx.warn(f"{label}: messages are not in time order in the file; read in time order")
        return [items[i] for i in order]
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
            ctx.warn(
                f"{label}: parent message {described.value(parent)} is missing; the branch starts after it"
            )
    chain.reverse()
    return chain


def _message_text(m: dict) -> str:
    """Text and artifact blocks of `content` in order (else the flat `text`), then the attachments."""
    blocks = m.get("content")
    texts: list[str] = []
    has_text = False
    if isinstance(blocks, list):
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip():
                texts.append(b["text"].strip())
                has_text = True
            elif b.get("type") == "tool_use":
                artifact = _artifact(b)
                if artifact:
                    texts.append(artifact)
    if not has_text and isinstance(m.get("text"), str) and m["text"].strip():
        texts.insert(0, m["text"].strip())
    for a in m.get("attachments") or []:
        if isinstance(a, dict):
            content = a.get("extracted_content")
            if isinstance(content, str) and content.strip():
                texts.append(f"{_marker('attachment', a)}\n{content.strip()}\n[/attachment]")
            else:
                texts.append(_marker("attachment", a))
    files = [_marker("file", f) for f in m.get("files") or [] if isinstance(f, dict)]
    if files:
        texts.append(" ".join(files))
    return "\n\n".join(texts)


def _artifact(block: dict) -> str:
    """An artifact or file Claude wrote (`artifacts` create/rewrite/update, `create_file`, `str_replace`)."""
    inp = block.get("input")
    if not isinstance(inp, dict):
        return ""
    body = next(
        (
            inp[k]
            for k in ("content", "file_text", "new_str", "code")
            if isinstance(inp.get(k), str) and inp[k].strip()
        ),
        "",
    )
    if not body:
        return ""
    path = inp.get("path")
    name = (
        inp.get("title")
        or (path.rsplit("/", 1)[-1] if isinstance(path, str) and path else "")
        or inp.get("id")
    )
    kind = ", ".join(str(x) for x in (inp.get("type"), inp.get("language")) if x)
    if inp.get("command") == "update" or "new_str" in inp:
        kind = ", ".join(x for x in (kind, "edit") if x)
    head = f"[artifact {name}" + (f" ({kind})" if kind else "") + "]" if name else "[artifact]"
    return f"{head}\n{body.strip()}\n[/artifact]"


def _marker(kind: str, item: dict) -> str:
    name = item.get("file_name") or item.get("filename") or item.get("file_type") or ""
    return f"[{kind} {name}]" if name else f"[{kind}]"
