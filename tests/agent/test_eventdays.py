"""The day an event happened, read from the person's own sentence about it, and what the program computes
with it (ordering, days between) against the chat's date."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from refind_desktop.agent.aggregate import Item, compute
from refind_desktop.agent.classify import QuestionKind
from refind_desktop.agent.eventdays import stated_day

SAID = date(2023, 2, 3)  # a Friday
TURN = (
    "I'm looking for some shoe cleaning tips. I wore my sneakers to play basketball on February 1st. "
    "By the way, I recently got a new pair of Adidas running shoes on January 10th, and I want to keep "
    "them nice. Also, one of the shoelaces on my old Converse sneakers broke last week."
)


@pytest.mark.parametrize(
    ("what", "text", "first", "last"),
    [
        ("Adidas running shoes", TURN, date(2023, 1, 10), date(2023, 1, 10)),
        ("Converse shoelace broke", TURN, date(2023, 1, 23), date(2023, 1, 29)),  # last week: Mon-Sun
        ("basketball", TURN, date(2023, 2, 1), date(2023, 2, 1)),
        ("ukulele lessons", "I just started taking ukulele lessons with my friend Rachel today!", SAID, SAID),
        (
            "tourist from Australia",
            "I met a tourist from Australia last Thursday on the subway.",
            date(2023, 2, 2),
            date(2023, 2, 2),
        ),
        # the next sentence goes on about the thing: "I bought it ..."
        (
            "coffee maker",
            "My coffee maker is acting up. I bought it about three weeks ago, it's black and steel.",
            date(2023, 1, 9),
            date(2023, 1, 15),
        ),
    ],
)
def test_the_sentence_naming_the_item_gives_its_days(what, text, first, last):
    got = stated_day(what, text, SAID)
    assert (got.first, got.last) == (first, last)


@pytest.mark.parametrize(
    ("what", "text"),
    [
        (
            "trip to Japan",
            "I'm planning a trip to Japan in May and need hotels.",
        ),  # a plan happened on no day
        ("trip to Japan", "I will fly to Japan on Monday."),
        (
            "stand mixer",
            "My stand mixer broke. Anyway, I ran a charity 5K last month.",
        ),  # next sentence is another thing
        ("stand mixer", "My stand mixer broke and I had it repaired."),  # no time named
        ("Marketing Professionals group", "I joined a book club group last week."),  # one word of three
        ("", TURN),
    ],
)
def test_no_day_without_a_sentence_that_names_the_item_and_a_past_time(what, text):
    assert stated_day(what, text, SAID) is None


def test_no_day_without_the_chats_day():
    assert stated_day("Adidas running shoes", TURN, None) is None


def _item(what, n, chat_day, stated=None):
    when = datetime(chat_day.year, chat_day.month, chat_day.day, 12, tzinfo=UTC)
    return Item(what, None, (f"s{n}", 0), f"[S{n} T0]", when, stated=stated)


NOW = datetime(2023, 3, 1, 12, tzinfo=UTC)


def test_days_between_count_from_the_days_the_sentences_name_not_the_chat_dates():
    # both told in one chat of February 3rd: by chat dates the span is no answer; by the sentences, 14 days
    items = [
        _item("Adidas running shoes", 1, SAID, stated_day("Adidas running shoes", TURN, SAID)),
        _item("shoelace", 2, SAID, stated_day("basketball", TURN, SAID)),
    ]
    text = compute(QuestionKind("date_diff", "days"), "How many days had passed ...?", items, NOW, UTC)
    assert text == (
        "22 days: from Adidas running shoes on 2023-01-10 [S1 T0] to shoelace on 2023-02-01 [S2 T0]."
    )
    # a range ("last week") orders events but is not counted from: the chat's day stands in for it,
    # which beside a named day of the same chat says nothing: no answer (the model's sentence answers)
    items[1] = _item("shoelace", 2, SAID, stated_day("Converse shoelace broke", TURN, SAID))
    days = QuestionKind("date_diff", "days")
    assert compute(days, "How many days had passed ...?", items, NOW, UTC) is None
    # told in a later chat, the chat's day is the event's, as for events dated by their chats alone
    items[1] = _item("shoelace", 2, date(2023, 2, 20))
    text = compute(days, "How many days had passed ...?", items, NOW, UTC)
    assert text.startswith(
        "41 days: from Adidas running shoes on 2023-01-10 [S1 T0] to shoelace on 2023-02-20"
    )


def test_which_came_first_uses_the_middle_of_a_named_range():
    said = date(2023, 5, 25)
    joined = "I just joined a book club called Page Turners last week, where we discuss novels."
    items = [
        _item(
            "Marketing Professionals",
            7,
            said,
            stated_day("Marketing Professionals", "I joined Marketing Professionals yesterday.", said),
        ),
        _item("Page Turners", 1, said, stated_day("Page Turners book club", joined, said)),
    ]
    text = compute(QuestionKind("order"), "Which group did I join first?", items, NOW, UTC)
    assert text == (
        "Page Turners came first: Page Turners (2023-05-18 [S1 T0]), then Marketing Professionals "
        "(2023-05-24 [S7 T0])."
    )
