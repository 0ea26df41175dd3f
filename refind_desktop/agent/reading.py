"""The reading calls: the model reads one passage at a time and says, under a JSON schema, whether it
states what the question asks, with the words, number and time words it uses; the program checks every
item against the passage's own text before any computation uses it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo

from ..index.said import person_words
from ..index.schema import stems
from ..lang import CURRENCIES, PACKS, WORD, tokens
from . import prompts
from .dates import Day, dated_in, event_day
from .events import ReadEvent
from .evidence import Line, Passage, stem
from .question import Question
from .render import day_label, name, neutralise
from .run import Run

TASKS = {
    "lookup": "Does this excerpt say what the question asks, about that very thing (a different thing "
    "of the same kind does not count)? If so, give the turn that says it and the answer in a few words "
    "copied from that turn.",
    "yesno": "Does this excerpt say what the question asks, about that very thing? If so, give the turn "
    "that says it and its words, copied.",
    "latest": "Does this excerpt say what the question asks, about that very thing (a different thing "
    "of the same kind does not count)? If so, give the turn that says it, the answer in a few words "
    "copied from that turn, and when: the words of that turn that say when it became so, or null.",
    "when": "Does this excerpt tell of the very thing the question asks about? If so, give the turn that "
    "tells of it, the thing in a few words copied from that turn, and when: the words of that turn that "
    'say when it happened (like "yesterday", "last Friday", "on May 3"), or null when it does not say.',
    "recommend": "Does this excerpt say what the person likes, has, does or wants that bears on the "
    "request? If so, give the turn and those words, copied.",
    "list": "List each of the things the question asks for that this excerpt states, about that very "
    "thing (a different thing of the same kind does not count): its turn and the thing in a few words "
    "copied from that turn.",
    "count": "List each of {thing} this excerpt mentions (only the person's own, each once): its turn, "
    "a few words naming it, and value: how many of them the person says there are in all, when that "
    'turn says so (like "I\'ve tried four so far"), else null.',
    "total": "List each amount this excerpt states that the question adds up: its turn, a few words "
    "naming what it is for, and value: the number only (no unit or currency sign).",
    "difference": "List each amount this excerpt states that the question compares: its turn, a few "
    "words naming it, and value: the number only (no unit or currency sign).",
    "span": "List each event the question asks about that this excerpt tells of: its turn, the event in "
    "a few words copied from that turn, and when: the words of that turn that say when it happened, or "
    "null when it does not say.",
    "order": "List each of the things the question compares that this excerpt tells of: its turn, the "
    "thing in a few words copied from that turn, and when: the words of that turn that say when it "
    "happened, or null when it does not say.",
}
"""What each kind of question asks of one passage."""
MAX_ITEMS = {"list": 4, "count": 6, "total": 5, "difference": 3, "span": 3, "order": 3}
"""Items one passage may give (one for the kinds that look for a single fact)."""
WITH_VALUE = ("total", "difference", "count")
WITH_WHEN = ("latest", "when", "span", "order")


@dataclass(frozen=True)
class Item:
    """One thing a passage states, checked against the turn that states it."""

    ref: tuple[str, int]
    words: str
    value: float | None
    unit: str
    """What its number counts, as the turn writes it next to the number ("$", "€", "hours")."""
    day: Day | None
    """The day the turn's own words give for it ("yesterday" read against the turn's time), if any."""
    said: datetime | None
    """The turn's own time (its chat's date when the turn has none)."""
    order: int
    """Its passage's place in the reading order."""
    text: str = ""
    """The whole text of the turn that states it."""
    own: str = ""
    """The person's own words in that turn (all of a messenger message; the user's part of an
    assistant chat)."""
    personal: bool = False
    """Whether its words are copied from the person's own words (not from an assistant's reply)."""


def schema(kind: str, labels: list[str]) -> dict:
    """The reading reply: found, and the items (each citing one of the passage's turn labels)."""
    props: dict = {
        "turn": {"type": "string", "enum": labels},
        "words": {"type": "string", "maxLength": 100},
    }
    if kind in WITH_VALUE:
        props["value"] = {"type": ["number", "null"]}
    if kind in WITH_WHEN:
        props["when"] = {"type": ["string", "null"], "maxLength": 40}
    item = {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}
    return {
        "type": "object",
        "properties": {
            "found": {"type": "boolean"},
            "items": {"type": "array", "items": item, "maxItems": MAX_ITEMS.get(kind, 1)},
        },
        "required": ["found", "items"],
        "additionalProperties": False,
    }


