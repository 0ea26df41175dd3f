"""The two events a when-question names, and the sentences of the notes the program finds for them."""

from __future__ import annotations

from datetime import date

import pytest

from refind_desktop.agent.eventpairs import event_phrases, find_events, second_person


@pytest.mark.parametrize(
    ("question", "a", "b"),
    [
        (
            "How many days had passed since I bought my Adidas running shoes when I realized one of the "
            "shoelaces had broken?",
            "I bought my Adidas running shoes",
            "I realized one of the shoelaces had broken",
        ),
        (
            "How many days passed between the day I replaced my spark plugs and the day I joined the race?",
            "I replaced my spark plugs",
            "I joined the race",
        ),
        ("How many weeks had passed between Holi and the Sunday mass?", "Holi", "Sunday mass"),
        (
            "Which group did I join first, 'Page Turners' or 'Marketing Professionals'?",
            "Page Turners",
            "Marketing Professionals",
        ),
        (
            "Which event happened first, the purchase of the coffee maker or the malfunction of the mixer?",
            "purchase of the coffee maker",
            "malfunction of the mixer",
        ),
    ],
)
def test_the_question_names_two_events(question, a, b):
    assert event_phrases(question)[:2] == (a, b)


@pytest.mark.parametrize(
    "question", ["How many days ago did I buy the shoes?", "What did I buy first?", "Which bike is newer?"]
)
def test_questions_without_two_events(question):
    assert event_phrases(question) is None


def test_the_answer_speaks_to_the_person():
    assert second_person("I bought my shoes and I'm happy") == "you bought your shoes and you're happy"


FEB3 = date(2023, 2, 3)
TURNS = [
    (("s1", 0), "I need shoe tips. My sister and I went to the outlet mall.", FEB3),
    (("s1", 2), "I got new Adidas running shoes on January 10th. They are great.", FEB3),
    (("s2", 4), "One of the shoelaces on my old Converse sneakers broke on January 24th.", date(2023, 2, 5)),
    (("s3", 0), "My running club meets on Sundays.", FEB3),
]


def test_each_event_is_the_sentence_that_names_it_dated_by_its_own_words():
    a, b = find_events(
        "How many days had passed since I bought my Adidas running shoes when the shoelaces on my Converse "
        "sneakers broke?",
        TURNS,
    )
    assert (a.ref, a.stated.first, a.phrase) == (
        ("s1", 2),
        date(2023, 1, 10),
        "you bought your Adidas running shoes",
    )
    assert (b.ref, b.stated.first) == (("s2", 4), date(2023, 1, 24))


def test_no_events_when_a_phrase_matches_no_sentence_well_or_both_match_one():
    assert find_events("Which did I buy first, the Adidas shoes or the Nike cap?", TURNS) is None  # no Nike
    one = [(("s1", 0), "I bought the Adidas shoes and the Puma cap on Monday.", FEB3)]
    assert find_events("Which did I buy first, the Adidas shoes or the Puma cap?", one) is None
    assert find_events("How many days passed between A and B?", []) is None
