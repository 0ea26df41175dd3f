"""The three outcomes and the checks an answer must pass (agent/earn.py), end to end with the scripted
double: a stated answer, "unsure" with the closest turns verbatim, and "not in your history"."""

from __future__ import annotations

from datetime import UTC, datetime

from helpers.agent import ask_once, day, reading_of, session

from refind_desktop.agent.question import understand
from refind_desktop.eval.outcomes import draft_outcome, score_record, scores
from refind_desktop.llm.scripted import stage_of
from refind_desktop.types import Session, Turn

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)

CHATS = [
    session(
        "s:commute",
        day(3, 4),
        "I started the new job at the harbour office this week.",
        "The tram ride to the office is nice, I read on the way.",
        title="new job",
    ),
    session("s:bike", day(4, 2), "I sold my old Gazelle bike to a neighbour for 80 euros.", title="bike"),
    session(
        "s:move",
        day(4, 9),
        "We moved the harbour office to the old pier building.",
        "It rained all day, so we stayed in and played cards.",
        title="moving day",
    ),
]


def test_a_checked_answer_is_stated_with_its_citation():
    result, _ = ask_once(
        CHATS, "Which bike did I sell?", NOW, relevance={"relevant": [1]}, read=reading_of("old Gazelle bike")
    )
    assert result.outcome == "answer" and result.citations == [("s:bike", 0)]
    assert "old Gazelle bike" in result.answer and not result.answer.startswith("Unsure")


def test_a_turn_the_confirming_reading_rejects_is_shown_as_unsure_never_as_an_answer():
    # the reading copied a real sentence, but it does not answer the question: no answer is claimed
    result, backend = ask_once(
        CHATS,
        "Who did I sell my bike to?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("sold my old Gazelle bike"),
        confirm={"about": True, "answers": False},
    )
    assert result.outcome == "unsure" and not result.abstained
    assert result.answer.startswith("Unsure:") and "does not plainly answer" in result.answer
    # the closest turn, verbatim and cited, is shown for the person to judge
    assert "I sold my old Gazelle bike to a neighbour for 80 euros." in result.answer
    assert result.citations == [("s:bike", 0)]
    assert result.evidence[0]["turn"] == 0 and "Gazelle" in result.evidence[0]["text"]
    assert result.verdicts["answers"] is False and "answers" in result.verdicts["failed"]
    assert result.draft and result.draft != result.answer  # what it would have said is kept for the trace
    assert any(stage_of(c.schema) == "confirm" for c in backend.calls)


def test_words_that_name_no_thing_of_the_asked_kind_are_unsure_by_a_reading_of_the_words_alone():
    # "who" asks for a person; the copied words tell of the sale but name nobody
    result, backend = ask_once(
        CHATS,
        "Who did I sell my bike to?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("sold my old Gazelle bike"),
        named={"names": False},
    )
    assert result.outcome == "unsure" and result.verdicts["failed"][0] == "named"
    assert result.verdicts["named"] is False
    assert "what I read is not a person, which the question asks for" in result.answer
    assert "I sold my old Gazelle bike to a neighbour for 80 euros." in result.answer  # shown, verbatim
    typed = [c for c in backend.calls if stage_of(c.schema) == "named"]
    assert len(typed) == 1
    prompt = typed[0].messages[-1].content
    # the question and the answer's words, never the turn they come from
    assert "Who did I sell my bike to?" in prompt and '"sold my old Gazelle bike"' in prompt
    assert "a person" in prompt and "80 euros" not in prompt


def test_the_words_alone_are_read_only_when_the_question_asks_for_a_person_a_place_or_a_named_kind():
    asked = dict(relevance={"relevant": [1]}, read=reading_of("old Gazelle bike"))
    result, backend = ask_once(CHATS, "Which bike did I sell?", NOW, **asked)
    assert result.outcome == "answer" and result.verdicts["named"] is True
    typed = [c for c in backend.calls if stage_of(c.schema) == "named"]
    assert len(typed) == 1 and "a bike (or kind of bike)" in typed[0].messages[-1].content
    # "what did I …" asks for no type: no such reading
    asked = dict(relevance={"relevant": [1]}, read=reading_of("played cards"))
    result, backend = ask_once(CHATS, "What did we do on moving day?", NOW, **asked)
    assert result.outcome == "answer" and result.verdicts["named"] is None
    assert not any(stage_of(c.schema) == "named" for c in backend.calls)


def test_a_how_long_question_answered_without_a_number_is_unsure():
    result, _ = ask_once(
        CHATS,
        "How long is my tram ride to the office?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("The tram ride to the office is nice"),
    )
    assert result.outcome == "unsure" and "type" in result.verdicts["failed"]
    assert "not a number" in result.answer


