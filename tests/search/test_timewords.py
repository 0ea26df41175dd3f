"""The relative-date resolver on a table of phrases and question dates (worked out on a calendar)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from refind_desktop.search.timewords import resolve

D = date
# (question, question's day, expected inclusive range or None)
TABLE = [
    # plain days; the question's day is Tue 2023-05-30 unless said otherwise
    ("What did I cook yesterday?", D(2023, 5, 30), (D(2023, 5, 29), D(2023, 5, 29))),
    ("what did i do today", D(2023, 5, 30), (D(2023, 5, 30), D(2023, 5, 30))),
    ("the day before yesterday I ran", D(2023, 5, 30), (D(2023, 5, 28), D(2023, 5, 28))),
    ("yesterday, on the first of the month", D(2023, 3, 1), (D(2023, 2, 28), D(2023, 2, 28))),
    ("yesterday", D(2024, 3, 1), (D(2024, 2, 29), D(2024, 2, 29))),  # leap year
    ("yesterday", D(2024, 1, 1), (D(2023, 12, 31), D(2023, 12, 31))),  # year end
    # N units ago
    ("three days ago I bought", D(2023, 5, 30), (D(2023, 5, 27), D(2023, 5, 27))),
    ("two weeks ago", D(2023, 5, 30), (D(2023, 5, 15), D(2023, 5, 21))),  # the Mon-Sun week of 16 May
    ("a week ago", D(2023, 1, 3), (D(2022, 12, 26), D(2023, 1, 1))),  # a week across the year end
    ("a month ago", D(2023, 1, 15), (D(2022, 12, 1), D(2022, 12, 31))),
    ("two months ago", D(2023, 3, 31), (D(2023, 1, 1), D(2023, 1, 31))),
    ("a couple of years ago", D(2023, 5, 30), (D(2021, 1, 1), D(2021, 12, 31))),
    # last / this
    ("What did I read last week?", D(2023, 5, 30), (D(2023, 5, 22), D(2023, 5, 28))),
    ("last week", D(2023, 5, 29), (D(2023, 5, 22), D(2023, 5, 28))),  # on a Monday: the week before
    ("last week", D(2023, 6, 4), (D(2023, 5, 22), D(2023, 5, 28))),  # on a Sunday: not this week
    ("last month", D(2023, 1, 10), (D(2022, 12, 1), D(2022, 12, 31))),  # across the year end
    ("last month", D(2023, 3, 31), (D(2023, 2, 1), D(2023, 2, 28))),  # month end, short February
    ("last year", D(2023, 1, 1), (D(2022, 1, 1), D(2022, 12, 31))),
    ("this week", D(2023, 5, 29), (D(2023, 5, 29), D(2023, 5, 29))),
    ("this month", D(2023, 5, 30), (D(2023, 5, 1), D(2023, 5, 30))),
    ("this year", D(2023, 12, 31), (D(2023, 1, 1), D(2023, 12, 31))),
    ("last weekend", D(2023, 5, 30), (D(2023, 5, 27), D(2023, 5, 28))),
    ("last weekend", D(2023, 6, 4), (D(2023, 5, 27), D(2023, 5, 28))),  # asked on a Sunday
    # rolling windows
    ("in the past few months", D(2023, 5, 30), (D(2023, 2, 28), D(2023, 5, 30))),
    ("over the last two weeks", D(2023, 5, 30), (D(2023, 5, 16), D(2023, 5, 30))),
    ("in the past month", D(2023, 3, 31), (D(2023, 2, 28), D(2023, 3, 31))),
    ("during the last year", D(2024, 2, 29), (D(2023, 2, 28), D(2024, 2, 29))),
    # weekdays: the latest one before the question's day
    ("last Saturday", D(2023, 5, 30), (D(2023, 5, 27), D(2023, 5, 27))),
    ("on Tuesday", D(2023, 5, 30), (D(2023, 5, 23), D(2023, 5, 23))),  # same weekday: a week back
    ("this past Monday", D(2023, 5, 31), (D(2023, 5, 29), D(2023, 5, 29))),
    ("last Sunday", D(2023, 1, 2), (D(2023, 1, 1), D(2023, 1, 1))),
    # months and years
    ("in March", D(2023, 5, 30), (D(2023, 3, 1), D(2023, 3, 31))),
    ("in March", D(2023, 2, 10), (D(2022, 3, 1), D(2022, 3, 31))),  # not yet this year: last year's
    ("in May", D(2023, 5, 30), (D(2023, 5, 1), D(2023, 5, 30))),  # the current month, up to today
    ("last December", D(2023, 1, 5), (D(2022, 12, 1), D(2022, 12, 31))),
    ("since April", D(2023, 5, 30), (D(2023, 4, 1), D(2023, 5, 30))),
    ("in February 2024", D(2024, 5, 1), (D(2024, 2, 1), D(2024, 2, 29))),
    ("on March 5th", D(2023, 5, 30), (D(2023, 3, 5), D(2023, 3, 5))),
    ("in 2022", D(2023, 5, 30), (D(2022, 1, 1), D(2022, 12, 31))),
    ("novels I finished in January and March", D(2023, 5, 30), (D(2023, 1, 1), D(2023, 3, 31))),
    ("on Saturday morning", D(2023, 5, 30), (D(2023, 5, 27), D(2023, 5, 27))),
    # several expressions: the range holding all of them
    ("last week or two weeks ago", D(2023, 5, 30), (D(2023, 5, 15), D(2023, 5, 28))),
    # no range
    ("How many days ago did I buy the tent?", D(2023, 5, 30), None),
    ("How many weeks ago did I start yoga?", D(2023, 5, 30), None),
    ("how long ago was the trip", D(2023, 5, 30), None),
    ("I may go to the gym on Sundays", D(2023, 5, 30), None),
    ("my Sunday group rides", D(2023, 5, 30), None),
    ("What time do I wake up on Saturday mornings?", D(2023, 5, 30), None),  # a habit, not a day
    ("Which tea and may I ask", D(2023, 5, 30), None),
    ("What is my favourite tea?", D(2023, 5, 30), None),
]


@pytest.mark.parametrize(("question", "today", "expected"), TABLE)
def test_resolve_table(question: str, today: date, expected):
    assert resolve(question, today) == expected
    noon = datetime(today.year, today.month, today.day, 12, 0, tzinfo=UTC)
    assert resolve(question, noon) == expected  # a datetime is read in its own zone


def test_the_question_day_is_taken_in_the_users_zone():
    # 02:00 UTC on 1 June is still 31 May in New York and already 1 June in Tokyo
    when = datetime(2023, 6, 1, 2, 0, tzinfo=UTC)
    assert resolve("yesterday", when, ZoneInfo("America/New_York")) == (D(2023, 5, 30), D(2023, 5, 30))
    assert resolve("yesterday", when, ZoneInfo("Asia/Tokyo")) == (D(2023, 5, 31), D(2023, 5, 31))
    # "last month" at 23:30 on 31 Jan in UTC-5 is December; in UTC it is already 1 Feb -> January
    late = datetime(2023, 1, 31, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert resolve("last month", late) == (D(2022, 12, 1), D(2022, 12, 31))
    assert resolve("last month", late, UTC) == (D(2023, 1, 1), D(2023, 1, 31))


def test_mention_range_runs_from_the_event_to_the_question_day():
    from refind_desktop.search.timewords import mention_range

    assert mention_range("what did I do in April?", D(2023, 5, 1)) == (D(2023, 4, 1), D(2023, 5, 1))
    assert mention_range("where did I move from 4 years ago", D(2023, 10, 22)) == (
        D(2019, 1, 1),
        D(2023, 10, 22),
    )
    assert mention_range("my favourite tea", D(2023, 10, 22)) is None
