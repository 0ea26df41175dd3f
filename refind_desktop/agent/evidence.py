"""The evidence an answer is read from: passages (a note's hit turns with their nearest neighbours),
in the order a person would read them, each turn with its own date."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..types import TurnView
from .events import Note

NEIGHBOURS = 1
"""Turns on each side of a hit turn that a passage shows."""


def stem(word: str) -> str:
    """A crude language-neutral stem for finding a word in a text: its first max(4, n-2) letters."""
    return word.lower()[: max(4, len(word) - 2)]


def focus(text: str, words: list[str] | tuple[str, ...], limit: int) -> str:
    """About `limit` characters of `text`: the contiguous stretch holding most of `words` (the start
    when none is found), cut at word boundaries and marked where it was cut."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    stems = {stem(w) for w in words if len(w) > 2}
    low = flat.lower()
    marks = sorted(m.start() for s in stems for m in re.finditer(re.escape(s), low))
    best, best_start = 0, 0
    for i, pos in enumerate(marks):
        start = max(0, pos - limit // 4)
        inside = {low[p : p + 4] for p in marks[i:] if p < start + limit}
        if len(inside) > best:
            best, best_start = len(inside), start
    start = best_start
    if start:
        start = flat.find(" ", start) + 1 or start
    end = min(len(flat), start + limit)
    if end < len(flat):
        end = flat.rfind(" ", start, end) if flat.rfind(" ", start, end) > start else end
    return ("… " if start else "") + flat[start:end] + (" …" if end < len(flat) else "")


@dataclass(frozen=True)
class Line:
    """One turn as a passage shows it: the stored turn, the text shown (focused) and whether it is a hit."""

    view: TurnView
    shown: str
    hit: bool

    @property
    def ref(self) -> tuple[str, int]:
        """(session id, turn)."""
        return (self.view.session_id, self.view.turn)


@dataclass(frozen=True)
class Passage:
    """A stretch of one chat: hit turns and their neighbours, in turn order."""

    session_id: str
    title: str
    session_date: datetime | None
    lines: tuple[Line, ...]
    order: int
    """Its place in the reading order (0 = read first)."""

    def when(self, ref: tuple[str, int]) -> datetime | None:
        """The time of a turn of the passage: its own timestamp, else its chat's date."""
        for line in self.lines:
            if line.ref == ref:
                return line.view.timestamp or self.session_date
        return self.session_date

    def line(self, ref: tuple[str, int]) -> Line | None:
        """The passage's line of a turn, or None."""
        return next((ln for ln in self.lines if ln.ref == ref), None)


def reading_group(note: Note, first_search_first: bool) -> int:
    """Where a note comes in the reading. `first_search_first` (a single fact): the first search's
    results (judged relevant, then the rest), then later searches' (judged, then kept); else (items
    that later searches find too): judged notes of any search, then the rest."""
    unjudged = int(note.how in ("fallback", "candidate", "kept"))
    if not first_search_first:
        return unjudged
    return (0 if note.step <= 1 else 2) + unjudged


def passages(
    notes: list[Note],
    words: tuple[str, ...],
    first_search_first: bool,
    hit_chars: int = 700,
    near_chars: int = 250,
    neighbours: int = NEIGHBOURS,
    budget: int = 1400,
) -> list[Passage]:
    """The notes as passages in reading order (`reading_group`, then the order they were noted). A turn
    is shown once: a later note's turns already shown in an earlier passage are left out of it. A passage
    shows at most `budget` characters: its hit turns first (the best-ranked first), then the nearest
    neighbours, each focused on the question's words."""
    ranked = sorted(enumerate(notes), key=lambda p: (reading_group(p[1], first_search_first), p[0]))
    shown: set[tuple[str, int]] = set()
    out: list[Passage] = []
    for _, note in ranked:
        b = note.block
        hits = set(b.hit_turns) or {b.turn}
        ranked_turns = sorted(
            (t for t in b.turns if (t.session_id, t.turn) not in shown),
            key=lambda t: (min(abs(t.turn - h) for h in hits), t.turn != b.turn, t.turn),
        )
        lines, room = [], budget
        for t in ranked_turns:
            gap = min(abs(t.turn - h) for h in hits)
            if gap > neighbours or room < 80:
                continue
            text = focus(t.text, words, min(hit_chars if gap == 0 else near_chars, room))
            lines.append(Line(t, text, gap == 0))
            room -= len(text)
        lines.sort(key=lambda ln: ln.view.turn)
        if not any(ln.hit for ln in lines):
            continue
        shown.update(ln.ref for ln in lines)
        out.append(Passage(b.session_id, b.session_title, b.session_date, tuple(lines), len(out)))
    return out
