"""DiscordChatExporter JSON parser: one channel export file = one chat cut into conversations, streamed.

Chat id `discord:<channel id>`, cut into conversations by `conversations.split_chat` (ids
`discord:<channel id>:<first message time>`), so the files of a partitioned export
(`... [part N].json`) add conversations to the same chat without overwriting each other.
Turn = one message of type Default/Reply (plus slash-command replies); joins, pins, calls and other
system messages are dropped. Speaker = `author.nickname`, else `author.name`. Text = `content`,
then a marker line per attachment (`[attachment fig.jpg]`) and sticker; embeds (title and
description) are added only to messages without `content` (bot posts), since for ordinary messages
they are link previews of a URL already in the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ijson

from ..errors import ParseError
from ..types import Session
from .base import Message, ParseContext, finish_session, multiparty_turns, parse_timestamp
from .conversations import split_chat
from .jsonstream import STREAM_ERRORS, JsonSource, error_reason, file_source, open_json

KEPT_TYPES = {"Default", "Reply", "ChatInputCommand", "ContextMenuCommand"}


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the channel's conversations (nothing when it has no visible message)."""
    src = file_source(path, ctx.limits)
    try:
        guild, channel = _header(src)
    except STREAM_ERRORS as exc:
        raise ParseError(
            f"{path}: not readable as DiscordChatExporter JSON ({error_reason(exc)}); "
            "export the channel again in JSON format"
        ) from exc
    if not isinstance(channel, dict) or not channel.get("id"):
        raise ParseError(
            f"{path}: no 'channel' object with an id; is this a DiscordChatExporter JSON export?"
        )
    messages: list[Message] = []
    read = 0
    try:
        f, _ = open_json(src)
        with f:
            for m in ijson.items(f, "messages.item", use_float=True):
                read += 1
                msg = _message(m)
                if msg is not None:
                    messages.append(msg)
                elif not isinstance(m, dict):
                    ctx.warn(f"{path}: message #{read} is not an object and was skipped")
    except STREAM_ERRORS as exc:
        if not read:
            raise ParseError(
                f"{path}: no message could be read ({error_reason(exc)}); "
                "the file looks truncated, export the channel again"
            ) from exc
        ctx.mark_incomplete(
            f"{path}: reading stopped after {read} message(s): {error_reason(exc)}; "
            "the file looks truncated, export the channel again to get the rest"
        )
    session_id = f"discord:{channel['id']}"
    guild_name = guild.get("name") if isinstance(guild, dict) else None
    title = " / ".join(str(x) for x in (guild_name, channel.get("name")) if x)
    turns = multiparty_turns(messages)
    session = finish_session(
        Session(
            session_id=session_id,
            title=title,
            turns=turns,
            participants=list(dict.fromkeys(t.speaker for t in turns)),
        )
    )
    if session is not None:
        yield from split_chat(session, ctx.conversations())


def _header(src: JsonSource) -> tuple[Any, Any]:
    """`guild` and `channel`, read from the top of the file (they precede `messages`)."""
    f, first = open_json(src)
    guild = channel = None
    with f:
        if first != b"{":
            raise ijson.JSONError("the top level is not a JSON object")
        for key, value in ijson.kvitems(f, "", use_float=True):
            if key == "guild":
                guild = value
            elif key == "channel":
                channel = value
            if guild is not None and channel is not None:
                break
    return guild, channel


def _message(m: Any) -> Message | None:
    """A kept message as speaker + text, or None (system message, not an object)."""
    kind = m.get("type", "Default") if isinstance(m, dict) else None
    if not isinstance(kind, str) or kind not in KEPT_TYPES:
        return None
    author = m.get("author") if isinstance(m.get("author"), dict) else {}
    speaker = author.get("nickname") or author.get("name") or "Unknown"
    content = m.get("content") if isinstance(m.get("content"), str) else ""
    lines = [content] if content.strip() else _embed_lines(m.get("embeds"))
    markers = [
        f"[attachment {a.get('fileName') or a.get('url') or ''}]".replace(" ]", "]")
        for a in m.get("attachments") or []
        if isinstance(a, dict)
    ]
    markers += [
        f"[sticker {s.get('name') or ''}]".replace(" ]", "]")
        for s in m.get("stickers") or []
        if isinstance(s, dict)
    ]
    if markers:
        lines.append(" ".join(markers))
    return Message(
        role=str(speaker),
        text="\n".join(lines),
        timestamp=parse_timestamp(m.get("timestamp")),
        msg_id=str(m.get("id") or ""),
    )


def _embed_lines(embeds: Any) -> list[str]:
    lines = []
    for e in embeds or []:
        if isinstance(e, dict):
            body = "\n".join(str(e[k]) for k in ("title", "description") if e.get(k))
            if body:
                lines.append(body)
    return lines
