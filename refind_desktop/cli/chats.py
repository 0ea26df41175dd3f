"""How the CLI prints chats and transcripts: a conversation's place in its chat, a whole chat, grouped
session lists, speaker labels and turn times (called by cli/core.py's search, sessions and show)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from ..index.said import ASSISTANT_STYLE
from ..terminal import printable
from ..types import SessionInfo
from .common import print_json


def local_time(when, tz) -> str:
    """A turn's time in the user's zone, to the minute."""
    return when.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def speaker_label(speaker: str) -> str:
    """`Name: ` before a multi-party message (assistant-style turns carry role labels in their text)."""
    if not speaker or speaker in ASSISTANT_STYLE:
        return ""
    return printable(speaker, one_line=True) + ": "


def print_grouped(
    catalog,
    infos: list[SessionInfo],
    hide: Callable[[str], str] = str,
    host: Callable[[str], str] = lambda source: "",
) -> None:
    """`refind sessions` text: sessions newest first, a chat's conversations indented under a line for the
    chat; `hide` redacts titles; `host` names a source file's machine ("" for this one), shown as
    `[USER@HOST]` before the title."""
    groups: dict[str, list[SessionInfo]] = {}
    for s in infos:
        groups.setdefault(s.chat_id or "\0" + s.session_id, []).append(s)
    sizes = catalog.chat_sizes([s.chat_id for s in infos if s.chat_id])
    for members in groups.values():
        first = members[0]
        if not first.chat_id:
            print(printable(_session_line(first, hide, host(first.source)), one_line=True))
            continue
        n, turns = sizes.get(first.chat_id, (len(members), sum(m.turns for m in members)))
        day = first.started_at.date().isoformat() if first.started_at else "????-??-??"
        shown = f", {len(members)} shown" if len(members) < n else ""
        print(
            printable(
                f"{day}  chat {hide(first.chat_title or first.chat_id)}: {n} conversations, {turns} turns{shown}  "
                f"{first.format}  {first.chat_id}",
                one_line=True,
            )
        )
        for m in members:
            print(printable("    " + _session_line(m, hide, host(m.source)), one_line=True))


def _session_line(s: SessionInfo, hide: Callable[[str], str] = str, host: str = "") -> str:
    day = s.started_at.date().isoformat() if s.started_at else "????-??-??"
    where = f"[{host}] " if host else ""
    return f"{day}  {s.turns:>5} turns  {s.format:<12} {s.session_id}  {where}{hide(s.title)}"


def chat_place(catalog, rec) -> dict | None:
    """Where a conversation sits in its chat: chat id and title, position, count, previous and next
    conversation ids (None for a session that stands alone)."""
    if not rec.chat:
        return None
    ids = [r.sid for r in catalog.chat_sessions(rec.chat)]
    i = ids.index(rec.sid)
    return {
        "id": rec.chat,
        "title": rec.chat_title,
        "position": i + 1,
        "count": len(ids),
        "previous": ids[i - 1] if i > 0 else None,
        "next": ids[i + 1] if i + 1 < len(ids) else None,
    }


def chat_place_line(place: dict) -> str:
    """One line: which chat, which conversation of how many, and the neighbours' ids."""
    line = f"conversation {place['position']} of {place['count']} in chat {place['title'] or place['id']}"
    line += f" ({place['id']}; `refind show --chat` prints the whole chat)"
    for key in ("previous", "next"):
        if place[key]:
            line += f"; {key}: {place[key]}"
    return line


def show_chat(svc, chat: str, as_json: bool) -> int:
    """Every conversation of a chat, oldest first (secrets redacted unless the services say not)."""
    hide = svc.redactor.text
    recs = svc.catalog.chat_sessions(chat)
    parts = [(r, svc.index.session_turns(r.ord)) for r in recs]
    if as_json:
        print_json(
            svc.redactor.data(
                {
                    "chat_id": chat,
                    "title": recs[0].chat_title,
                    "conversations": [
                        {
                            "session_id": r.sid,
                            "title": r.title,
                            "source": r.source,
                            "turns": [
                                {
                                    "turn": t.turn,
                                    "speaker": t.speaker,
                                    "timestamp": t.timestamp,
                                    "text": t.text,
                                }
                                for t in turns
                            ],
                        }
                        for r, turns in parts
                    ],
                }
            )
        )
        return 0
    total = sum(r.n_turns for r in recs)
    print(
        printable(
            f"chat {hide(recs[0].chat_title or chat)}  ({recs[0].format}, {len(recs)} conversations, "
            f"{total} turns)",
            one_line=True,
        )
    )
    for r, turns in parts:
        print()
        print(printable(f"== {hide(r.title or r.sid)}  ({r.n_turns} turns)  id {r.sid}", one_line=True))
        print_turns(turns, None, hide)
    return 0


def print_turns(turns, hit: int | None, hide: Callable[[str], str] = str) -> None:
    """A transcript: one header line per turn (mark, number, speaker, time), its text indented (`hide`
    redacts it)."""
    for t in turns:
        mark = ">" if t.turn == hit else " "
        when = t.timestamp.isoformat(timespec="minutes") if t.timestamp else ""
        print(printable(f"{mark}[{t.turn}] {t.speaker} {when}", one_line=True))
        print(textwrap.indent(printable(hide(t.text)), "    "))
