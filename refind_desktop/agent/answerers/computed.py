"""Answerers the program computes from the items of several passages: count (distinct things), total (amounts
in one unit), difference (two amounts), span (calendar distance between two days, or from one to the
question's day), order (by day)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ...index.schema import stems
from ...lang import CURRENCIES, tokens
from ..dates import distance
from ..reading import Item
from .base import Answerer, Composed, Found, amount, distinct, number, same_thing, shown

MAX_COUNTED = 100
"""A number written beside an item counts as that many of it up to this (a larger one is not a count)."""


def of_the_thing(found: Found) -> list[Item]:
    """The items whose turn names what the question counts (its last word, as the index stems it in the
    question's language: "bikes" in "my road bike"); all of them when none does or it names no thing."""
    q = found.question
    words = stems(q.thing, q.lang) if q.thing and q.thing.lower() not in q.pack.occurrences else []
    if not words:
        return found.items
    head = words[-1]
    named = [it for it in found.items if head in stems(it.text, q.lang)]
    return named or found.items


NEAR = 3
"""Words a count may stand before its thing ("four ramen bars", "drei neue Bücher")."""


def newest_written(items: list[Item], stated: Callable[[Item], int | None]) -> tuple[int, Item] | None:
    """The number the newest item writes (`stated`), with that item: the latest statement holds, and of one
    time the first read; None when no item writes one."""
    written = [
        (it.said.timestamp() if it.said else 0.0, -it.order, n, it)
        for it in items
        if (n := stated(it)) is not None
    ]
    if not written:
        return None
    *_, n, newest = max(written, key=lambda w: w[:2])
    return n, newest


def stated_count(text: str, head: str, q) -> int | None:
    """The number the text writes for the counted thing: a number (digits or a number word of the
    question's language) at most `NEAR` words before a word that stems to `head`; None without one."""
    words = tokens(text)
    for i, w in enumerate(words):
        n = q.pack.number(w)
        if n is None or not 1 < n <= MAX_COUNTED:
            continue
        after = " ".join(words[i + 1 : i + 1 + NEAR])
        if head in stems(after, q.lang):
            return n
    return None


def told_count(it: Item, q) -> int | None:
    """The count of the thing the reading gave for an item's turn ("I've been to five different ones
    this year"): a whole number the person wrote there (the reading checked it), more than one and at most
    `MAX_COUNTED`, not an amount of money or time; None otherwise."""
    n = it.value
    if n is None or n != int(n) or not 1 < n <= MAX_COUNTED:
        return None
    if it.unit in CURRENCIES or it.unit in q.pack.units:
        return None
    return int(n)


def count(found: Found, run: object) -> Composed | None:
    """A count the person wrote of the thing ("I've tried four of them") is theirs, and the newest such
    count holds (the program finds it before the thing's word, else the reading gives it); without one,
    the distinct things the passages mention are counted."""
    items = of_the_thing(found)
    if not items:
        return None
    q = found.question
    head = stems(q.thing, q.lang)[-1:] if q.thing and q.thing.lower() not in q.pack.occurrences else []

    def written_count(it: Item) -> int | None:
        return (stated_count(it.own, head[0], q) if head else None) or told_count(it, q)

    written = newest_written(items, written_count)
    if written:
        n, newest = written
        text = found.pack.say("count", n=number(n), items=found.dated(newest))
        return Composed(text, [newest.ref], computed=True)
    items = distinct(items)
    listed = ", ".join(found.cite(it) for it in items)
    # several things the program listed may miss some, hold one twice or hold another kind of thing, and no
    # check can tell (one thing alone is checked as an answer is: a count of what the question names is none;
    # making it unsure too was measured on the check halves: one right answer fewer, three wrong fewer)
    return Composed(
        found.pack.say("count", n=len(items), items=listed),
        [it.ref for it in items],
        computed=True,
        unsettled="whole" if len(items) > 1 else "",
    )


def _amounts(found: Found):
    """The items with a number, in the unit most of them are written in, each amount of one chat once;
    for a question that asks for money, only the amounts written as money."""
    valued = [it for it in found.items if it.value is not None]
    if found.question.money:
        valued = [it for it in valued if it.unit in CURRENCIES]
    if not valued:
        return [], ""
    unit = Counter(it.unit for it in valued).most_common(1)[0][0]
    out, seen = [], set()
    for it in valued:
        key = (it.ref[0], it.value)
        if it.unit != unit or key in seen:
            continue
        seen.add(key)
        out.append(it)
    return out, unit


def total(found: Found, run: object) -> Composed | None:
    """The amounts added up in the unit most of them share."""
    items, unit = _amounts(found)
    if not items:
        return None
    value = sum(it.value for it in items)
    listed = " + ".join(f"{amount(it.value, unit)} {found.cite(it)}" for it in items)
    text = found.pack.say("total", total=amount(value, unit), items=listed)
    # amounts added from several chats may miss some, or hold others; one amount answers "how much did the
    # repair cost", not a question that adds several up ("in total"), which it may be a part of
    unsettled = "sum" if len(items) > 1 else "one" if found.question.adds else ""
    return Composed(text, [it.ref for it in items], computed=True, unsettled=unsettled)


def difference(found: Found, run: object) -> Composed | None:
    """The two first amounts of different things, subtracted."""
    items, unit = _amounts(found)
    pair = [items[0]] if items else []
    for it in items[1:]:
        if not same_thing(it.words, pair[0].words):
            pair.append(it)
            break
    if len(pair) < 2:
        return None
    a, b = pair
    text = found.pack.say(
        "difference",
        diff=amount(abs(a.value - b.value), unit),
        a=f"{amount(a.value, unit)} {found.cite(a)}",
        b=f"{amount(b.value, unit)} {found.cite(b)}",
    )
    return Composed(text, [a.ref, b.ref], computed=True)


def _events(found: Found):
    """Distinct dated items, in reading order."""
    return [it for it in distinct(found.items) if found.day(it) is not None]


def stated_span(text: str, q) -> int | None:
    """The duration the text writes in the question's unit: a number (digits or a number word of the
    question's language) right before a word of that unit ("nine days", "zehn Tagen"); None without one."""
    words = tokens(text)
    for w, after in zip(words, words[1:], strict=False):
        n = q.pack.number(w)
        if n is not None and 0 < n <= MAX_COUNTED and q.pack.units.get(after.lower()) == q.unit:
            return n
    return None


def written_span(found: Found) -> Composed | None:
    """How long one thing lasted, as the person wrote it ("back after nine days in Lisbon"): the newest
    such statement read, in the question's unit; None when no item writes one."""
    q = found.question
    written = newest_written(found.items, lambda it: stated_span(it.words, q) or stated_span(it.own, q))
    if written is None:
        return None
    n, newest = written
    text = found.pack.say("span", n=number(n), unit=found.pack.say(q.unit), items=found.dated(newest))
    return Composed(text, [newest.ref], computed=True)


def span(found: Found, run: object) -> Composed | None:
    """From one event to the question's day ("how long ago"); how long one thing lasted, as the person
    wrote it; else between two events (a question between two events always so): the two it names,
    each the first dated item that tells of it, else the first two events read."""
    events = _events(found)
    q, pack = found.question, found.pack
    unit = pack.say(q.unit)
    if not q.since_now and not q.between:
        stated = written_span(found)
        if stated is not None:
            return stated
    if q.since_now:
        if not events:
            return None
        first = events[0]
        n = distance(found.day(first).day, found.now.astimezone(found.tz).date(), q.unit)
        text = pack.say("span_now", n=number(n), unit=unit, item=found.dated(first))
        return Composed(text, [first.ref], computed=True)
    unsettled = "unnamed"  # the first two events read, not two the question names
    if len(q.options) == 2:
        # the question names its two events: each is the first dated item that tells of it
        first, _ = first_of_each(found)
        if len(first) == 2:
            events, unsettled = [first[0], first[1]], ""
        else:
            unsettled = "pair"
    if len(events) < 2:
        return None
    a, b = sorted(events[:2], key=lambda it: found.day(it).day)
    n = distance(found.day(a).day, found.day(b).day, q.unit)
    listed = pack.say("then").join(found.dated(it) for it in (a, b))
    text = pack.say("span", n=number(n), unit=unit, items=listed)
    return Composed(text, [a.ref, b.ref], computed=True, unsettled=unsettled)


def _option(it: Item, keys: list[set[str]], lang: str) -> int | None:
    """Which of the question's options an item tells of: the one more of whose words its own words hold,
    else its turn holds; None when neither or both alike."""
    for text in (it.words, it.text):
        held = set(stems(text, lang))
        hits = [len(k & held) for k in keys]
        if max(hits) > 0 and hits.count(max(hits)) == 1:
            return hits.index(max(hits))
    return None


def first_of_each(found: Found) -> tuple[dict[int, Item], list[set[str]]]:
    """Each of the question's two options' first dated item read (an item is the option more of whose own
    words it holds), by option, with the options' words; empty when an option has no word of its own."""
    q = found.question
    keys = [set(stems(o, q.lang)) for o in q.options]
    common = set.intersection(*keys)
    keys = [k - common for k in keys]
    if not all(keys):
        return {}, keys
    first: dict[int, Item] = {}
    for it in _events(found):
        side = _option(it, keys, q.lang)
        if side is not None:
            first.setdefault(side, it)
    return first, keys


def by_option(found: Found) -> Composed | None:
    """An order between the two options the question names: each option's first dated item read, the two
    by their days; None unless both were read."""
    q, pack = found.question, found.pack
    first, keys = first_of_each(found)
    if len(first) < 2:
        return None

    def when(side: int):
        it = first[side]
        return found.day(it).day, it.said.timestamp() if it.said else 0.0

    def told(side: int) -> str:  # the option as the question names it, unless the item's words do
        it = first[side]
        named = keys[side] <= set(stems(it.words, q.lang))
        return found.dated(it) if named else f"{shown(q.options[side])}: {found.dated(it)}"

    ranked = sorted(first, key=when)
    listed = pack.say("then").join(told(s) for s in ranked)
    return Composed(pack.say("order", items=listed), [first[s].ref for s in ranked], computed=True)


def order(found: Found, run: object) -> Composed | None:
    """Which of the two options the question names came first; for a question that names none, the
    events read, by their days (reading order breaks a tie)."""
    if len(found.question.options) == 2:
        return by_option(found)
    events = _events(found)
    if len(events) < 2:
        return None
    ranked = sorted(events, key=lambda it: found.day(it).day)
    listed = found.pack.say("then").join(found.dated(it) for it in ranked)
    return Composed(found.pack.say("order", items=listed), [it.ref for it in ranked], computed=True)


ANSWERERS = (
    Answerer("count", count, read=6),
    Answerer("total", total, read=6),
    Answerer("difference", difference, read=6),
    Answerer("span", span, read=6),
    Answerer("order", order, read=6),
)
