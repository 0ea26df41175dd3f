"""The answer stage's reading: hit turns and their nearest context, ranked and cut to a token budget
counted with the model's own tokenizer, rendered by session with program-made tags."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .events import Note
from .prompts import plain_turn, tagged_turn
from .render import Tags, day_label, name


def stem(word: str) -> str:
    return word.lower()[: max(4, len(word) - 2)]


def focus(text: str, words: list[str], limit: int) -> str:
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


@dataclass
class _Unit:
    session_id: str
    turn: int
    speaker: str
    text: str
    priority: tuple[int, int, int, int]


@dataclass
class Context:
    """The rendered context, the turns it holds (the only valid citations) and their tag labels."""

    text: str
    refs: set[tuple[str, int]]
    labels: list[str]
    tokens: int
    dates: dict[tuple[str, int], datetime | None]
    texts: dict[tuple[str, int], str]
    """The full text of each turn in the context (to check numbers the model extracts)."""
    speakers: dict[tuple[str, int], str] = field(default_factory=dict)
    """The speaker of each turn in the context."""
    shown: dict[tuple[str, int], str] = field(default_factory=dict)
    """The (focused) text of each turn as the context shows it."""


def reading_group(note: Note, first_search_first: bool) -> int:
    """Where a note's turns come in the reading among turns of one level. `first_search_first` (for
    lookups): the first search's results (judged relevant, then the rest), then later searches'
    (judged, then kept); else (aggregation, whose items later searches find): judged notes of any
    search, then the rest."""
    unjudged = int(note.how in ("fallback", "candidate", "kept"))
    if not first_search_first:
        return unjudged
    return (0 if note.step <= 1 else 2) + unjudged


def _units(
    notes: list[Note], words: list[str], hit_chars: int, near_chars: int, first_search_first: bool
) -> list[_Unit]:
    units: dict[tuple[str, int], _Unit] = {}
    for rank, note in enumerate(notes):
        b = note.block
        group = reading_group(note, first_search_first)
        hits = set(b.hit_turns) or {b.turn}
        for t in b.turns:
            gap = min(abs(t.turn - h) for h in hits)
            level = 0 if gap == 0 else 1 if gap == 1 else 2
            cap = hit_chars if level == 0 else near_chars if level == 1 else near_chars // 2
            # lookups: each note's best hit before any note's other hits (breadth over one long chat)
            other_hit = int(first_search_first and level == 0 and t.turn != b.turn)
            text = focus(t.text, words, cap)
            unit = _Unit(b.session_id, t.turn, t.speaker, text, (level, other_hit, group, rank))
            key = (b.session_id, t.turn)
            if key not in units or unit.priority < units[key].priority:
                units[key] = unit
    return sorted(units.values(), key=lambda u: u.priority)


def build_context(
    notes: list[Note],
    words: list[str],
    tags: Tags,
    budget: int,
    count: Callable[[str], int],
    newest_first: bool = False,
    plain: bool = False,
    hit_chars: int = 700,
    near_chars: int = 300,
    first_search_first: bool = False,
) -> Context:
    """Notes → context of at most `budget` tokens: hit turns first, then their neighbours, then the
    rest; within a level in `reading_group` order, and with `first_search_first` (lookups) every
    note's best hit turn before any note's other hit turns. Measured on the 20 non-preference dev
    questions of the stratified sample (answer stage over fixed notes, 1.5B): of the 11 lookup and
    "latest" questions this order answered 4 right against 3 (none lost, "a blue Snaggletooth"
    gained); of the 9 aggregation questions 4 against 6 (the later searches' items fell out of the
    budget), so aggregation keeps the judged-first order. `plain`: no tags (a small model copies tag
    lines instead of answering); the program attributes the answer to turns itself."""
    info = {n.block.session_id: (n.block.session_date, n.block.session_title) for n in notes}
    when = {
        (n.block.session_id, t.turn): t.timestamp or n.block.session_date
        for n in notes
        for t in n.block.turns
    }
    full = {(n.block.session_id, t.turn): t.text for n in notes for t in n.block.turns}
    chosen: list[_Unit] = []
    sessions: set[str] = set()
    used = 0
    for u in _units(notes, words, hit_chars, near_chars, first_search_first):
        cost = count(tagged_turn(tags, u.session_id, u.turn, u.speaker, u.text)) + 1
        if u.session_id not in sessions:
            cost += 14  # the session's header line
        if used + cost > budget:
            continue
        chosen.append(u)
        sessions.add(u.session_id)
        used += cost
    far = datetime.max.replace(tzinfo=UTC)

    def session_key(sid: str) -> tuple:
        d = info[sid][0]
        if d is not None and d.tzinfo is None:
            d = d.replace(tzinfo=UTC)
        return (d or far, tags.session(sid))

    order = sorted(sessions, key=session_key, reverse=newest_first)
    lines: list[str] = []
    for sid in order:
        date, title = info[sid]
        if plain:
            lines.append(f"Chat of {day_label(date)}" + (f": {name(title, 60)}" if title else ""))
        else:
            lines.append(
                f"## {tags.session(sid)} | {day_label(date)}" + (f" | {name(title, 60)}" if title else "")
            )
        for u in sorted((u for u in chosen if u.session_id == sid), key=lambda u: u.turn):
            if plain:
                lines.append(plain_turn(u.speaker, u.text))
            else:
                lines.append(tagged_turn(tags, u.session_id, u.turn, u.speaker, u.text))
        lines.append("")
    refs = {(u.session_id, u.turn) for u in chosen}
    labels = [
        tags.label(sid, u.turn)
        for sid in order
        for u in sorted(chosen, key=lambda u: u.turn)
        if u.session_id == sid
    ]
    return Context(
        "\n".join(lines).strip(),
        refs,
        labels,
        used,
        {r: when.get(r) for r in refs},
        {r: full.get(r, "") for r in refs},
        {(u.session_id, u.turn): u.speaker for u in chosen},
        {(u.session_id, u.turn): u.text for u in chosen},
    )