def test_a_cited_turn_the_reading_says_is_about_something_else_is_unsure():
    # the reading copied a neighbouring turn; the confirming reading says it does not tell of the office
    asked = dict(relevance={"relevant": [1]}, read=reading_of("It rained all day"))
    result, _ = ask_once(
        CHATS, "Where is my harbour office?", NOW, confirm={"about": False, "answers": True}, **asked
    )
    assert result.outcome == "unsure" and "about" in result.verdicts["failed"]
    assert "does not tell of what the question asks about" in result.answer
    # the turn it should have cited is shown instead, verbatim: it holds the question's words
    assert "We moved the harbour office to the old pier building." in result.answer


def test_a_count_that_only_repeats_the_question_is_unsure_not_one_in_total():
    result, _ = ask_once(
        CHATS, "How many bikes did I sell?", NOW, relevance={"relevant": [1]}, read=reading_of("bike")
    )
    assert result.outcome == "unsure" and "1 in total" not in result.answer.split("\n")[0]
    assert "echo" in result.verdicts["failed"]


def test_nothing_read_states_it_and_nothing_speaks_of_it_is_not_in_the_history():
    result, _ = ask_once(
        CHATS,
        "What is my goldfish called?",
        NOW,
        relevance={"relevant": [1]},
        read={"found": False, "items": []},
    )
    assert result.outcome == "not_found" and result.abstained and result.evidence == []


def test_the_question_word_says_what_type_the_answer_must_be_in_each_language():
    def expects(text: str) -> tuple[str, str]:
        q = understand(text, NOW, UTC)
        return q.expects, q.noun

    assert expects("Who lent me the ladder?") == ("person", "")
    assert expects("Where did I leave the spare key?") == ("place", "")
    assert expects("Which jacket did I return?") == ("kind", "jacket")
    assert expects("How far is the lake from our cabin?") == ("number", "")
    assert expects("What did I cook on Sunday?") == ("", "")
    assert expects("Wer hat mir die Leiter geliehen?") == ("person", "")
    assert expects("Wo habe ich den Ersatzschlüssel gelassen?") == ("place", "")
    assert expects("Welche Jacke habe ich zurückgegeben?") == ("kind", "Jacke")


def test_outcomes_are_scored_right_wrong_or_claiming_nothing():
    assert scores("answer", True, False)["right"] == 1.0
    assert scores("answer", False, False)["wrong"] == 1.0
    unsure = scores("unsure", True, False)  # the gold words in the quoted turns earn nothing
    assert unsure["right"] == unsure["wrong"] == 0.0 and unsure["unsure"] == 1.0
    assert scores("not_found", False, False)["false_not_found"] == 1.0
    assert scores("not_found", False, True)["right"] == 1.0 and scores("answer", True, True)["wrong"] == 1.0
    # the draft of an answer the checks made unsure was stated as an answer before the checks
    rec = {"outcome": "unsure", "answer": "Unsure: …", "draft": "a neighbour", "det_correct": 0}
    assert draft_outcome(rec) == "answer"
    assert draft_outcome({"outcome": "unsure", "answer": "Unsure: …", "draft": "Unsure: …"}) == "unsure"
    got = score_record(rec, lambda text: "neighbour" in text)
    assert got["draft_right"] == 1.0 and got["right"] == 0.0 and got["unsure"] == 1.0


def messenger(sid: str, when: datetime, *lines: tuple[str, str]) -> Session:
    return Session(
        sid,
        "Emi and Jonah",
        when,
        ["Emi", "Jonah"],
        [Turn(i, t, who, when) for i, (who, t) in enumerate(lines)],
    )


CHAT = [
    messenger(
        "wa:trip",
        day(5, 2),
        ("Jonah", "Back from hiking in the Alps, my knees hurt"),
        ("Emi", "Poor knees! I was in Lisbon all week, the tiles everywhere are beautiful"),
    )
]


def test_a_question_about_a_named_person_of_the_chat_is_answered_from_their_own_messages():
    # the reading offers the other person's words: they do not answer a question about Emi
    result, _ = ask_once(
        CHAT,
        "Where did Emi go hiking?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("hiking in the Alps"),
    )
    assert result.outcome != "answer" and "Alps" not in result.answer.split("\n")[0]
    # the same words answer the question about the one who wrote them
    result, _ = ask_once(
        CHAT,
        "Where did Jonah go hiking?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("hiking in the Alps"),
    )
    assert result.outcome == "answer" and "Alps" in result.answer
    # a question of the person who asks ("I") that names someone is not limited to that someone's words
    result, _ = ask_once(
        CHAT,
        "Did I tell Emi about the hiking in the Alps?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("hiking in the Alps"),
    )
    assert result.outcome == "answer"


