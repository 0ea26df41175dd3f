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
    priority: tuple[int, int, int]


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


def _units(notes: list[Note], words: list[str], hit_chars: int, near_chars: int) -> list[_Unit]:
    units: dict[tuple[str, int], _Unit] = {}
    for rank, note in enumerate(notes):
        b = note.block
        fallback = 1 if note.how in ("fallback", "candidate", "kept") else 0
        hits = set(b.hit_turns) or {b.turn}
        for t in b.turns:
            gap = min(abs(t.turn - h) for h in hits)
            level = 0 if gap == 0 else 1 if gap == 1 else 2
            cap = hit_chars if level == 0 else near_chars if level == 1 else near_chars // 2
            unit = _Unit(b.session_id, t.turn, t.speaker, focus(t.text, words, cap), (level, fallback, rank))
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
) -> Context:
    """Notes → context of at most `budget` tokens: hit turns first (noted before candidates), then
    their neighbours, then the rest. `plain`: no tags (a small model copies tag lines instead of
    answering); the program attributes the answer to turns itself."""
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
    for u in _units(notes, words, hit_chars, near_chars):
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