def label(turn: int) -> str:
    """The label a turn has inside one passage ("T4")."""
    return f"T{turn}"


def _local(when: datetime | None, tz: tzinfo | None) -> datetime | None:
    return when.astimezone(tz) if when is not None and tz is not None and when.tzinfo else when


def excerpt(passage: Passage, tz: tzinfo | None = None) -> str:
    """The passage as the model reads it: its chat and date, then each turn with its label, its own time
    in the user's zone `tz` and its speaker (every chat-file string neutralised)."""
    head = f"Chat of {day_label(_local(passage.session_date, tz))}"
    if passage.title:
        head += f": {name(passage.title, 60)}"
    lines = [head]
    for ln in passage.lines:
        when = _local(ln.view.timestamp, tz)
        stamp = f"{when:%Y-%m-%d %H:%M} " if when is not None else ""
        lines.append(f"[{label(ln.view.turn)}] {stamp}{prompts.turn_text(ln.view.speaker, ln.shown)}")
    return "\n".join(lines)


def prompt(q: Question, passage: Passage, tz: tzinfo | None = None) -> str:
    """One reading call: the question and the task first (the same for every passage of a question, so
    the model's cache keeps them), then the excerpt, then the question again."""
    fields = '"turn", "words"' + (', "value"' if q.kind in WITH_VALUE else "")
    fields += ', "when"' if q.kind in WITH_WHEN else ""
    asked = neutralise(q.text, 600, one_line=True)
    thing = f'"{neutralise(q.thing, 80, one_line=True)}"' if q.thing else "the things the question counts"
    return (
        f"Question: {asked}\n\nTask: {TASKS[q.kind].format(thing=thing)}\n"
        'Reply as JSON: {"found": false, "items": []} when it does not; else {"found": true, "items": '
        f"[...]}}, each item with {fields}.\n\n"
        f"Chat excerpt:\n<<<DATA\n{excerpt(passage, tz)}\nDATA>>>\n\nQuestion: {asked}"
    )


def copied(words: str, text: str) -> bool:
    """Whether `words` come from `text`: at least half of their words (each by its stem) are in it."""
    kept = [t for t in tokens(words.lower()) if len(t) > 2 or t.isdigit()]
    if not kept:
        return bool(words.strip()) and words.strip().lower() in text.lower()
    low = text.lower()
    return sum(1 for t in kept if stem(t) in low) * 2 >= len(kept)


_AMOUNT = re.compile(r"\d[\d,.]*|[^\W\d_]+", re.UNICODE)


def _values(token: str) -> set[float]:
    """What a written number can mean: digits with "," or "." as thousands or decimal mark, or a number
    word of any pack's language."""
    raw = token.rstrip(".,")
    if not raw[:1].isdigit():
        return {float(v) for p in PACKS.values() if (v := p.numbers.get(raw.lower())) is not None}
    out = set()
    for form in (raw.replace(",", ""), raw.replace(".", "").replace(",", ".")):
        try:
            out.add(float(form))
        except ValueError:
            continue
    return out


def _written(value: float, text: str):
    """The first place `text` writes `value` (a regex match), or None."""
    return next((m for m in _AMOUNT.finditer(text) if value in _values(m.group(0))), None)


def bare_number(words: str) -> float | None:
    """The value of `words` when they are one number and nothing else ("25", "four"), else None."""
    tokens = _AMOUNT.findall(words)
    if len(tokens) != 1:
        return None
    values = _values(tokens[0])
    return min(values) if len(values) == 1 else None


def stated(value: float, text: str) -> bool:
    """Whether `value` is written in `text`, in digits (with or without separators) or as a number word
    of any pack's language."""
    return _written(value, text) is not None


def unit_of(value: float, text: str) -> str:
    """What a number counts as the turn writes it: a currency sign beside it, else the word after it (a
    currency word of any pack as its sign: "20 euros" is "€")."""
    m = _written(value, text)
    if m is None:
        return ""
    before = text[max(0, m.start() - 2) : m.start()].strip()
    if before and before[-1] in CURRENCIES:
        return before[-1]
    after = text[m.end() : m.end() + 20].strip()
    if after[:1] in CURRENCIES:
        return after[:1]
    word = WORD.match(after)
    unit = word.group(0).lower() if word else ""
    return next((p.money_units[unit] for p in PACKS.values() if unit in p.money_units), unit)


