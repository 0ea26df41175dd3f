"""Telegram Desktop JSON export parser: a single-chat `result.json` or a full-account export, streamed.

One chat per `telegram:<chat id>`, cut into conversations (`conversations.split_chat`); one turn per `"type": "message"` message, speaker =
`from` (`Deleted Account` when it is null). Service messages (joins, pins, calls, group creation)
are dropped. `text` (a string or a list of strings and entities) is flattened to the visible text;
media add a marker line such as `[photo]`, `[sticker 👍]`, `[voice message]` or `[file notes.pdf]`,
so media-only messages stay searchable. Times come from `date_unixtime`, else the naive `date`
read in `ctx.tz`. A full-account export is streamed one chat at a time (`chats.list`, then
`left_chats.list`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ijson

from ..types import Session
from .base import Message, ParseContext, finish_session, multiparty_turns, parse_timestamp, stable_id
from .conversations import split_chat
from .jsonstream import JsonSource, open_json, stream_sessions

_RESULT = re.compile(r"^result[^/]*\.json$", re.IGNORECASE)
_SINGLE_KEYS = {"messages"}
_ACCOUNT_KEYS = {"chats", "left_chats", "personal_information", "about", "contacts", "frequent_contacts"}
_NOT_INCLUDED = "(File not included"
_UNKNOWN_SPEAKER = "Deleted Account"


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the conversations of every chat with at least one non-empty message, chat by chat."""

    def build(chat: Any, source: str) -> Session | None:
        return _chat(chat, source, ctx)

    rule = ctx.conversations()
    for chat in stream_sessions(path, ctx, build, what="chat", member=_RESULT, records=_chats):
        yield from split_chat(chat, rule)


def _chats(src: JsonSource) -> Iterator[Any]:
    """The chat objects of `src`: the root object itself, or each entry of `chats.list`/`left_chats.list`."""
    kind = _shape(src)
    prefixes = [""] if kind == "single" else ["chats.list.item", "left_chats.list.item"]
    for prefix in prefixes:
        f, _ = open_json(src)
        with f:
            yield from ijson.items(f, prefix, use_float=True)


def _shape(src: JsonSource) -> str:
    """ "single" for a one-chat export, "account" for a full export (reads only up to the first telling key)."""
    f, first = open_json(src)
    with f:
        if first != b"{":
            raise ijson.JSONError("not a Telegram export: the top level is not a JSON object")
        for prefix, event, value in ijson.parse(f, use_float=True):
            if prefix == "" and event == "map_key":
                if value in _SINGLE_KEYS:
                    return "single"
                if value in _ACCOUNT_KEYS:
                    return "account"
    raise ijson.JSONError("not a Telegram export: no 'messages' or 'chats' key at the top level")


def _chat(chat: Any, source: str, ctx: ParseContext) -> Session | None:
    if not isinstance(chat, dict):
        raise TypeError(f"expected a chat object, got {type(chat).__name__}")
    raw = chat.get("messages")
    if not isinstance(raw, list):
        raise ValueError("chat has no 'messages' list")
    name = chat.get("name")
    title = str(name) if name else ("Saved Messages" if chat.get("type") == "saved_messages" else "")
    chat_id = chat.get("id")
    sid = str(chat_id) if chat_id is not None and chat_id != "" else stable_id(title, str(chat.get("type")))
    started = None
    messages: list[Message] = []
    skipped = 0
    for m in raw:
        if not isinstance(m, dict):
            skipped += 1
            continue
        when = parse_timestamp(m.get("date_unixtime")) or parse_timestamp(m.get("date"), ctx.tz)
        started = started or when
        if m.get("type", "message") != "message":
            continue
        text = _flatten(m.get("text"))
        if not text.strip():
            text = _flatten(m.get("text_entities"))
        marker = _media_marker(m)
        if marker:
            text = f"{text}\n{marker}" if text.strip() else marker
        speaker = m.get("from") or _UNKNOWN_SPEAKER
        messages.append(Message(role=str(speaker), text=text, timestamp=when, msg_id=str(m.get("id", ""))))
    if skipped:
        ctx.warn(f"{source}: chat {sid}: {skipped} message(s) are not objects and were skipped")
    turns = multiparty_turns(messages)
    speakers = list(dict.fromkeys(t.speaker for t in turns))
    return finish_session(
        Session(
            session_id=f"telegram:{sid}", title=title, started_at=started, participants=speakers, turns=turns
        )
    )


def _flatten(text: Any) -> str:
    """Visible text of a `text` value: a string, or a list of strings and `{"type", "text"}` entities."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        out = []
        for item in text:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                out.append(item["text"])
        return "".join(out)
    return ""


def _media_marker(m: dict) -> str:
    """A one-line marker for the media of a message (`[photo]`, `[voice message]`...), or ""."""
    if m.get("photo"):
        return "[photo]"
    media = m.get("media_type")
    if media == "sticker":
        return f"[sticker {m['sticker_emoji']}]" if m.get("sticker_emoji") else "[sticker]"
    if media:  # voice/video messages, animations...: their file names are generated, leave them out
        return f"[{str(media).replace('_', ' ')}]"
    if m.get("file"):
        name = m.get("file_name") or _file_name(m.get("file"))
        return f"[file {name}]" if name else "[file]"
    poll = m.get("poll")
    if isinstance(poll, dict) and poll.get("question"):
        return f"[poll] {poll['question']}"
    return ""


def _file_name(value: Any) -> str:
    if not isinstance(value, str) or value.startswith(_NOT_INCLUDED):
        return ""
    return value.replace("\\", "/").rsplit("/", 1)[-1]
