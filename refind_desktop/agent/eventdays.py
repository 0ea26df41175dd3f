"""The day an event happened as the person's own sentence about it says ("on January 10th", "last week").

A chat's date is when the person wrote, not always when the thing happened: "I recently got a new pair
of Adidas running shoes on January 10th", written on February 3rd. Ordering events or counting the
days between them by chat dates alone gets such questions wrong, and two events told in chats of one
day cannot be ordered at all. For an extracted item, the program finds the sentence of the cited
turn (the person's own words) that names the item, reads its time words against the chat's day with
the same resolver the search uses for questions (`search/timewords.py`), and keeps the range they
name. What a sentence says after a plan ("I'm planning a trip ... in May") tells of no event that
happened and is cut off; turns whose sentence about the item names no time give no day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from ..search.querywords import FUNCTION_WORDS
from ..search.timewords import resolve

_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!\bSt\.)(?<!\bMt\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bMrs\.)(?<!\bJr\.)(?<!\bvs\.)\s+|\n+"
)
"""Sentence ends: after . ! or ?, not after the abbreviations of names ("St. Mary's Church")."""
_WORD = re.compile(r"[a-z0-9]+")
_PLAN = re.compile(
    r"\b(?:plan(?:s|ning)? (?:to|a|an|on|for)|will|going to|gonna|upcoming|tomorrow|"
    r"next (?:week|weekend|month|year|\w+day)|thinking (?:of|about)|hop(?:e|ing) to|would like to|'ll)\b",
    re.IGNORECASE,
)
_REFERS_BACK = re.compile(
    r"^(?:(?:i|we|they|she|he)\s+(?:\w+\s+){0,2}(?:it|them|one)\b|(?:it|they|that|this|there)\b)",
    re.IGNORECASE,
)
"""A sentence that goes on about the thing the one before named ("I bought it about three weeks ago")."""


@dataclass(frozen=True)
class StatedDay:
    """The days a sentence's time words name for an event (first and last day, inclusive)."""

    first: date
    last: date
    sentence: str

    @property
    def exact(self) -> bool:
        """One day: "on January 10th", "yesterday", "last Friday"."""
        return self.first == self.last

    @property
    def middle(self) -> date:
        """The best single guess for a range ("three weeks ago": the middle of that week)."""
        return self.first + timedelta(days=(self.last - self.first).days // 2)


def _stem(word: str) -> str:
    for end in ("ies", "es", "s", "ing", "ed"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def words(text: str) -> set[str]:
    """The content words of `text`, crudely stemmed (function words and words under 3 letters dropped)."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in FUNCTION_WORDS}


def sentences(text: str) -> list[str]:
    """`text` cut into sentences."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def days_told(parts: list[str], i: int, said_on: date) -> StatedDay | None:
    """The days sentence `i` of `parts` names for its event; when it names none, the next sentence's
    when that one refers back ("I bought it about three weeks ago"). Only the words before a plan
    count ("today I sold muffins, and I'm thinking of raising prices next month": today). None
    when no time is named."""
    follow = parts[i + 1] if i + 1 < len(parts) else ""
    for j, s in enumerate((parts[i], follow)):
        if not s or (j == 1 and not _REFERS_BACK.search(s)):
            continue
        plan = _PLAN.search(s)
        if plan:  # what follows a plan ("I'm planning a trip in May") happened on no day: cut it off
            s = s[: plan.start()]
        days = resolve(s, said_on)
        if days is not None and days[0] <= said_on:
            return StatedDay(days[0], min(days[1], said_on), s)
    return None


def stated_day(what: str, text: str, said_on: date | None) -> StatedDay | None:
    """The days the person's sentence about `what` names, read against the chat's day `said_on`.

    The sentence is the one sharing the most words with `what`, at least half of them (`days_told`
    then reads it). None when no such sentence names a time, when it tells of a plan, or without
    the chat's day."""
    if said_on is None:
        return None
    wanted = words(what)
    if not wanted:
        return None
    parts = sentences(text)
    overlap = [len(wanted & words(s)) for s in parts]
    best = max(overlap, default=0)
    if best == 0 or 2 * best < len(wanted):
        return None
    for i, n in enumerate(overlap):
        if n == best and (told := days_told(parts, i, said_on)) is not None:
            return told
    return None