def check(q: Question, passage: Passage, data: dict, tz, order: int) -> list[Item]:
    """The reply's items that hold against the passage: a turn of it, words copied from that turn, a
    number written in it, time words that are in it and name a day."""
    if not data or not data.get("found"):
        return []
    langs = tuple(dict.fromkeys((q.lang, *PACKS)))
    out: list[Item] = []
    seen: set[tuple[tuple[str, int], str]] = set()
    for raw in data.get("items", []):
        turn = int(str(raw.get("turn", "T-1"))[1:] or -1)
        words = " ".join(str(raw.get("words") or "").split()).strip(" .,;")
        line = holder(passage, turn, words)
        if line is None or (q.kind in ANSWERS_A_THING and not news(words, q)):
            continue
        full = line.view.text
        value = raw.get("value")
        if value is None and q.kind == "count":
            value = bare_number(words)  # the reading named a number, not a thing: the count it read
        unit = ""
        # a number counts when the person wrote it (an assistant's reply listing "10 restaurants" is
        # not the person's count or spending); a messenger message is all its author's own words
        own = person_words(full, line.view.speaker)
        if value is not None:
            value = float(value)
            if not stated(value, own):
                value = None
            else:
                unit = unit_of(value, own)
        if q.kind in ("total", "difference") and value is None:
            continue
        when_words = " ".join(str(raw.get("when") or "").split())
        said = passage.when(line.ref)
        day = None
        if when_words and copied(when_words, full):
            day = event_day(when_words, said, tz, langs)
        if day is None:  # a date written in the words read dates the item, not the turn's own time
            day = dated_in(words, said, tz, langs)
        key = (line.ref, words.lower())
        if key in seen:
            continue
        seen.add(key)
        out.append(Item(line.ref, words, value, unit, day, said, order, full, own, copied(words, own)))
    return out


ANSWERS_A_THING = ("lookup", "latest", "list")
"""Kinds whose answer is the thing itself, so its words must tell more than the question does."""


def news(words: str, q: Question) -> bool:
    """Whether `words` tell something the question does not: a number, or a content word (not a function
    or asking word of the question's language) the question lacks. Words that only repeat the question
    (\"the sunscreen I use\" for \"Which sunscreen do I use?\") answer nothing."""
    pack, asked = q.pack, q.asked_stems
    for w in tokens(words):
        low = w.lower()
        if low in pack.plain_words:
            continue
        if pack.number(low) is not None or set(stems(w, q.lang)) - asked:
            return True
    return False


def holder(passage: Passage, turn: int, words: str) -> Line | None:
    """The passage's turn that holds `words`: the one the reply names, else the first that does (the
    program cites where the words are, whatever turn a small model named); None when none holds them."""
    if not words:
        return None
    named = passage.line((passage.session_id, turn))
    if named is not None and copied(words, named.view.text):
        return named
    return next((ln for ln in passage.lines if copied(words, ln.view.text)), None)


def read(run: Run, q: Question, passage: Passage) -> list[Item]:
    """One reading call over `passage` (see the module docstring); its checked items."""
    return read_many(run, q, [passage])[0]


def read_many(run: Run, q: Question, passages: list[Passage]) -> list[list[Item]]:
    """One reading call for each of `passages` (their order is each one's `order`), made together when
    the back end decodes several calls at once; each passage's checked items, in order."""
    steps = [
        (
            prompt(q, p, run.tz),
            schema(q.kind, [label(ln.view.turn) for ln in p.lines]),
            40 + 60 * MAX_ITEMS.get(q.kind, 1),
        )
        for p in passages
    ]
    out = []
    for passage, data in zip(passages, run.ask_many("read", steps, usage_stage="answer"), strict=True):
        items = check(q, passage, data or {}, run.tz, passage.order)
        stated = [
            {
                "turn": it.ref[1],
                "words": it.words,
                "value": it.value,
                "day": it.day.day.isoformat() if it.day else None,
            }
            for it in items
        ]
        run.emit(ReadEvent(run.round, passage.session_id, [ln.view.turn for ln in passage.lines], stated))
        out.append(items)
    return out
