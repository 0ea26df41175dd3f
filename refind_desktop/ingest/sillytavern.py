"""SillyTavern chat parser (`data/<user>/chats/<Character>/*.jsonl`, group chats): one file = one chat.

A chat file can run for months: it is cut into conversations by `conversations.split_chat`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from . import described
from .base import (
    MONTH_NAMES,
    JsonlStats,
    Message,
    ParseContext,
    as_utc,
    finish_session,
    iter_jsonl,
    multiparty_turns,
    pair_turns,
    parse_timestamp,
    stable_id,
)
from .conversations import split_chat

# Older humanized send_date: "June 10, 2026 2:30pm" / "Sep 26, 2025 3:06 PM"
_HUMAN = re.compile(
    r"^\s*([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4}),?\s+"
    r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])\.?m\.?\s*$",
    re.IGNORECASE,
)
# Older ST "humanized" stamps as in file names: "2023-7-1 @12h 34m 56s 789ms", "2025-09-26@15h04m33s123ms"
_AT = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*@\s*(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s"
    r"(?:\s*(\d{1,3})\s*ms)?\s*$"
)
_NARRATOR_TYPES = ("narrator",)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one SillyTavern chat file (header line, then one message per line)."""
    character = _character(path)
    session_id = f"sillytavern:{stable_id(character, path.name)}"
    header: dict[str, Any] = {}
    lines: list[tuple[int, dict[str, Any]]] = []
    stats = JsonlStats()
    for lineno, obj in iter_jsonl(path, ctx, stats):
        if not isinstance(obj, dict):
            ctx.warn(f"{path}: line {lineno} is not a JSON object; skipped")
        elif not header and not lines and _is_header(obj):
            header = obj
        else:
            lines.append((lineno, obj))
    if (stats.valid or stats.malformed) and not header and not any("mes" in obj for _, obj in lines):
        raise ParseError(
            f"{path}: neither a chat header nor `mes` message lines; is this really a SillyTavern chat?"
        )
    visible: list[tuple[bool, str, str, datetime | None]] = []  # (is_user, name, text, time)
    bot_names: list[str] = []
    for lineno, obj in lines:
        if obj.get("is_system"):
            continue  # hidden messages and UI/system notes (also excluded from ST's own txt export)
        text = _text(obj)
        if text is None:
            ctx.warn(f"{path}: line {lineno} has no `mes` text; skipped")
            continue
        is_user = bool(obj.get("is_user"))
        name = str(obj.get("name") or ("user" if is_user else character or "assistant"))
        extra = obj.get("extra") if isinstance(obj.get("extra"), dict) else {}
        if not is_user and extra.get("type") not in _NARRATOR_TYPES and name not in bot_names:
            bot_names.append(name)
        sent = parse_send_date(obj.get("send_date"), ctx.tz)
        if sent is None and obj.get("send_date") not in (None, ""):
            ctx.warn(f"{path}: line {lineno}: unreadable send_date {described.value(obj.get('send_date'))}")
        visible.append((is_user, name, text, sent))
    if path.parent.name == "group chats" or len(bot_names) > 1:
        turns = multiparty_turns(Message(name, text, ts) for _, name, text, ts in visible)
    else:
        user_name = (
            _persona(header.get("user_name")) or next((n for u, n, _, _ in visible if u), "") or "User"
        )
        char_name = (bot_names[0] if bot_names else "") or character or "Assistant"
        turns = pair_turns(
            (Message("user" if is_user else "assistant", text, ts) for is_user, _, text, ts in visible),
            user_label=user_name,
            assistant_label=char_name,
        )
    started = parse_send_date(header.get("create_date"), ctx.tz) or next(
        (ts for *_, ts in visible if ts), None
    )
    session = finish_session(
        Session(
            session_id=session_id,
            title=_title(path, header, character, bot_names),
            started_at=started,
            participants=list(dict.fromkeys(name for _, name, _, _ in visible)),
            turns=turns,
        )
    )
    if session is not None:
        yield from split_chat(session, ctx.conversations())


def parse_send_date(value: object, tz: tzinfo) -> datetime | None:
    """ISO (current ST), humanized `June 10, 2026 2:30pm`, `2023-7-1 @12h 34m 56s`, or epoch s/ms."""
    ts = parse_timestamp(value, tz)
    if ts is not None or not isinstance(value, str):
        return ts
    if m := _HUMAN.match(value):
        month_name, day, year, hour, minute, second, half = m.groups()
        month = next(
            (
                i + 1
                for i, full in enumerate(MONTH_NAMES)
                if full.startswith(month_name.lower()) and len(month_name) >= 3
            ),
            None,
        )
        if month is None:
            return None
        h = int(hour) % 12 + (12 if half.lower() == "p" else 0)
        parts = (int(year), month, int(day), h, int(minute), int(second or 0))
    elif m := _AT.match(value):
        year, month_s, day, hour, minute, second, ms = m.groups()
        parts = (
            int(year),
            int(month_s),
            int(day),
            int(hour),
            int(minute),
            int(second),
            int((ms or "0").ljust(3, "0")) * 1000,
        )
    else:
        return None
    try:
        return as_utc(datetime(*parts), tz)
    except ValueError:
        return None


def _is_header(obj: dict[str, Any]) -> bool:
    return "mes" not in obj and ("chat_metadata" in obj or ("user_name" in obj and "character_name" in obj))


def _text(obj: dict[str, Any]) -> str | None:
    """The chosen alternative: `mes` (= swipes[swipe_id]); other swipes are regenerations."""
    mes = obj.get("mes")
    if isinstance(mes, str):
        return mes
    swipes, swipe_id = obj.get("swipes"), obj.get("swipe_id")
    if (
        isinstance(swipes, list)
        and isinstance(swipe_id, int)
        and 0 <= swipe_id < len(swipes)
        and isinstance(swipes[swipe_id], str)
    ):
        return swipes[swipe_id]
    return None


def _character(path: Path) -> str:
    """Character of a chat file: its folder under `chats/`, else the name part of `<Char> - <date>.jsonl`."""
    if path.parent.parent.name == "chats":
        return path.parent.name
    if " - " in path.stem:
        return path.stem.rsplit(" - ", 1)[0]
    return ""


def _persona(value: object) -> str:
    """A header name, unless it is the placeholder current SillyTavern writes ("unused")."""
    return value.strip() if isinstance(value, str) and value.strip() and value.strip() != "unused" else ""


def _title(path: Path, header: dict[str, Any], character: str, bot_names: list[str]) -> str:
    """The character (header, folder or file name, else the first speaking character); a group chat
    lists its characters. A file stem is the last resort (old files are named by a number)."""
    if path.parent.name == "group chats" or len(bot_names) > 1:
        return ", ".join(bot_names) or path.stem
    name = _persona(header.get("character_name")) or character or (bot_names[0] if bot_names else "")
    if not name or path.stem.startswith(f"{name} - "):
        return path.stem  # current naming "<Character> - <date>" already says who and when
    return name