def test_a_when_question_takes_the_day_the_words_write_not_the_day_of_the_chat():
    chats = [session("s:shoes", day(3, 20), "I got my new running shoes on March 2nd, they are great.")]
    result, _ = ask_once(
        chats,
        "When did I get my running shoes?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_of("got my new running shoes on March 2nd"),
    )
    assert result.outcome == "answer" and "2 March 2024" in result.answer and "20 March" not in result.answer


def reading_each(**values: float | None):
    """A reading that copies, from each passage, the first of the given words a turn holds (each a word
    of the chat, with the amount it gives)."""

    def read(prompt: str) -> dict:
        task, data = prompt.split("<<<DATA", 1)
        for line in data.splitlines():
            for word, value in values.items():
                if line.startswith("[T") and word.replace("_", " ") in line:
                    item = {"turn": line[1 : line.index("]")], "words": word.replace("_", " ")}
                    item |= {k: v for k, v in (("value", value), ("when", None)) if f'"{k}"' in task}
                    return {"found": True, "items": [item]}
        return {"found": False, "items": []}

    return read


GYMS = [
    session("s:g1", day(3, 2), "Went to the Boulderhaus climbing gym today, arms gone.", title="gym one"),
    session("s:g2", day(4, 6), "Tried the Kletterhalle climbing gym near the river.", title="gym two"),
    session("s:g3", day(5, 1), "Back at the Kletterhalle climbing gym, new routes.", title="gym three"),
]


def test_a_count_of_several_things_the_program_listed_is_unsure_with_them_shown():
    # what was read may miss a gym or hold one twice: the things found are shown, no number is claimed
    result, _ = ask_once(
        GYMS,
        "How many climbing gyms have I been to?",
        NOW,
        relevance={"relevant": [1, 2, 3]},
        read=reading_each(Boulderhaus=None, Kletterhalle=None),
    )
    assert result.outcome == "unsure" and result.verdicts["failed"] == ["whole"]
    first = result.answer.split("\n")[0]
    assert "in total" not in first and "I counted 2" in first and "cannot tell that this is all" in first
    assert "Boulderhaus climbing gym" in result.answer and "Kletterhalle climbing gym" in result.answer
    assert result.draft.startswith("2 in total")  # what it would have said is kept for the trace


def test_a_count_of_the_one_thing_read_is_stated():
    # one thing read, and it is not the thing the question names: the reading's count is stated
    result, _ = ask_once(
        GYMS[:1],
        "How many climbing gyms have I been to?",
        NOW,
        relevance={"relevant": [1]},
        read=reading_each(Boulderhaus=None),
    )
    assert result.outcome == "answer" and result.answer.startswith("1 in total: Boulderhaus [S1 T0]")


def test_a_count_the_person_wrote_is_stated():
    chats = [*GYMS, session("s:g4", day(5, 20), "I've been to three climbing gyms so far this year.")]
    result, _ = ask_once(
        chats,
        "How many climbing gyms have I been to?",
        NOW,
        relevance={"relevant": [1, 2, 3, 4]},
        read=reading_each(three_climbing_gyms=3, Boulderhaus=None, Kletterhalle=None),
    )
    assert result.outcome == "answer" and result.answer.startswith("3 in total")


def test_amounts_added_up_from_several_chats_are_unsure():
    bills = [
        session("s:b1", day(3, 2), "Paid 120 euros for a new bike saddle.", title="saddle"),
        session("s:b2", day(4, 6), "The bike lights cost 80 euros.", title="lights"),
    ]
    asked = dict(relevance={"relevant": [1, 2]}, read=reading_each(saddle=120, lights=80))
    both, _ = ask_once(bills, "How much did I pay for bike parts in total?", NOW, **asked)
    assert both.outcome == "unsure" and both.verdicts["failed"] == ["sum"]
    assert "I added up 2 amounts" in both.answer and both.draft.startswith("€200 in total")


def test_one_amount_for_a_question_that_adds_several_up_is_unsure():
    # "in total" asks for several amounts added up: the one ticket read may be one of them
    tickets = [
        session("s:t1", day(3, 2), "Got two concert tickets for the jazz night, 85 euros.", title="jazz")
    ]
    asked = dict(relevance={"relevant": [1]}, read=reading_each(jazz=85))
    one, _ = ask_once(tickets, "How much did I spend on concert tickets in total?", NOW, **asked)
    assert one.outcome == "unsure" and one.verdicts["failed"] == ["one"]
    assert "I found one amount" in one.answer
    assert "Got two concert tickets for the jazz night, 85 euros." in one.answer
    assert one.draft.startswith("€85 in total")


def test_one_amount_is_stated():
    bills = [session("s:b1", day(3, 2), "Paid 120 euros for a new bike saddle.", title="saddle")]
    asked = dict(relevance={"relevant": [1]}, read=reading_each(saddle=120))
    one, _ = ask_once(bills, "How much did I pay for the bike saddle?", NOW, **asked)
    assert one.outcome == "answer" and "120" in one.answer


