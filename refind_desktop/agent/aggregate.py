"""Let code do what a small model cannot: the model extracts items (each with a citation tag) under a
JSON schema, the program counts, sums, orders and measures dates, and writes the answer with each item cited.

Item dates are facts the program has: the day the person's own sentence about the item names ("on
January 10th", "last week": agent/eventdays.py), else the cited turn's timestamp or its session's
date, taken in the user's time zone. The question's current time comes from the run (`now`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from .classify import QuestionKind
from .eventdays import StatedDay

_MAX_ITEMS = 12


def items_schema(labels: list[str]) -> dict:
    """The extraction reply: items citing one of `labels` ("S1 T4"), a short name and an optional number."""
    item = {
        "type": "object",
        "properties": {
            "tag": {"type": "string", "enum": labels},
            "item": {"type": "string", "maxLength": 80},
            "value": {"type": ["number", "null"]},
        },
        "required": ["tag", "item", "value"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"items": {"type": "array", "items": item, "maxItems": _MAX_ITEMS}},
        "required": ["items"],
        "additionalProperties": False,
    }


INSTRUCTIONS = {
    "count": "List each distinct thing the question counts, once, with the tag of the turn that "
    "mentions it. value: how many this item stands for when the text gives a number, else null. If a "
    "later session updates a number, list only the latest.",
    "sum": "List each amount the question adds up, with the tag of the turn that states it. value: the "
    "number only (no units or currency signs).",
    "difference": "List the two amounts the question compares, with the tag of the turn that states "
    "each. value: the number only (no units or currency signs).",
    "date_diff": "List the events the question names, with the tag of the turn where each is mentioned. "
    "value: null.",
    "order": "List the things the question compares, with the tag of the turn where each happened. "
    "value: null.",
}


@dataclass(frozen=True)
class Item:
    """One extracted item: what it is, its number (if any), where it is cited and when it happened."""

    what: str
    value: float | None
    ref: tuple[str, int]
    tag: str
    when: datetime | None
    currency: str = ""
    """The money sign its amount was written with ("$", "€", "£", "¥"), when it is money."""
    stated: StatedDay | None = None
    """The days the person's own sentence about it names ("on January 10th"), when it names any."""


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100, "twice": 2, "once": 1, "dozen": 12}


def stated(value: float, text: str) -> bool:
    """True when `value` is written in `text` (digits, with or without thousands commas, or a number
    word): the program keeps only numbers the cited turn really holds."""
    for m in _NUMBER.finditer(text):
        try:
            if abs(float(m.group(0).replace(",", "")) - value) < 1e-9:
                return True
        except ValueError:
            continue
    return any(_WORD_NUMBERS.get(w) == value for w in re.findall(r"[a-z]+", text.lower()))


_COUNT_STOP = frozenset(
    "of in from for at on with to by about during since before after did do does have has had are is "
    "was were will would can could i i've i'd i'm i'll my we we've our you your me the a an that which "
    "who".split()
)


def counted_noun(question: str) -> str | None:
    """The head noun a "how many ..." question counts ("How many Korean restaurants have I tried" →
    "restaurants"), or None."""
    m = re.search(r"\b(?:how many|(?:total )?number of)\s+([^?.,;]+)", question, re.IGNORECASE)
    if not m:
        return None
    phrase: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z'-]*", m.group(1)):
        if word.lower() in _COUNT_STOP:
            break
        phrase.append(word.lower())
    return phrase[-1] if phrase else None


def _stem(word: str) -> str:
    word = word.lower()
    for end in ("ies", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


_ONES_REACH = 200
"""How far back (characters) "N ones" looks for the counted noun it stands for."""

_COUNT_WORD = r"\d{1,3}|" + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))


