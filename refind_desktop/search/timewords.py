"""Relative time words in a question ("last month", "two weeks ago", "in March") as an inclusive date range.

`resolve(question, now, tz)` reads the question's time expressions against the question's own date
(`now`, taken in the zone `tz`) and returns the smallest (date_from, date_to) range holding all of
them, or None when the question has none. Ranges never end after the question's day. The rules:

- today, yesterday, the day before yesterday: that day.
- N days ago: that day; N weeks ago: the Monday–Sunday week holding the day 7·N days back;
  N months ago: that calendar month; N years ago: that calendar year (N a digit, a number word,
  "a"/"an", or "a couple of" = 2).
- last week / month / year (also "the previous ..."): the previous calendar week (Monday–Sunday;
  asked on a Monday it is the seven days before), month or year. this week / month / year: from
  its first day to today. last weekend: Saturday and Sunday of last week.
- in / over / during / within the last / past [N] days / weeks / months / years: the rolling
  window of that length ending today ("few" = 3, "couple" = 2).
- last / on / this past <weekday>: the latest such day before today.
- in / during / since / early / late <Month> [year], <Month> <day>, <Month> <year>: that month or day
  (without a year, the latest one not after today's month; "since" runs to today); in <year>.

Questions about the distance itself ("how many days ago", "how long ago") are not a range, nor are
habits ("on Saturday mornings", "on Sundays").

The range is when the event happened. A conversation can only tell of an event during or after it,
so as a filter on the dates of conversations `mention_range` runs from the event's first day to the
question's day.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta, tzinfo

Range = tuple[date, date]

_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split(), start=0
    )
}
_NUMBERS |= {"a": 1, "an": 1, "a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "couple": 2}
_NUM = (
    r"(?P<n>\d{1,3}|a couple of|couple of|a few|few|couple|an|a|"
    + "|".join(w for w in _NUMBERS if " " not in w and w not in ("a", "an", "few", "couple"))
    + ")"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m and m.lower() != "may"}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(_WEEKDAYS) + r")"

_DISTANCE = re.compile(
    r"\bhow (many|much) (days?|weeks?|months?|years?|time)\b[^?.!]*\bago\b|\bhow long ago\b"
)
_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("before_yesterday", re.compile(r"\bthe day before yesterday\b")),
    ("yesterday", re.compile(r"\byesterday\b")),
    ("today", re.compile(r"\btoday\b|\bthis (morning|afternoon|evening)\b|\btonight\b")),
    ("ago", re.compile(rf"\b{_NUM} {_UNIT} ago\b")),
    ("rolling", re.compile(rf"\b(in|over|during|within|for) the (last|past) (?:{_NUM} )?{_UNIT}\b")),
    ("last_weekend", re.compile(r"\blast weekend\b")),
    (
        "last_unit",
        re.compile(
            r"\b(?<!the )(last|previous) (?P<unit>week|month|year)\b|\bthe previous (?P<unit2>week|month|year)\b"
        ),
    ),
    ("this_unit", re.compile(r"\bthis (?P<unit>week|month|year)\b")),
    (
        "weekday",
        re.compile(rf"\b(last|on|this past|past) {_WEEKDAY}\b(?! (mornings|afternoons|evenings|nights)\b)"),
    ),
    ("month_day", re.compile(rf"\b{_MONTH} (?P<day>\d{{1,2}})(st|nd|rd|th)?\b(?!,? ?\d{{4}})")),
    (
        "month",
        re.compile(
            rf"\b(?P<lead>in|during|since|early|late|mid|last|of|through) (early |late |mid-?)?{_MONTH}(?: (?P<year>(19|20)\d\d))?\b"
        ),
    ),
    ("month", re.compile(rf"\b(?P<lead>and|or) (?!may\b){_MONTH}(?: (?P<year>(19|20)\d\d))?\b")),
    ("month_year", re.compile(rf"\b{_MONTH},? (?P<year>(19|20)\d\d)\b")),
    ("year", re.compile(r"\b(in|during|since) (?P<year>(19|20)\d\d)\b")),
]


def _count(text: str | None) -> int:
    if not text:
        return 1
    return int(text) if text.isdigit() else _NUMBERS[text]


def _month_range(year: int, month: int) -> Range:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _shift_month(year: int, month: int, back: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) - back
    return k // 12, k % 12 + 1


def _week(day: date) -> Range:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _latest_month(today: date, month: int) -> int:
    """The year of the latest `month` not after today's month."""
    return today.year if month <= today.month else today.year - 1


