"""The two events a "which came first" / "how many days between" question names, found by the program.

"How many days had passed since I bought my Adidas running shoes when I realized one of the shoelaces
on my old Converse sneakers had broken?" names its two events in its own words. Asking a small model
to list them from a thousand tokens of notes fails often (measured with the 1.5B model: it listed
"I realized I was out of fajita seasoning" and four other unrelated turns for this question). The
program instead cuts the question into its two event phrases, finds in the person's own words of
the noted turns the sentence that best matches each (rare words count more, the words the two
phrases share — "became a parent" in "Who became a parent first, Rachel or Alex?" — count for both),
and dates each by the day its sentence names or its chat's day (agent/eventdays.py). Nothing is
found when a phrase matches no sentence well or both match the same one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date

from .eventdays import StatedDay, days_told, sentences, words

_LEAD = r"(?:the (?:day|date|time|moment) (?:when |that )?|when |the )?"
_PAIRS = (
    re.compile(r"\bbetween " + _LEAD + r"(?P<a>.+?),? and " + _LEAD + r"(?P<b>.+?)[?.!\s]*$", re.I),
    re.compile(r"\bsince " + _LEAD + r"(?P<a>.+?),? when (?P<b>.+?)[?.!\s]*$", re.I),
    re.compile(
        r"^(?P<shared>.*?\b(?:first|earlier|sooner)\b)[^,:]*[,:]\s*"
        + _LEAD
        + r"(?P<a>.+?),? or "
        + _LEAD
        + r"(?P<b>.+?)[?.!\s]*$",
        re.I,
    ),
)
_YOU = {
    "i": "you",
    "my": "your",
    "me": "you",
    "mine": "yours",
    "myself": "yourself",
    "i'm": "you're",
    "i've": "you've",
    "i'd": "you'd",
    "am": "are",
}


def event_phrases(question: str) -> tuple[str, str, str] | None:
    """(first event, second event, words both share) as the question writes them, or None."""
    q = " ".join(question.split())
    for pattern in _PAIRS:
        m = pattern.search(q)
        if m:
            a, b = m.group("a").strip(" '\""), m.group("b").strip(" '\"")
            shared = m.groupdict().get("shared") or ""
            if a and b:
                return a, b, shared
    return None


def second_person(phrase: str) -> str:
    """ "I bought my shoes" → "you bought your shoes" (the answer speaks to the person)."""
    return " ".join(_YOU.get(w.lower(), w) for w in phrase.split())


@dataclass(frozen=True)
class Told:
    """One sentence of the person's own words in a noted turn."""

    ref: tuple[str, int]
    said_on: date | None
    parts: list[str]
    index: int


@dataclass(frozen=True)
class FoundEvent:
    """An event phrase of the question and the sentence that tells of it."""

    phrase: str
    ref: tuple[str, int]
    stated: StatedDay | None


def find_events(
    question: str, turns: list[tuple[tuple[str, int], str, date | None]]
) -> tuple[FoundEvent, FoundEvent] | None:
    """The question's two events in `turns` ((ref, the person's own words, chat day)), or None."""
    pair = event_phrases(question)
    if pair is None:
        return None
    a, b, shared = pair
    told: list[Told] = []
    for ref, text, said_on in turns:
        parts = sentences(text)
        told += [Told(ref, said_on, parts, i) for i in range(len(parts))]
    if not told:
        return None
    bags = [words(t.parts[t.index]) for t in told]
    df: dict[str, int] = {}
    for bag in bags:
        for w in bag:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log(1 + len(told) / n) for w, n in df.items()}
    common = words(shared) - words(a) - words(b)
    found = []
    for phrase in (a, b):
        own = words(phrase)
        if not own:
            return None
        score = {
            i: sum(2 * idf[w] for w in own & bag) + sum(idf[w] for w in common & bag)
            for i, bag in enumerate(bags)
            if 2 * len(own & bag) >= len(own)
        }
        if not score:
            return None
        top = max(score.values())
        # among the sentences that match about as well, one that names a day tells of the event
        near = [i for i, v in score.items() if v >= 0.75 * top]
        dated = {
            i: days_told(told[i].parts, told[i].index, told[i].said_on) if told[i].said_on else None
            for i in near
        }
        best = max(near, key=lambda i: (dated[i] is not None, score[i], -i))
        t = told[best]
        found.append((FoundEvent(second_person(phrase), t.ref, dated[best]), (t.ref, t.index)))
    (first, at_a), (second, at_b) = found
    if at_a == at_b:
        return None  # one sentence for both events cannot tell them apart
    return first, second
