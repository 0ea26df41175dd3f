"""Dates the program computes with: an event's day from the words a turn uses for it ("yesterday",
"on January 10th", "vor drei Wochen"), read by dateparser against the turn's own time; calendar
distances between days; days written in the question's language."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from ..lang import Pack
from ..search.timewords import month_range, week_range, year_range

_lock = threading.Lock()


@dataclass(frozen=True)
class Day:
    """A day the program dates something by, and how precisely it is known."""

    day: date
    period: str = "day"
    """day, week, month or year: "in March" names a month, "yesterday" a day."""

    def bounds(self) -> tuple[date, date]:
        """The first and last day it can mean ("in March" is any day of March, "last week" any day of
        that Monday-to-Sunday week)."""
        d = self.day
        if self.period == "year":
            return year_range(d.year)
        if self.period == "month":
            return month_range(d.year, d.month)
        if self.period == "week":
            return week_range(d)
        return d, d


def local_day(when: datetime | None, tz: tzinfo) -> date | None:
    """The day of a time in the user's zone (a naive time is taken as UTC)."""
    if when is None:
        return None
    if when.tzinfo is None:
        return when.date()
    return when.astimezone(tz).date()


def event_day(words: str, said: datetime | None, tz: tzinfo, languages: tuple[str, ...]) -> Day | None:
    """The day `words` (a turn's own words for when something happened or will happen) name, read
    against the turn's time `said`; None when they name no day. A day written without its year or week
    ("am 23. Mai", "on Thursday") is the one nearest to when the turn was written, before or after it:
    people write of what is coming as often as of what has been (the earlier one on a tie). Words
    dateparser cannot read whole are searched for a date inside them ("am 10. Januar")."""
    words = " ".join(str(words or "").split())[:80]
    if not words or said is None:
        return None
    base = said.astimezone(tz).replace(tzinfo=None) if said.tzinfo else said
    langs = list(dict.fromkeys(languages))
    read = [_parse(words, base, langs, prefer) for prefer in ("past", "future")]
    found = [r for r in read if r is not None]
    if not found:
        return None
    day, period = min(found, key=lambda r: (abs((r[0] - base.date()).days), r[0]))
    return Day(day, period if period in ("day", "week", "month", "year") else "day")


def dated_in(words: str, said: datetime | None, tz: tzinfo, languages: tuple[str, ...]) -> Day | None:
    """The day a date written with a number inside `words` names ("got them on January 10th", "am
    3.5.", "3 days ago"), read as `event_day` reads it; None when `words` write no such day (words
    without a number, "last time", "on Sunday", are left to the reading's own time words, and so is a
    year or a month alone)."""
    if said is None or not any(c.isdigit() for c in words):
        return None
    from dateparser.search import search_dates  # deferred: loads its language data on first use

    base = said.astimezone(tz).replace(tzinfo=None) if said.tzinfo else said
    with _lock:
        try:
            hits = (
                search_dates(
                    words[:200], languages=list(dict.fromkeys(languages)), settings={"RELATIVE_BASE": base}
                )
                or []
            )
        except (ValueError, OverflowError, TypeError):
            return None
    for text, _ in hits:
        if any(c.isdigit() for c in text):
            day = event_day(text, said, tz, languages)
            if day is not None and day.period == "day":
                return day
    return None


def _parse(words: str, base: datetime, langs: list[str], prefer: str) -> tuple[date, str] | None:
    """dateparser's reading of `words` against `base`, preferring dates from `prefer` ("past" or
    "future") when the words leave it open."""
    from dateparser.date import DateDataParser  # deferred: loads its language data on first use
    from dateparser.search import search_dates

    settings = {"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_TIME_AS_PERIOD": True}
    with _lock:
        try:
            data = DateDataParser(languages=langs, settings=settings).get_date_data(words)
            found, period = (data.date_obj, data.period or "day") if data else (None, "day")
            if found is None:
                hits = search_dates(words, languages=langs, settings=settings) or []
                found = hits[0][1] if hits else None
        except (ValueError, OverflowError, TypeError):
            return None
    return (found.date(), period) if found is not None else None


def distance(a: date, b: date, unit: str) -> int:
    """Whole calendar `unit`s (days, weeks, months, years) between two days, as a person counts them:
    months and years by the calendar, weeks as days / 7 rounded to the nearest."""
    if a > b:
        a, b = b, a
    days = (b - a).days
    if unit == "weeks":
        return round(days / 7)
    if unit in ("months", "years"):
        months = (b.year - a.year) * 12 + b.month - a.month - (1 if b.day < a.day else 0)
        return months if unit == "months" else months // 12
    return days


def written_day(day: Day | date, pack: Pack) -> str:
    """ "7 May 2023" / "7. Mai 2023" (or "May 2023", "2023" for a month or a year, "the week of Monday
    1 May 2023" for a week) in the pack's language."""
    d = day.bounds()[0] if isinstance(day, Day) else day  # a week is named by its first day, its Monday
    period = day.period if isinstance(day, Day) else "day"
    if period == "year":
        return str(d.year)
    if period == "month":
        return f"{pack.month_name(d.month)} {d.year}"
    written = pack.say("day", d=d.day, month=pack.month_name(d.month), y=d.year)
    return pack.say("week", day=written) if period == "week" else written
