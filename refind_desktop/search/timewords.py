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

from ..lang import Pack, pack_for

Range = tuple[date, date]


def _count(text: str | None, pack: Pack) -> int:
    if not text:
        return 1
    words = text.split()
    if len(words) > 1:  # "a couple of", "a few", "ein paar": the number word among them
        return next((pack.number(w) for w in reversed(words) if pack.number(w) not in (None, 1)), 1)
    return pack.number(text) or 1


def year_range(year: int) -> Range:
    """The first and last day of a year."""
    return date(year, 1, 1), date(year, 12, 31)


def month_range(year: int, month: int) -> Range:
    """The first and last day of a month."""
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _shift_month(year: int, month: int, back: int) -> tuple[int, int]:
    k = year * 12 + (month - 1) - back
    return k // 12, k % 12 + 1


def week_range(day: date) -> Range:
    """The Monday-to-Sunday week that holds `day`."""
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def _latest_month(today: date, month: int) -> int:
    """The year of the latest `month` not after today's month."""
    return today.year if month <= today.month else today.year - 1


def _rule(kind: str, m: re.Match[str], today: date, pack: Pack) -> Range | None:
    g = {k: (v.lower() if isinstance(v, str) else v) for k, v in m.groupdict().items()}
    unit = pack.units.get(g.get("unit") or "", g.get("unit") or "").removesuffix("s")
    if kind == "before_yesterday":
        d = today - timedelta(days=2)
        return d, d
    if kind == "yesterday":
        d = today - timedelta(days=1)
        return d, d
    if kind == "today":
        return today, today
    if kind == "ago":
        n = _count(g["n"], pack)
        if unit == "day":
            d = today - timedelta(days=n)
            return d, d
        if unit == "week":
            return week_range(today - timedelta(days=7 * n))
        if unit == "month":
            return month_range(*_shift_month(today.year, today.month, n))
        return year_range(today.year - n)
    if kind == "rolling":
        n = _count(g.get("n"), pack)
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
        sunday = week_range(today - timedelta(days=7))[1]
        return sunday - timedelta(days=1), sunday
    if kind == "last_unit":
        if unit == "week":
            return week_range(today - timedelta(days=7))
        if unit == "month":
            return month_range(*_shift_month(today.year, today.month, 1))
        return year_range(today.year - 1)
    if kind == "this_unit":
        if unit == "week":
            return week_range(today)[0], today
        if unit == "month":
            return today.replace(day=1), today
        return date(today.year, 1, 1), today
    if kind == "weekday":
        back = (today.weekday() - pack.weekdays[g["weekday"]]) % 7 or 7
        d = today - timedelta(days=back)
        return d, d
    if kind == "month_day":
        month, day = pack.months[g["month"].rstrip(".")], int(g["day"])
        year = _latest_month(today, month)
        if (month, day) > (today.month, today.day) and month == today.month:
            year -= 1
        d = _safe_date(year, month, day)
        return (d, d) if d.day == day else None
    if kind == "month":
        month = pack.months[g["month"].rstrip(".")]
        if g.get("year"):
            year = int(g["year"])
        elif g["lead"] in _LAST and month == today.month:
            year = today.year - 1
        else:
            year = _latest_month(today, month)
        lo, hi = month_range(year, month)
        return (lo, today) if g["lead"] in _SINCE else (lo, hi)
    if kind == "month_year":
        return month_range(int(g["year"]), pack.months[g["month"].rstrip(".")])
    if kind == "year":
        year = int(g["year"])
        lo, hi = year_range(year)
        return (lo, today) if g.get("lead") in _SINCE else (lo, hi)
    return None


_SINCE = frozenset({"since", "seit"})
"""Leads of a range that runs on to today ("since March", "seit März")."""
_LAST = frozenset({"last", "letzten"})
"""Leads of "the last such month" ("last May")."""


def _safe_date(year: int, month: int, day: int) -> date:
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def resolve(
    question: str, now: datetime | date, tz: tzinfo | None = None, pack: Pack | None = None
) -> Range | None:
    """The inclusive date range the question's relative time words name, or None.

    `now` is the question's date (a datetime is read in `tz`, default its own zone; a date as is);
    `pack` the question's language (English by default).
    """
    pack = pack or pack_for("en")
    if isinstance(now, datetime):
        today = (now.astimezone(tz) if tz is not None and now.tzinfo else now).date()
    else:
        today = now
    text = " ".join(question.lower().replace("’", "'").split())
    if pack.time_distance is not None:
        text = pack.time_distance.sub(" ", text)
    found: list[Range] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in pack.time_rules:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # already read by an earlier, more specific rule
            r = _rule(kind, m, today, pack)
            if r is None:
                continue
            taken.append(m.span())
            found.append(r)
    if not found:
        return None
    lo = min(r[0] for r in found)
    hi = min(max(r[1] for r in found), today)
    return (lo, hi) if lo <= hi else None


def mention_range(
    question: str, now: datetime | date, tz: tzinfo | None = None, pack: Pack | None = None
) -> Range | None:
    """The dates of the conversations that can tell of the question's event: from the first day of
    its time words' range to the question's day (None without time words)."""
    span = resolve(question, now, tz, pack)
    if span is None:
        return None
    if isinstance(now, datetime):
        today = (now.astimezone(tz) if tz is not None and now.tzinfo else now).date()
    else:
        today = now
    return span[0], today
