"""Stage 2: notes grouped by session in date order, the answer prompt, and citation parsing."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..llm.base import ChatMessage
from ..types import TurnView
from . import prompts
from .events import Note

_BRACKET = re.compile(r"\[([^\[\]]{1,300})\]")
_CITE = re.compile(r"(?:session\s+)?([^\s,;\[\]]+?)[,:]?\s+turns?\s*#?\s*(\d+)", re.IGNORECASE)


def group_notes(notes: list[Note]) -> list[tuple[str, str, datetime | None, list[tuple[TurnView, bool]]]]:
    """(session_id, title, date, [(turn, is_hit)]) per noted session, oldest session first.

    Blocks of one session merge; a turn saved twice appears once. Undated sessions go last.
    """
    by_sid: dict[str, dict] = {}
    for n in notes:
        b = n.block
        entry = by_sid.setdefault(
            b.session_id, {"title": b.session_title, "date": b.session_date, "turns": {}, "hits": set()}
        )
        for t in b.turns:
            entry["turns"].setdefault(t.turn, t)
        entry["hits"].update(b.hit_turns)
    far = datetime.max.replace(tzinfo=UTC)

    def key(item: tuple[str, dict]) -> tuple:
        sid, e = item
        d = e["date"]
        if d is not None and d.tzinfo is None:
            d = d.replace(tzinfo=UTC)
        return (d or far, sid)

    return [
        (sid, e["title"], e["date"], [(e["turns"][i], i in e["hits"]) for i in sorted(e["turns"])])
        for sid, e in sorted(by_sid.items(), key=key)
    ]


def note_turns(notes: list[Note]) -> set[tuple[str, int]]:
    """Every (session_id, turn) present in the notes: the only valid citation targets."""
    return {(n.block.session_id, t.turn) for n in notes for t in n.block.turns}


def answer_messages(notes: list[Note], question: str, now: datetime, budget: int) -> list[ChatMessage]:
    """System + user messages of the answer stage (history fitted to `budget` characters)."""
    groups = group_notes(notes)
    history = prompts.render_history(groups, budget)
    sid, _, _, turns = groups[0]
    hit = next((t for t, is_hit in turns if is_hit), turns[0][0])
    return [
        ChatMessage("system", prompts.ANSWER_SYSTEM),
        ChatMessage("user", prompts.answer_prompt(history, question, now, f"[{sid} turn {hit.turn}]")),
    ]


def parse_citations(text: str, valid: set[tuple[str, int]]) -> list[tuple[str, int]]:
    """`[session_id turn N]` markers in `text` that point at a noted turn, in order, each once.

    Accepts small variations: "[session s:1 turn 2]", "[s:1, turn 2]", several in one bracket
    ("[s:1 turn 2; s:4 turn 0]"). Anything naming a turn outside the notes is dropped.
    """
    out: dict[tuple[str, int], None] = {}
    for bracket in _BRACKET.finditer(text):
        for m in _CITE.finditer(bracket.group(1)):
            ref = (m.group(1).strip("'\"`"), int(m.group(2)))
            if ref in valid:
                out.setdefault(ref, None)
    return list(out)
