"""ChatGPT data-export parser (`conversations*.json`, split shards, or the export `.zip`), streamed.

Visible text = the `current_node` branch (walked up `parent`, reversed); only user/assistant
messages that are not hidden, not addressed to a tool, not on the analysis/commentary channel and
of a visible content type (`text`, `multimodal_text`) count. Images become `[image <pointer>]`
markers, audio transcriptions are kept, citation markers are stripped. `metadata.attachments` is not
used (images already appear as parts).
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

# --------------------------------------------------------------------------------------------------
# ChatGPT conversations
# --------------------------------------------------------------------------------------------------

VISIBLE_TYPES = {"text", "multimodal_text"}
HIDDEN_TYPES = {
    "code",
    "execution_output",
    "tether_browsing_display",
    "tether_quote",
    "thoughts",
    "reasoning_recap",
    "user_editable_context",
    "computer_output",
    "super_widget",
    "system_error",
    "model_editable_context",
    "system_message",
    "app_pairing_content",
    "sonic_webpage",
}
HIDDEN_CHANNELS = {"analysis", "commentary"}

# Citation markers: `\ue200cite\ue202turn0search1\ue201` (2025+) and `【4:0†source】` (older).
_CITATIONS = re.compile("[ \t]?(?:\ue200[^\ue200\ue201]*\ue201|【[^【】\n]*†[^【】\n]*】)")


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per ChatGPT conversation with visible messages (the `current_node` branch)."""
    unknown: set[str] = set()

    def build(conv: Any, source: str) -> Session | None:
        return _conversation(conv, source, ctx, unknown)

    yield from stream_sessions(path, ctx, build, what="conversation", wrapper_key="conversations")


def _conversation(conv: Any, source: str, ctx: ParseContext, unknown: set[str]) -> Session | None:
    if not isinstance(conv, dict):
        raise TypeError(f"expected a conversation object, got {type(conv).__name__}")
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ValueError("conversation has no 'mapping' object")
    title = conv.get("title") or ""
    conv_id = conv.get("conversation_id") or conv.get("id")
    if not conv_id:
        conv_id = stable_id(str(title), str(conv.get("create_time")))
    label = f"{source}: conversation {conv_id}"
    messages: list[Message] = []
    for node in _active_path(mapping, conv.get("current_node"), ctx, label):
        msg = _visible_message(node.get("message"), ctx, label, unknown)
        if msg is not None:
            messages.append(msg)
    started = parse_timestamp(conv.get("create_time"))
    turns = pair_turns(messages)
    fill_turn_times(turns, started)
    session = Session(
        session_id=f"chatgpt:{conv_id}",
        title=str(title),
        started_at=started,
        participants=roles_present(messages),
        turns=turns,
    )
    return finish_session(session)


def _active_path(mapping: dict[str, Any], current: Any, ctx: ParseContext, label: str) -> list[dict]:
    """Nodes from the root to `current_node` (the branch the user last saw), in order."""
    if not isinstance(current, str) or current not in mapping:
        if current:
            ctx.warn(
                f"{label}: current_node {described.value(current)} is not in the mapping; using the deepest branch"
            )
        current = _deepest_leaf(mapping)
    chain: list[dict] = []
    seen: set[str] = set()
    nid: Any = current
    while nid is not None:
        node = mapping.get(nid) if isinstance(nid, str) else None
        if not isinstance(node, dict):
            ctx.warn(
                f"{label}: node {described.value(nid)} is missing from the mapping; the branch starts after it"
            )
            break
        if nid in seen:
            ctx.warn(
                f"{label}: the parent links form a cycle at {described.value(nid)}; the branch starts after it"
            )
            break
        seen.add(nid)
        chain.append(node)
        nid = node.get("parent")
    chain.reverse()
    return chain


def _deepest_leaf(mapping: dict[str, Any]) -> str | None:
    """Fallback when `current_node` is missing: the deepest leaf, the latest one on ties."""
    depth: dict[str, int] = {}

    def depth_of(nid: str) -> int:
        trail: list[str] = []
        cur: Any = nid
        while isinstance(cur, str) and cur in mapping and cur not in depth and cur not in trail:
            trail.append(cur)
            node = mapping[cur]
            cur = node.get("parent") if isinstance(node, dict) else None
        base = depth.get(cur, 0) if isinstance(cur, str) else 0
        for i, n in enumerate(reversed(trail)):
            depth[n] = base + i + 1
        return depth.get(nid, 0)

    def created(nid: str) -> float:
        msg = mapping[nid].get("message") if isinstance(mapping[nid], dict) else None
        t = msg.get("create_time") if isinstance(msg, dict) else None
        return float(t) if isinstance(t, (int, float)) else 0.0

    leaves = [
        nid
        for nid, node in mapping.items()
        if isinstance(node, dict) and not any(c in mapping for c in (node.get("children") or []))
    ]
    if not leaves:
        return None
    return max(leaves, key=lambda n: (depth_of(n), created(n)))


def _visible_message(msg: Any, ctx: ParseContext, label: str, unknown: set[str]) -> Message | None:
    """The user/assistant text of a node's message, or None when the message is not shown."""
    if not isinstance(msg, dict):
        return None
    role = (msg.get("author") or {}).get("role")
    if role not in ("user", "assistant"):
        return None  # system boilerplate and tool outputs are not turns
    meta = msg.get("metadata") or {}
    if meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message"):
        return None
    weight = msg.get("weight")
    if isinstance(weight, (int, float)) and weight == 0:
        return None
    if msg.get("recipient") not in (None, "all"):
        return None  # a tool call addressed to python / web.run / ...
    if msg.get("channel") in HIDDEN_CHANNELS:
        return None
    content = msg.get("content") or {}
    ctype = content.get("content_type")
    if ctype in HIDDEN_TYPES:
        return None
    if ctype not in VISIBLE_TYPES:
        if ctype not in unknown:
            unknown.add(str(ctype))
            ctx.warn(
                f"{label}: unknown content_type {ctype!r} (first seen here); "
                "its parts are kept when it has any, otherwise it is skipped"
            )
        if not isinstance(content.get("parts"), list):
            return None
    text = _parts_text(content.get("parts"))
    if "\ue200" in text or "†" in text:
        text = _CITATIONS.sub("", text)
    text = text.strip()
    if not text:
        return None
    return Message(
        role=role,
        text=text,
        timestamp=parse_timestamp(msg.get("create_time")),
        msg_id=str(msg.get("id") or ""),
    )


def _parts_text(parts: Any) -> str:
    """Join `parts`: strings and transcriptions verbatim, images as `[image <pointer>]` markers.

    Text pieces are joined with newlines; a marker is put on the line of the text that follows it
    (as the UI shows the image above the caption).
    """
    if not isinstance(parts, list):
        return ""
    pieces: list[str] = []
    markers: list[str] = []
    for part in parts:
        text = ""
        if isinstance(part, str):
            text = part
        elif isinstance(part, dict):
            kind = part.get("content_type")
            if kind == "image_asset_pointer":
                markers.append(f"[image {part.get('asset_pointer') or ''}]".replace(" ]", "]"))
                continue
            if kind == "audio_transcription" or (
                kind not in _MEDIA_PARTS and isinstance(part.get("text"), str)
            ):
                text = part.get("text") or ""
        if not text.strip():
            continue
        if markers:
            text = " ".join(markers) + " " + text
            markers = []
        pieces.append(text)
    if markers:
        pieces.append(" ".join(markers))
    return "\n".join(pieces)


_MEDIA_PARTS = {
    "audio_asset_pointer",
    "real_time_user_audio_video_asset_pointer",
    "video_container_asset_pointer",
}