def stated_counts(noun: str, text: str) -> list[int]:
    """The counts of `noun` written in `text` ("four Korean restaurants", "10 amateur comedians",
    "twice" for times), in order; numbers naming something else are not counts."""
    stem = re.escape(_stem(noun))
    found: list[int] = []
    if noun.lower() in ("time", "times"):
        for m in re.finditer(r"\b(twice|once|(" + _COUNT_WORD + r")\s+times)\b", text, re.IGNORECASE):
            word = (m.group(2) or m.group(1)).lower()
            found.append(int(word) if word.isdigit() else _WORD_NUMBERS[word])
        return found
    gap = r"(?:(?!(?:" + "|".join(_COUNT_STOP) + r"|dollars?|hours?|minutes?|days?)\b)[A-Za-z'-]+\s+)"
    pattern = rf"\b({_COUNT_WORD})\s+{gap}{{0,3}}?{stem}\w*"
    matches = list(re.finditer(pattern, text, re.IGNORECASE))
    # "... Korean restaurants lately? I've tried four different ones": "ones" after the noun stands for it
    for m in re.finditer(rf"\b({_COUNT_WORD})\s+{gap}{{0,2}}?ones\b", text, re.IGNORECASE):
        if re.search(rf"\b{stem}", text[max(0, m.start() - _ONES_REACH) : m.start()], re.IGNORECASE):
            matches.append(m)
    # "I'm on episode 12": the noun then a number (a place in a series counts the ones before it)
    single = re.escape(noun.lower()[:-1] if noun.lower().endswith("s") else noun.lower())
    matches += re.finditer(rf"\b{single}\s+(\d{{1,3}})\b(?!\s*(?:%|percent|am|pm|:))", text, re.IGNORECASE)
    for m in sorted(matches, key=lambda m: m.start()):
        word = m.group(1).lower()
        n = int(word) if word.isdigit() else _WORD_NUMBERS[word]
        if 0 < n <= 500:
            found.append(n)
    return found


def summed_stated(found: list[StatedCount]) -> tuple[int, list[StatedCount]]:
    """A total over sessions: the largest count stated in each session, added up."""
    last: dict[str, StatedCount] = {}
    for s in found:
        if s.ref[0] not in last or s.value > last[s.ref[0]].value:
            last[s.ref[0]] = s
    parts = list(last.values())
    return sum(s.value for s in parts), parts


def summed_sentence(noun: str, found: list[StatedCount]) -> tuple[str, list[StatedCount]]:
    """The answer from counts stated per session, added ("27 episodes in total: 12 [S1 T0] + 15
    [S2 T1]."), and the counts it adds."""
    total, parts = summed_stated(found)
    return f"{total} {noun} in total: " + " + ".join(f"{s.value} {s.tag}" for s in parts) + ".", parts


_SIGNS = {
    "$": "$",
    "€": "€",
    "£": "£",
    "¥": "¥",
    "usd": "$",
    "dollar": "$",
    "dollars": "$",
    "bucks": "$",
    "eur": "€",
    "euro": "€",
    "euros": "€",
    "gbp": "£",
    "yen": "¥",
    "jpy": "¥",
}
_AMOUNT = r"(\d[\d,]*(?:\.\d+)?)"
_MONEY_ANY = re.compile(
    rf"([$€£¥])\s?{_AMOUNT}(k\b)?|{_AMOUNT}(k)?\s?(usd|dollars?|bucks|eur|euros?|gbp|yen|jpy)\b", re.I
)


def money_amounts(text: str) -> list[tuple[float, str]]:
    """The money amounts written in `text` with their sign ("$1,200", "30 euros" → (30.0, "€"), "$5k"
    → (5000.0, "$")); bare numbers ("2 hours", "room 12") are not money."""
    found = []
    for m in _MONEY_ANY.finditer(text):
        sign, digits, k = (
            (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(6), m.group(4), m.group(5))
        )
        try:
            value = float(digits.replace(",", ""))
        except ValueError:
            continue
        found.append((value * 1000 if k else value, _SIGNS[sign.lower()]))
    return found


def money_sign(value: float, text: str) -> str | None:
    """The sign `value` is written with as money in `text`, or None when `text` holds no such amount."""
    return next((sign for amount, sign in money_amounts(text) if abs(amount - value) < 1e-9), None)


def amount_in(item: str, turn_text: str) -> float | None:
    """The amount of an item the model named without a value: a number written in the item itself
    ("$120 hotel"), else the only money amount in the person's own words of the cited turn; None when
    that is not one number."""
    for m in _NUMBER.finditer(item):
        try:
            return float(m.group(0).replace(",", ""))
        except ValueError:
            continue
    amounts = {value for value, _ in money_amounts(turn_text)}
    return amounts.pop() if len(amounts) == 1 else None


