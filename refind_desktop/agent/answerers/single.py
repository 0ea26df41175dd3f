"""Answerers of a single fact: lookup and yes/no (the first passage in reading order that states it), when
(its day), latest (the newest statement of it)."""

from __future__ import annotations

from ...index.schema import stems
from ..dates import written_day
from ..reading import Item
from .base import Answerer, Composed, Found


def lookup(found: Found, run: object) -> Composed | None:
    """The first item read: its words and its tag."""
    if not found.items:
        return None
    first = found.items[0]
    return Composed(found.cite(first), [first.ref])


def when(found: Found, run: object) -> Composed | None:
    """The day of the first item read: the day its turn's words name, else the turn's own day."""
    if not found.items:
        return None
    first = found.items[0]
    day = found.day(first)
    if day is None:
        return Composed(found.cite(first), [first.ref])
    text = found.pack.say("when", day=written_day(day, found.pack), item=found.cite(first))
    return Composed(text, [first.ref], computed=True)


def on_topic(found: Found) -> list[Item]:
    """The items whose turn holds one of the question's content words (as the index stems them in its
    language); all of them when none does."""
    q = found.question
    asked = {s for w in q.subject for s in stems(w, q.lang)}
    named = [it for it in found.items if asked & set(stems(it.text, q.lang))]
    return named or found.items


def latest(found: Found, run: object) -> Composed | None:
    """The newest item that speaks of the thing (`on_topic`: a newer turn that names nothing the question
    asks about does not replace a statement of it): by the day it became so, then by when its turn was
    written."""
    items = on_topic(found)
    if not items:
        return None

    def newest(item):
        day = found.day(item)
        said = item.said.timestamp() if item.said is not None else 0.0
        return (day.day if day is not None else None) or found.now.date().min, said

    best = max(items, key=newest)
    return Composed(found.dated(best), [best.ref], computed=len(items) > 1)


ANSWERERS = (
    Answerer("lookup", lookup, read=6, enough=1),
    Answerer("yesno", lookup, read=6, enough=1),
    Answerer("when", when, read=6, enough=1),
    Answerer("latest", latest, read=6),
)
