"""The age check: how old someone is, asked of notes where no sentence naming them states an age."""

from __future__ import annotations

import pytest
from helpers.agent import ask_once, day, session, stage_of

from refind_desktop.agent.ages import AGE, asked_about, unstated

NOW = day(3, 15)


@pytest.mark.parametrize(
    ("question", "who"),
    [
        ("How old will Rachel be when I get married?", "Rachel"),
        ("How old was I when I moved to the United States?", "I"),
        ("how old is my friend Maya now?", "Maya"),
        ("How old is my son?", None),  # names nobody a sentence could be searched for
        ("How old will she be at the wedding?", None),
        ("How old is The Crown?", None),
        ("How much older am I than the average age of my team?", None),
        ("What is the name of my hamster?", None),
    ],
)
def test_whose_age_the_question_asks(question, who):
    assert asked_about(question) == who


@pytest.mark.parametrize(
    ("sentence", "is_age"),
    [
        ("Rachel is 30.", True),
        ("Rachel turned 29 in May", True),
        ("It was Rachel's 31st birthday", True),
        ("Rachel was born in 1994", True),
        ("Rachel, who's in her early thirties, called", True),
        ("My niece Rachel is a 5-year-old", True),
        ("I'm 32, so I'm in my 30s.", True),
        ("My friend Rachel's getting married next year", False),
        ("Rachel is 5 miles away", False),
        ("Rachel's flight is at 7 pm", False),
        ("Rachel is 20 minutes late", False),
    ],
)
def test_what_counts_as_a_stated_age(sentence, is_age):
    assert bool(AGE.search(sentence)) is is_age


def test_the_age_must_be_in_a_sentence_that_names_the_person():
    texts = ["I'm 32, so I'm in my 30s. My friend Rachel's getting married next year."]
    assert unstated("How old will Rachel be when I get married?", texts) == "Rachel"
    # the person's own age is in any of their sentences
    assert unstated("How old was I when Rachel got married?", texts) is None
    assert unstated("How old will Rachel be?", texts + ["Rachel turns 30 in June."]) is None
    assert unstated("What is Rachel's job?", texts) is None


SESSIONS = [
    session("s:rachel", day(2, 1), "By the way, my friend Rachel's getting married next year", "Congrats!"),
    session("s:skin", day(2, 9), "I'm 32 and looking for a skincare routine", "Try sunscreen"),
]


def ask(question, sessions=SESSIONS, **config):
    return ask_once(
        sessions,
        question,
        NOW,
        config,
        relevance=lambda text: {"relevant": [1, 2]},
        query={"keywords": ["Rachel", "old"], "date_from": None, "date_to": None},
        answer="Rachel will be 30 years old.",
    )


def test_an_age_nobody_stated_is_not_in_the_history_and_costs_no_model_call():
    result, backend = ask("How old will Rachel be when I get married?")
    assert result.abstained and result.citations == []
    assert (
        result.answer == "That is not in your history: nothing I found in your chats says how old Rachel is."
    )
    stages = [stage_of(c.schema) for c in backend.calls]
    assert "premise" not in stages and not any(c.streamed for c in backend.calls)


def test_a_stated_age_lets_the_answer_go_on_and_the_check_can_be_turned_off():
    told = SESSIONS + [session("s:bday", day(2, 20), "Rachel turned 29 last week, we had cake", "Fun")]
    result, _ = ask("How old will Rachel be when I get married?", told)
    assert not result.abstained and "30" in result.answer
    result, _ = ask("How old will Rachel be when I get married?", premise_check=False)
    assert not result.abstained and "30" in result.answer