def _rule(kind: str, m: re.Match[str], today: date) -> Range | None:
    g = m.groupdict()
    if kind == "before_yesterday":
        d = today - timedelta(days=2)
        return d, d
    if kind == "yesterday":
        d = today - timedelta(days=1)
        return d, d
    if kind == "today":
        return today, today
    if kind == "ago":
        n, unit = _count(g["n"]), g["unit"]
        if unit == "day":
            d = today - timedelta(days=n)
            return d, d
        if unit == "week":
            return _week(today - timedelta(days=7 * n))
        if unit == "month":
            return _month_range(*_shift_month(today.year, today.month, n))
        return date(today.year - n, 1, 1), date(today.year - n, 12, 31)
    if kind == "rolling":
        n, unit = _count(g.get("n")), g["unit"]
        if unit == "day":
            start = today - timedelta(days=n)
        elif unit == "week":
            start = today - timedelta(days=7 * n)
        elif unit == "month":
            y, mo = _shift_month(today.year, today.month, n)
            start = date(y, mo, min(today.day, calendar.monthrange(y, mo)[1]))
        else:
            start = _safe_date(today.year - n, today.month, today.day)
        return start, today
    if kind == "last_weekend":
        monday = today - timedelta(days=today.weekday())
        return monday - timedelta(days=2), monday - timedelta(days=1)
    if kind == "last_unit":
        unit = g.get("unit") or g.get("unit2")
        if unit == "week":
            monday = today - timedelta(days=today.weekday())
            return monday - timedelta(days=7), monday - timedelta(days=1)
        if unit == "month":
            return _month_range(*_shift_month(today.year, today.month, 1))
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    if kind == "this_unit":
        unit = g["unit"]
        if unit == "week":
            return today - timedelta(days=today.weekday()), today
        if unit == "month":
            return today.replace(day=1), today
        return date(today.year, 1, 1), today
    if kind == "weekday":
        back = (today.weekday() - _WEEKDAYS[g["weekday"]]) % 7 or 7
        d = today - timedelta(days=back)
        return d, d
    if kind == "month_day":
        month, day = _MONTHS[g["month"]], int(g["day"])
        year = _latest_month(today, month)
        if (month, day) > (today.month, today.day) and month == today.month:
            year -= 1
        d = _safe_date(year, month, day)
        return (d, d) if d.day == day else None
    if kind == "month":
        month = _MONTHS[g["month"]]
        if g.get("year"):
            year = int(g["year"])
        elif g["lead"] == "last" and month == today.month:
            year = today.year - 1
        else:
            year = _latest_month(today, month)
        lo, hi = _month_range(year, month)
        return (lo, today) if g["lead"] == "since" else (lo, hi)
    if kind == "month_year":
        return _month_range(int(g["year"]), _MONTHS[g["month"]])
    if kind == "year":
        year = int(g["year"])
        lo, hi = date(year, 1, 1), date(year, 12, 31)
        return (lo, today) if m.group(1) == "since" else (lo, hi)
    return None


def _safe_date(year: int, month: int, day: int) -> date:
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def resolve(question: str, now: datetime | date, tz: tzinfo | None = None) -> Range | None:
    """The inclusive date range the question's relative time words name, or None.

    `now` is the question's date (a datetime is read in `tz`, default its own zone; a date as is).
    """
    if isinstance(now, datetime):
        today = (now.astimezone(tz) if tz is not None and now.tzinfo else now).date()
    else:
        today = now
    text = " ".join(question.lower().replace("’", "'").split())
    text = _DISTANCE.sub(" ", text)
    found: list[Range] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _RULES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # already read by an earlier, more specific rule
            r = _rule(kind, m, today)
            if r is None:
                continue
            taken.append(m.span())
            found.append(r)
    if not found:
        return None
    lo = min(r[0] for r in found)
    hi = min(max(r[1] for r in found), today)
    return (lo, hi) if lo <= hi else None


def mention_range(question: str, now: datetime | date, tz: tzinfo | None = None) -> Range | None:
    """The dates of the conversations that can tell of the question's event: from the first day of
    its time words' range to the question's day (None without time words)."""
    span = resolve(question, now, tz)
    if span is None:
        return None
    if isinstance(now, datetime):
        today = (now.astimezone(tz) if tz is not None and now.tzinfo else now).date()
    else:
        today = now
    return span[0], today