def local_day(when: datetime | None, tz: tzinfo) -> date | None:
    """The calendar day of `when` in the user's zone (naive times are taken as UTC)."""
    if when is None:
        return None
    if when.tzinfo is None:
        from datetime import UTC

        when = when.replace(tzinfo=UTC)
    return when.astimezone(tz).date()


def _named(it: Item, exact: bool) -> bool:
    """Whether its sentence names the day it happened (with `exact`: one day, not a range)."""
    return it.stated is not None and (it.stated.exact or not exact)


def event_day(it: Item, tz: tzinfo, exact: bool) -> date | None:
    """The day `it` happened: the day its sentence names (with `exact`, only when that is one day;
    else the middle of the range it names), or the day of its chat."""
    if _named(it, exact):
        return it.stated.middle  # type: ignore[union-attr]
    return local_day(it.when, tz)


def _unsure(items: list[Item], tz: tzinfo, exact: bool) -> bool:
    """True when an item dated only by its chat shares that chat's day with another item: the
    chat's day is when it was told, and beside a day the other's sentence names ("a month ago")
    it says nothing about which came first (between items dated by their chats alone, the chats'
    order is the events' order, as before)."""
    told = [_named(it, exact) for it in items]
    if all(told) or not any(told):
        return False
    days = [local_day(it.when, tz) for it in items]
    return any(not told[i] and days.count(days[i]) > 1 for i in range(len(items)))


def months_between(a: date, b: date) -> int:
    """Whole calendar months from `a` to `b` (a <= b): 2023-01-31 → 2023-02-28 is 0, → 2023-03-01 is 1."""
    months = (b.year - a.year) * 12 + (b.month - a.month)
    return months - 1 if b.day < a.day else months


def span(a: date, b: date, unit: str) -> int:
    """Whole `unit`s (days, weeks, months, years) from `a` to `b` (order-insensitive)."""
    a, b = min(a, b), max(a, b)
    if unit == "weeks":
        return (b - a).days // 7
    if unit == "months":
        return months_between(a, b)
    if unit == "years":
        return months_between(a, b) // 12
    return (b - a).days


def _num(v: float) -> str:
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.2f}".rstrip("0").rstrip(".")


_MONEY = re.compile(
    r"\$|\bdollars?\b|\bspend|\bspent|\bcost|\bpaid|\bpay\b|\bprice|\bmoney|\braise|\bearn|\bsave", re.I
)
_COUNTED_UNIT = re.compile(
    r"\bhow many (?:\w+ )?(?:hours?|minutes?|days?|weeks?|months?|years?|miles?|kilomet\w*|km|pages?|"
    r"times|steps|books|episodes)\b",
    re.I,
)


def money_question(question: str) -> bool:
    """True when the question asks for an amount of money ("How much did I spend", "total cost"), not
    for a count of units that shares its verbs ("How many hours did I spend driving")."""
    return bool(_MONEY.search(question)) and not _COUNTED_UNIT.search(question)


def _plural(n: int, noun: str) -> str:
    """ "1 day", "3 days": a plural noun's trailing s dropped for one."""
    return f"{n} {noun[:-1] if n == 1 and noun.endswith('s') else noun}"


def _sign(question: str, items: list[Item]) -> str | None:
    """The money sign to write the amounts with: the items' one sign ("$" when the question is about
    money and they carry none), "" for amounts that are not money, None for mixed currencies."""
    signs = {it.currency for it in items if it.currency}
    if len(signs) > 1:
        return None
    if signs:
        return signs.pop()
    return "$" if money_question(question) else ""