TRIPS = [
    session("s:t1", day(3, 2), "Booked the flight to Lisbon for the conference.", title="flight"),
    session("s:t2", day(3, 9), "Bought a rain jacket for the Lisbon trip, after the flight.", title="jacket"),
]
TRIP_READING = dict(
    relevance={"relevant": [1, 2]}, read=reading_each(rain_jacket=None, Booked_the_flight_to_Lisbon=None)
)


def test_a_span_between_two_named_events_is_unsure_when_one_of_them_is_not_read():
    question = "How many days passed between booking the Lisbon flight and the Porto dinner?"
    result, _ = ask_once(TRIPS, question, NOW, **TRIP_READING)
    # the jacket is not the Porto dinner: the span between it and the flight is not claimed
    assert result.outcome == "unsure" and result.verdicts["failed"] == ["pair"]
    assert "7 days" not in result.answer.split("\n")[0] and result.draft.startswith("7 days")


def test_a_span_between_two_named_events_both_read_is_stated():
    question = "How many days passed between booking the flight and buying the jacket?"
    result, _ = ask_once(TRIPS, question, NOW, **TRIP_READING)
    assert result.outcome == "answer" and result.answer.startswith("7 days")


def test_an_answer_from_before_the_time_the_question_names_is_unsure():
    asked = dict(relevance={"relevant": [1]}, read=reading_of("mushroom risotto"))
    old = [session("s:jan", day(1, 13), "I cooked a mushroom risotto for the first time.", title="risotto")]
    result, _ = ask_once(old, "What did I cook last Saturday?", NOW, **asked)
    assert result.outcome == "unsure" and result.verdicts["failed"] == ["time"]
    assert "another time" in result.answer and "I cooked a mushroom risotto" in result.answer
    assert "mushroom risotto" in result.draft
    # the same words written that Saturday answer it
    new = [session("s:may", day(5, 25), "I cooked a mushroom risotto for the first time.", title="risotto")]
    result, _ = ask_once(new, "What did I cook last Saturday?", NOW, **asked)
    assert result.outcome == "answer" and result.citations == [("s:may", 0)]


def test_a_fact_about_yourself_that_only_an_assistants_reply_states_is_unsure():
    def chat(*pairs: tuple[str, str]) -> list[Session]:
        turns = [
            Turn(i, f"User: {mine}\n\nAssistant: {reply}", "user+assistant", day(2, 3))
            for i, (mine, reply) in enumerate(pairs)
        ]
        return [Session("s:laptop", "laptop", day(2, 3), ["user", "assistant"], turns)]

    advice = ("I need a new laptop for travel, something light.", "The ThinkPad X1 Carbon is a great choice.")
    asked = dict(relevance={"relevant": [1]}, read=reading_of("ThinkPad X1 Carbon"))
    result, _ = ask_once(chat(advice), "Which laptop did I buy?", NOW, **asked)
    assert result.outcome == "unsure" and result.verdicts["failed"] == ["own"]
    assert "only an assistant's reply says it" in result.answer and "ThinkPad X1 Carbon" in result.answer
    # the person saying it in that chat, in any turn, lets the reply's words answer it
    bought = ("Thanks, I bought the ThinkPad X1 Carbon yesterday.", "Enjoy it!")
    result, _ = ask_once(chat(advice, bought), "Which laptop did I buy?", NOW, **asked)
    assert result.outcome == "answer" and "ThinkPad X1 Carbon" in result.answer
    assert result.verdicts["own"] is True


def test_a_suggestion_made_before_is_a_fact_read_from_the_chats_and_checked():
    chats = [
        session(
            "s:books",
            day(5, 2),
            "I need a novel for the long flight to Lima.",
            "Try 'The Shadow of the Wind' by Carlos Ruiz Zafon: a page-turner set in Barcelona.",
            title="flight reading",
        )
    ]
    asked = dict(
        relevance={"relevant": [1]}, read=reading_of("The Shadow of the Wind"), answer="Read a thriller!"
    )
    # the confirming reading says the turn does not answer it: a recalled suggestion is checked like any
    # fact (a request for a new one is never refused, so it would have been answered anyway)
    result, _ = ask_once(
        chats,
        "Which book did you recommend for my flight?",
        NOW,
        confirm={"about": True, "answers": False},
        **asked,
    )
    assert result.outcome == "unsure" and "answers" in result.verdicts["failed"]
    result, _ = ask_once(chats, "Which book did you recommend for my flight?", NOW, **asked)
    assert result.outcome == "answer" and "The Shadow of the Wind" in result.answer
    assert result.citations == [("s:books", 1)] and "thriller" not in result.answer