def compute(kind: QuestionKind, question: str, items: list[Item], now: datetime, tz: tzinfo) -> str | None:
    """The answer sentence for an aggregation question, or None when the items cannot answer it."""
    if not items:
        return None
    cite = lambda it: f"{it.what} {it.tag}"  # noqa: E731 - a one-line formatter
    if kind.kind == "count":
        total = sum(int(it.value) if it.value and it.value > 0 else 1 for it in items)
        listed = "; ".join(
            cite(it) + (f" ({_num(it.value)})" if it.value and it.value > 1 else "") for it in items
        )
        noun = counted_noun(question)
        return f"{_plural(total, noun) if noun else total} in total: {listed}."
    if kind.kind == "sum":
        valued = [it for it in items if it.value is not None]
        if not valued:
            return None
        total = sum(it.value for it in valued)  # type: ignore[misc]
        money = _sign(question, valued)
        if money is None:
            return None  # euros and dollars do not add up
        parts = " + ".join(f"{money}{_num(it.value)} ({it.what} {it.tag})" for it in valued)  # type: ignore[arg-type]
        return (
            f"{money}{_num(total)} in total: {parts}."
            if len(valued) > 1
            else f"{money}{_num(total)} ({valued[0].what} {valued[0].tag})."
        )
    if kind.kind == "difference":
        valued = [it for it in items if it.value is not None]
        if len(valued) < 2:
            return None
        hi, lo = max(valued, key=lambda it: it.value), min(valued, key=lambda it: it.value)  # type: ignore[arg-type,return-value]
        money = _sign(question, [hi, lo])
        if money is None:
            return None
        return (
            f"{money}{_num(hi.value - lo.value)} more: {money}{_num(hi.value)} ({hi.what} {hi.tag}) "  # type: ignore[operator]
            f"against {money}{_num(lo.value)} ({lo.what} {lo.tag})."  # type: ignore[arg-type]
        )
    # counting days needs days: a range ("three weeks ago") orders events but is not counted from
    dated = [(event_day(it, tz, exact=kind.kind == "date_diff"), it) for it in items]
    dated = [(d, it) for d, it in dated if d is not None]
    if not dated:
        return None
    dated.sort(key=lambda x: (x[0], x[1].ref))
    one_day = len({d for d, _ in dated}) < 2 or _unsure(items, tz, exact=kind.kind == "date_diff")
    if kind.kind == "order":
        if one_day:
            return None  # on one day the dates cannot tell which came first
        seq = ", then ".join(f"{it.what} ({d.isoformat()} {it.tag})" for d, it in dated)
        return f"{dated[0][1].what} came first: {seq}."
    if kind.kind == "date_diff":
        today = now.astimezone(tz).date() if now.tzinfo else now.date()
        unit = kind.unit
        if kind.since_now:
            d, it = dated[0]
            n = span(d, today, unit)
            return f"{_plural(n, unit)} ago: {it.what} was on {d.isoformat()} {it.tag}, today is {today.isoformat()}."
        if one_day:
            return None  # a span between two events needs two dates; one date is no answer
        (d1, first), (d2, last) = dated[0], dated[-1]
        n = span(d1, d2, unit)
        extra = f" ({(d2 - d1).days} days)" if unit != "days" else ""
        return (
            f"{_plural(n, unit)}{extra}: from {first.what} on {d1.isoformat()} {first.tag} "
            f"to {last.what} on {d2.isoformat()} {last.tag}."
        )
    return None


@dataclass(frozen=True)
class StatedCount:
    """A count the person wrote ("I've tried four Korean restaurants"), where and when."""

    value: int
    ref: tuple[str, int]
    tag: str
    when: datetime | None


def find_stated(
    noun: str, turns: list[tuple[tuple[str, int], str, str, datetime | None]]
) -> list[StatedCount]:
    """Every count of `noun` in the person's own words of `turns` ((ref, tag, own words, when)), oldest
    first (undated last, then by turn)."""
    found = [
        StatedCount(n, ref, tag, when)
        for ref, tag, text, when in turns
        for n in stated_counts(noun, text)[:1]
    ]
    far = datetime.max

    def key(s: StatedCount) -> tuple:
        w = s.when.replace(tzinfo=None) if s.when else far
        return (w, s.ref[1])

    return sorted(found, key=key)


def stated_sentence(noun: str, found: list[StatedCount], tz: tzinfo) -> str:
    """The answer from counts the person stated: the latest one wins (a later statement updates an
    earlier one), earlier ones are named."""
    last = found[-1]
    day = local_day(last.when, tz)
    on = f" on {day.isoformat()}" if day else ""
    earlier = [s for s in found[:-1] if s.value != last.value]
    before = "; ".join(
        f"{s.value} {s.tag}" + (f" on {d.isoformat()}" if (d := local_day(s.when, tz)) else "")
        for s in earlier
    )
    tail = f" Earlier you said {before}." if before else ""
    return f"{last.value} {noun}: you said so{on} {last.tag}.{tail}"
