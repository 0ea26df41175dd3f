"""The answer pipeline: the reading's items checked against the passage, each kind's answerer computing
from them, the checks that stop an answer; driven end to end by the scripted double."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from helpers.agent import ask_once, day, reading_of, session

from refind_desktop.agent.answerers import Found, answerer_for
from refind_desktop.agent.dates import Day, dated_in, distance, event_day, written_day
from refind_desktop.agent.evidence import Line, Passage
from refind_desktop.agent.question import understand
from refind_desktop.agent.reading import Item, check, stated
from refind_desktop.agent.render import Tags
from refind_desktop.lang import pack_for
from refind_desktop.types import TurnView

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def passage(*texts: str, when: datetime = NOW, sid: str = "s") -> Passage:
    lines = tuple(
        Line(TurnView(sid, i, "me", when + timedelta(minutes=i), t), t, True) for i, t in enumerate(texts)
    )
    return Passage(sid, "chat", when, lines, 0)


def item(words, *, value=None, unit="", day_=None, said=NOW, sid="s", turn=0, order=0, text="") -> Item:
    return Item((sid, turn), words, value, unit, day_, said, order, text or words, text or words)


def found(question: str, items: list[Item], now: datetime = NOW) -> Found:
    return Found(understand(question, now, UTC), items, len(items), now, UTC, Tags())


# ---- the reading's items are checked against the passage ---------------------------------------------


def test_an_item_the_model_cites_in_the_wrong_turn_is_cited_where_its_words_are():
    p = passage("We talked about trains.", "My flight is LH 402 on 14 May 2025.", "Great, have fun!")
    q = understand("When is my flight?", NOW, UTC)
    data = {"found": True, "items": [{"turn": "T2", "words": "LH 402", "when": "14 May 2025"}]}
    (got,) = check(q, p, data, UTC, 0)
    assert got.ref == ("s", 1) and got.day == Day(date(2025, 5, 14))


def test_words_no_turn_of_the_passage_holds_are_not_an_answer():
    p = passage("I adopted a cat called Luna.")
    q = understand("What is my goldfish called?", NOW, UTC)
    data = {"found": True, "items": [{"turn": "T0", "words": "Fluffy the goldfish"}]}
    assert check(q, p, data, UTC, 0) == []
    assert check(q, p, {"found": False, "items": []}, UTC, 0) == []


def test_a_number_counts_only_when_the_turn_writes_it():
    p = passage("The plumber charged 1.250 € for the new boiler.", "And we tipped twenty euros.")
    q = understand("How much did we pay in total?", NOW, UTC)
    data = {
        "found": True,
        "items": [
            {"turn": "T0", "words": "new boiler", "value": 1250},
            {"turn": "T1", "words": "tipped", "value": 20},
            {"turn": "T1", "words": "tipped twenty euros", "value": 35},
        ],
    }
    got = check(q, p, data, UTC, 0)
    assert [(i.words, i.value, i.unit) for i in got] == [
        ("new boiler", 1250.0, "€"),
        ("tipped", 20.0, "€"),  # a currency word is its sign
    ]
    assert stated(2, "zwei Kaffee") and stated(1250, "$1,250") and not stated(3, "two coffees")


def test_time_words_are_read_against_the_turns_own_time_in_the_users_zone():
    said = datetime(2024, 3, 4, 23, 30, tzinfo=UTC)  # already Tuesday in Berlin
    assert event_day("yesterday", said, BERLIN, ("en",)) == Day(date(2024, 3, 4))
    assert event_day("vor drei Wochen", said, BERLIN, ("de",)).day == date(2024, 2, 13)
    assert event_day("am 10. Januar", said, BERLIN, ("de", "en")) == Day(date(2024, 1, 10))
    assert event_day("in March", said, UTC, ("en",)).period == "month"
    assert event_day("soon-ish", said, UTC, ("en",)) is None


def test_last_week_is_the_monday_to_sunday_week_before_the_one_it_was_written_in():
    wednesday = datetime(2024, 5, 22, 12, 0, tzinfo=UTC)
    got = event_day("last week", wednesday, UTC, ("en",))
    assert got.period == "week"
    assert got.bounds() == (date(2024, 5, 13), date(2024, 5, 19))
    # a day of a week is that day's Monday-to-Sunday week, whichever day of it dates it
    assert Day(date(2024, 5, 19), "week").bounds() == (date(2024, 5, 13), date(2024, 5, 19))
    # and an answer names that week by its Monday, whichever day of it dates it
    assert written_day(got, pack_for("en")) == "the week of Monday 13 May 2024"
    assert written_day(Day(date(2024, 5, 19), "week"), pack_for("de")) == "die Woche ab Montag, 13. Mai 2024"


def test_a_day_without_its_year_is_the_one_nearest_to_when_it_was_written():
    monday = datetime(2024, 5, 20, 9, 0, tzinfo=UTC)
    # a delivery announced for later this week, a trip told of afterwards
    assert event_day("Lieferung ist am 23. Mai", monday, BERLIN, ("de",)).day == date(2024, 5, 23)
    assert event_day("got back on May 12", monday, UTC, ("en",)).day == date(2024, 5, 12)
    assert event_day("ich fang am 3. Juni an", datetime(2024, 2, 1, tzinfo=UTC), BERLIN, ("de",)).day == date(
        2024, 6, 3
    )
    # a day that names its year keeps it
    assert event_day("am 23. Mai 2023", monday, BERLIN, ("de",)).day == date(2023, 5, 23)


def test_a_day_written_with_a_number_in_the_words_read_dates_them():
    said = datetime(2024, 3, 20, 18, 0, tzinfo=UTC)
    assert dated_in("I got my new running shoes on March 2nd", said, UTC, ("en",)) == Day(date(2024, 3, 2))
    assert dated_in("die Heizung kam am 4. März", said, BERLIN, ("de", "en")).day == date(2024, 3, 4)
    assert dated_in("we flew back 3 days ago", said, UTC, ("en",)).day == date(2024, 3, 17)
    # no number, or no day: left to the reading's own time words (else the turn's time)
    assert dated_in("we met on Sunday", said, UTC, ("en",)) is None
    assert dated_in("I bought 3 plants", said, UTC, ("en",)) is None
    assert dated_in("we moved there in 2019", said, UTC, ("en",)) is None


def test_calendar_distances_count_as_a_person_does():
    assert distance(date(2024, 1, 31), date(2024, 3, 1), "months") == 1
    assert distance(date(2024, 3, 1), date(2024, 1, 31), "days") == 30
    assert distance(date(2024, 1, 1), date(2024, 1, 15), "weeks") == 2
    assert distance(date(2020, 6, 2), date(2024, 6, 1), "years") == 3
    assert written_day(Day(date(2023, 5, 7)), pack_for("de")) == "7. Mai 2023"
    assert written_day(Day(date(2023, 5, 7), "month"), pack_for("en")) == "May 2023"


# ---- the answerers compute ----------------------------------------------------------------------------


def compose(question: str, items: list[Item], now: datetime = NOW) -> str:
    f = found(question, items, now)
    return answerer_for(f.question.kind).compose(f, None).text


def answer_of(question: str, items: list[Item], now: datetime = NOW):
    f = found(question, items, now)
    return answerer_for(f.question.kind).compose(f, None)


def test_a_count_lists_each_thing_once_among_the_turns_that_name_the_thing():
    text = compose(
        "How many books did I read?",
        [
            item("Dune", text="I finished the book Dune"),
            item("the novel Dune", turn=1, text="that book, the novel Dune, was long"),
            item("Emma", turn=2, text="next book: Emma"),
            item("my bike", turn=3, text="I cleaned my bike"),
        ],
    )
    assert text == "2 in total: Dune [S1 T0], Emma [S1 T2]."


def test_a_count_the_person_wrote_is_theirs_and_the_newest_holds():
    items = [
        item("three", text="I've tried 3 ramen bars", said=datetime(2024, 1, 5, tzinfo=UTC), sid="o"),
        item("Bibim", text="Now four ramen bars, Bibim too!", said=datetime(2024, 4, 2, tzinfo=UTC)),
        item(
            "Seoul Garden",
            text="Seoul Garden is a restaurant",
            said=datetime(2024, 2, 1, tzinfo=UTC),
            sid="m",
        ),
    ]
    text = compose("How many ramen bars have I tried?", items)
    assert text.startswith("4 in total: Bibim (2 April 2024)")


def test_a_written_count_is_a_number_right_before_the_counted_thing_in_any_pack_language():
    from refind_desktop.agent.answerers.computed import stated_count

    de = understand("Wie viele Bücher hat Nina gelesen?", NOW, UTC)
    assert stated_count("Nina hat schon drei neue Bücher gelesen.", "buch", de) == 3
    en = understand("How many bikes do I own?", NOW, UTC)
    assert stated_count("I own 2 road bikes", "bike", en) == 2
    # a number that stands before something else is not the count
    assert stated_count("I rode 20 miles on my bike", "bike", en) is None


def test_a_count_the_reading_gives_for_the_thing_holds_when_its_words_do_not_name_it_again():
    # "five different ones": the number does not stand before the thing's word, so the program's own
    # reading finds no count; the reading's value, checked against the turn, is the person's count
    said = datetime(2024, 4, 2, tzinfo=UTC)
    text = "Any climbing gyms you like? I've been to five different ones this year."
    items = [
        item(
            "Boulderhaus",
            text="Boulderhaus was the first climbing gym I went to",
            sid="o",
            said=NOW - timedelta(days=90),
        ),
        item("climbing gyms", value=5, unit="different", text=text, said=said),
    ]
    assert compose("How many climbing gyms have I been to?", items).startswith("5 in total: climbing gyms")
    # an amount of money or of time the reading gives is not a count of things
    spent = [
        item("Boulderhaus", text=t, value=v, unit=u, said=said)
        for t, v, u in (
            ("Climbing gym day pass: $45", 45, "$"),
            ("Back at the climbing gym after 6 weeks", 6, "weeks"),
        )
    ]
    assert compose("How many climbing gyms have I been to?", spent).startswith("1 in total")


def test_a_reading_that_names_only_a_number_for_a_count_gives_that_count():
    p = passage("Jars of jam in the pantry by now: 31, no idea when we will eat them all.")
    q = understand("How many jars of jam are in my pantry now?", NOW, UTC)
    data = {"found": True, "items": [{"turn": "T0", "words": "31", "value": None}]}
    (got,) = check(q, p, data, UTC, 0)
    assert got.value == 31.0
    f = Found(q, [got], 1, NOW, UTC, Tags())
    assert answerer_for("count").compose(f, None).text.startswith("31 in total")
    # a number the turn does not write is not taken
    assert check(q, p, {"found": True, "items": [{"turn": "T0", "words": "12", "value": None}]}, UTC, 0) == []


def test_a_count_question_that_says_now_is_still_a_count():
    # the count answerer takes the newest count written, so "now" needs no other kind
    assert understand("How many plants do I have now?", NOW, UTC).kind == "count"
    assert understand("Wie viele Pflanzen habe ich aktuell?", NOW, UTC).kind == "count"
    assert understand("What is the total cost of the flights and the hotel?", NOW, UTC).kind == "total"


def test_a_total_adds_amounts_in_the_unit_most_share_and_each_amount_of_a_chat_once():
    items = [
        item("bike", value=300, unit="$", sid="a"),
        item("helmet", value=50, unit="$", sid="a"),
        item("bike again", value=300, unit="$", sid="a"),
        item("ride", value=2, unit="hours", sid="b"),
        item("lock", value=25, unit="$", sid="c"),
    ]
    assert compose("How much did I spend on cycling in total?", items).startswith("$375 in total: $300")


def test_a_span_between_two_named_events_takes_one_item_of_each():
    # two items tell of the move: the first two read would give 0 days
    items = [
        item("moved into the flat", day_=Day(date(2024, 1, 6))),
        item("returned the moving van", day_=Day(date(2024, 1, 6)), turn=1),
        item("housewarming party", day_=Day(date(2024, 2, 3)), turn=2),
    ]
    text = compose("How many days passed between my move into the flat and the housewarming party?", items)
    assert text.startswith("28 days: moved into the flat (6 January 2024)"), text
    since = understand("How many weeks had passed since I sold the car when I bought the bike?", NOW, UTC)
    assert since.options == ("sold the car", "bought the bike")
    de = understand("Wie viele Tage lagen zwischen meinem Umzug und der Einweihungsparty?", NOW, UTC)
    assert de.options == ("Umzug", "Einweihungsparty")


def test_a_question_that_asks_for_money_adds_only_amounts_written_as_money():
    # more amounts of people than of euros were read: "the unit most share" alone would add the people
    items = [
        item("Sommerfest", value=40, unit="gäste", sid="b"),
        item("Blumen vom Markt", value=21.3, unit="€", sid="a"),
        item("Grillabend", value=12, unit="gäste", sid="e"),
        item("Chorprobe", value=18, unit="gäste", sid="c"),
        item("Gartenerde", value=47.9, unit="€", sid="d"),
    ]
    got = compose("Wie viel Geld habe ich insgesamt für den Garten ausgegeben?", items)
    assert got.startswith("Insgesamt €69.2: €21.3 Blumen vom Markt"), got
    # a question that does not ask for money adds in the unit most share, as before
    hours = [item("hike", value=3, unit="hours", sid="a"), item("hike two", value=4, unit="hours", sid="b")]
    assert compose("How many hours did I hike in total?", hours).startswith("7 hours in total")


def test_a_difference_subtracts_two_different_things():
    items = [item("sofa", value=899, unit="€"), item("table", value=240, unit="€", turn=1)]
    assert compose("How much more did the sofa cost than the table?", items).startswith("€659 (€899 sofa")


def test_a_span_counts_between_the_days_the_turns_name():
    items = [
        item("moved into the flat", day_=Day(date(2024, 1, 6))),
        item("housewarming party", day_=Day(date(2024, 2, 3)), turn=1),
    ]
    text = compose("How many days passed between moving and the housewarming party?", items)
    assert text.startswith("28 days: moved into the flat (6 January 2024)")
    ago = compose("How many weeks ago did I move?", [items[0]])
    assert ago.startswith("21 weeks ago: moved into the flat")


def test_how_long_one_thing_lasted_is_what_the_person_wrote_of_it():
    items = [
        item("flew to Lisbon", day_=Day(date(2024, 5, 3))),
        item("back home after nine days in Lisbon", day_=Day(date(2024, 5, 30)), turn=1),
    ]
    assert compose("How many days was I in Lisbon?", items).startswith("9 days: back home after nine days")
    ferien = [item("Zurück von Sylt nach zehn Tagen", day_=Day(date(2024, 8, 20)))]
    assert compose("Wie viele Tage wart ihr auf Sylt?", ferien).startswith("10 Tage: Zurück von Sylt")
    # the days between two events are computed from their days, whatever duration a turn writes
    moved = [
        item("moved into the flat, it took 3 days", day_=Day(date(2024, 1, 6))),
        item("housewarming party", day_=Day(date(2024, 2, 3)), turn=1),
    ]
    assert compose("How many days passed between moving and the housewarming party?", moved).startswith(
        "28 days"
    )
    # a duration in another unit is not the one asked for
    weeks = [
        item("two weeks in Lisbon", day_=Day(date(2024, 5, 3))),
        item("home again", day_=Day(date(2024, 5, 17))),
    ]
    assert compose("How many days was I in Lisbon?", weeks).startswith("14 days: two weeks in Lisbon")


def test_a_span_in_german_is_written_in_german():
    items = [item("Zahnarzt", day_=Day(date(2024, 5, 11)))]
    assert compose("Vor wie vielen Wochen war ich beim Zahnarzt?", items).startswith("Vor 3 Wochen: Zahnarzt")


def test_an_order_sorts_by_day_not_by_reading_order():
    items = [
        item("the zoo", said=datetime(2024, 4, 2, tzinfo=UTC)),
        item("the aquarium", said=day(3, 9), turn=1),
    ]
    assert compose("Which did I visit first, the zoo or the aquarium?", items).startswith(
        "First the aquarium (9 March 2024) [S1 T1], then the zoo"
    )


def test_the_latest_value_is_the_newest_statement_not_the_first_read():
    items = [
        item("rent is 950 euros", said=datetime(2024, 5, 1, tzinfo=UTC), order=0),
        item("rent is 870 euros", said=datetime(2023, 9, 1, tzinfo=UTC), order=1, sid="old"),
    ]
    assert compose("What is my rent now?", items).startswith("rent is 950 euros (1 May 2024)")


def test_a_newer_turn_that_names_nothing_asked_does_not_replace_the_latest_statement():
    items = [
        item("Maple-88", text="New wifi password: Maple-88", said=datetime(2024, 4, 10, tzinfo=UTC)),
        item(
            "oakleaf12", text="The wifi password is oakleaf12", said=datetime(2024, 1, 9, tzinfo=UTC), sid="o"
        ),
        item(
            "downstairs in 10",
            text="See you downstairs in 10",
            said=datetime(2024, 6, 9, tzinfo=UTC),
            sid="n",
        ),
    ]
    assert compose("What is our wifi password now?", items).startswith("Maple-88 (10 April 2024)")


def test_when_is_the_day_the_turn_names_else_the_day_it_was_written():
    said = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
    named = item("went to the support group", day_=Day(date(2023, 5, 7)), said=said)
    assert compose("When did I go to the support group?", [named]).startswith("7 May 2023: went to")
    bare = item("went to the support group", said=said)
    assert compose("When did I go to the support group?", [bare]).startswith("8 May 2023: went to")


# ---- end to end, with the checks ----------------------------------------------------------------------

CHATS = [
    session("s:rent1", day(1, 10), "The landlord raised the rent to 950 euros.", title="flat"),
    session("s:rent0", day(1, 2), "Our rent is 870 euros a month.", title="flat"),
    session("s:cat", day(2, 1), "We adopted a cat called Luna."),
]


def test_a_passage_that_speaks_of_it_is_shown_not_called_absent():
    # the chats speak of the cat, but the reading states no answer: the turn is shown, cited
    result, _ = ask_once(
        CHATS,
        "How old is the cat Luna?",
        NOW,
        relevance={"relevant": [1]},
        read={"found": False, "items": []},
    )
    assert not result.abstained and result.citations == [("s:cat", 0)]
    assert "We adopted a cat called Luna." in result.answer and "not in your history" not in result.answer


def test_a_turn_that_names_what_is_asked_is_shown_not_called_absent():
    # Luna and the vet are each named in the chats, though no passage holds most of the question's words
    # and none states when: the closest turn is shown, and "not in your history" is not claimed
    chats = [*CHATS, session("s:vet", day(2, 9), "The vet bill was 80 euros, ouch.")]
    result, _ = ask_once(
        chats,
        "When did Luna last see the vet for her vaccination shots?",
        NOW,
        relevance={"relevant": [1]},
        read={"found": False, "items": []},
    )
    assert result.outcome == "unsure" and not result.abstained
    assert result.citations and "not in your history" not in result.answer


def test_nothing_to_read_abstains_without_a_model_call():
    result, backend = ask_once(CHATS, "When did I ride a zeppelin?", NOW)
    assert result.abstained and backend.calls == []


def test_the_latest_rent_is_read_from_every_passage_and_the_newest_wins():
    def read(prompt: str) -> dict:
        turn = prompt.split("<<<DATA", 1)[1]
        words = "950 euros" if "950" in turn else "870 euros" if "870" in turn else ""
        return {
            "found": bool(words),
            "items": [{"turn": "T0", "words": words, "when": None}] if words else [],
        }

    result, backend = ask_once(CHATS, "What is our rent now?", NOW, relevance={"relevant": [1]}, read=read)
    assert result.answer.startswith("950 euros") and result.citations == [("s:rent1", 0)]
    reads = [c for c in backend.calls if c.schema and "found" in c.schema["properties"]]
    assert len(reads) >= 2  # a latest value is read in every passage, not only the first


def test_a_number_in_an_assistants_reply_is_not_the_persons_count():
    view = TurnView(
        "s",
        0,
        "user+assistant",
        NOW,
        "User: I've tried four ramen places.\n\nAssistant: Here are 10 more to try.",
    )
    p = Passage("s", "chat", NOW, (Line(view, view.text, True),), 0)
    q = understand("How many ramen bars have I tried?", NOW, UTC)
    data = {
        "found": True,
        "items": [
            {"turn": "T0", "words": "ramen places", "value": 10},
            {"turn": "T0", "words": "four ramen places", "value": 4},
        ],
    }
    assert [i.value for i in check(q, p, data, UTC, 0)] == [None, 4.0]


def test_a_passage_found_by_the_questions_common_words_alone_is_not_read_for_a_single_fact():
    chats = [
        session("s:boots", day(1, 4), "I bought the Meindl boots at the mall, in the Sportscheck store."),
        session("s:wet", day(1, 9), "My boots got wet on the way home from the mall."),
        session("s:old", day(2, 2), "Old boots are piling up in the closet."),
        session("s:kids", day(2, 20), "New boots for the kids again, bought at the mall."),
    ]
    result, backend = ask_once(
        chats,
        "At which store of the mall did I buy the Meindl boots?",
        NOW,
        relevance={"relevant": []},
        answer="Sportscheck store",
    )
    # a single fact is read from the passages holding the question's rarer words; the one that names
    # the Meindl boots states it, so the passages found by "boots" and "mall" alone are not read
    reads = [e for e in result.trajectory if e.type == "read"]
    assert [e.session_id for e in reads] == ["s:boots"] and result.citations == [("s:boots", 0)]


def test_passages_set_aside_by_wording_are_read_before_the_answer_says_not_in_the_history():
    chats = [
        session("s:sun", day(4, 2), "The Vespa looks great in the sun."),
        session("s:garage", day(5, 3), "Took the scooter to the garage today, they serviced it in an hour."),
        session("s:bike", day(5, 20), "The bike got serviced too, new chain."),
    ]

    def read(prompt: str) -> dict:
        said = prompt.split("<<<DATA", 1)[1]
        if "garage" not in said:
            return {"found": False, "items": []}
        return {
            "found": True,
            "items": [{"turn": "T0", "words": "Took the scooter to the garage today", "when": None}],
        }

    result, _ = ask_once(
        chats, "When did I get the Vespa serviced?", day(6, 1), relevance={"relevant": [1, 2, 3]}, read=read
    )
    # the passage naming the Vespa is read first and states nothing; the scooter's, set aside because
    # it does not name it, is read before the answer abstains, and answers
    reads = [e.session_id for e in result.trajectory if e.type == "read"]
    assert reads[0] == "s:sun" and "s:garage" in reads
    assert not result.abstained and result.citations == [("s:garage", 0)]


def test_an_absent_thing_is_read_no_further_than_the_answerers_budget():
    chats = [session(f"s:{i}", day(3, 1 + i), f"Another trip to the bakery, number {i}.") for i in range(9)]
    chats.append(session("s:cake", day(4, 1), "Ordered a lemon cake at the bakery for Sunday."))
    result, _ = ask_once(
        chats,
        "How many lemon cakes did I order from the bakery?",
        day(6, 1),
        relevance={"relevant": list(range(1, 11))},
        read={"found": False, "items": []},
    )
    reads = [e.session_id for e in result.trajectory if e.type == "read"]
    assert (
        reads[0] == "s:cake"
        and 1 < len(reads) <= answerer_for("count").read
        and result.citations in ([], [("s:cake", 0)])
    )


def test_a_question_that_names_a_time_reads_the_chats_of_that_time_first():
    chats = [
        session("s:jan", day(1, 5), "We tried the Lebanese restaurant on Elm Street."),
        session("s:mar", day(3, 8), "We tried the new noodle restaurant by the station."),
    ]
    result, _ = ask_once(
        chats,
        "Which restaurant did we try last Friday?",
        day(3, 12),
        relevance={"relevant": [1, 2]},
        read=lambda prompt: {
            "found": True,
            "items": [{"turn": "T0", "words": prompt.split("<<<DATA")[1].split("user: ")[1].split(".")[0]}],
        },
    )
    assert result.citations == [("s:mar", 0)] and "noodle restaurant" in result.answer


def test_a_question_about_the_person_is_answered_from_what_the_person_said():
    view = TurnView(
        "s",
        0,
        "user+assistant",
        NOW,
        "User: I run in Hoka Clifton shoes.\n\nAssistant: Brand X makes running shoes too.",
    )
    p = Passage("s", "chat", NOW, (Line(view, view.text, True),), 0)
    q = understand("Which running shoes do I wear now?", NOW, UTC)
    data = {
        "found": True,
        "items": [
            {"turn": "T0", "words": "Brand X makes running shoes"},
            {"turn": "T0", "words": "Hoka Clifton shoes"},
        ],
    }
    items = check(q, p, data, UTC, 0)
    assert q.personal and [i.personal for i in items] == [False, True]
    assert not understand("Which running shoes did you suggest to me?", NOW, UTC).personal


def test_an_order_question_naming_two_things_orders_those_two_and_nothing_else_read():
    items = [
        item("I'm looking for book recommendations", said=day(5, 25), order=0),
        item("joined a gym", said=day(3, 1), turn=1, order=1),
        item(
            "my first meetup",
            said=day(5, 20),
            turn=2,
            order=2,
            text="Running Crew: my first meetup",
        ),
        item(
            "our chess club, Chess Corner, met",
            said=day(4, 2),
            turn=3,
            order=3,
            text="Chess Corner met today",
        ),
    ]
    text = compose("Which club did I join first, 'Chess Corner' or 'Running Crew'?", items)
    assert text == (
        "First our chess club, Chess Corner, met (2 April 2024) [S1 T3], "
        "then Running Crew: my first meetup (20 May 2024) [S1 T2]."
    )


def test_an_order_with_one_option_unread_is_not_computed():
    items = [item("the zoo", said=day(4, 2)), item("the museum", said=day(3, 9), turn=1)]
    assert answer_of("Which did I visit first, the zoo or the aquarium?", items) is None


def test_an_order_question_names_its_two_options_in_either_language():
    q = understand("Was kam zuerst, der Umzug nach Köln oder Miras erster Tag im Büro?", NOW, UTC)
    assert q.kind == "order" and q.options == ("Umzug nach Köln", "Miras erster Tag im Büro")
    q = understand("Which happened first, my trip to Rome or buying the car?", NOW, UTC)
    assert q.options == ("trip to Rome", "buying the car")
    assert understand("In what order did I visit the three museums?", NOW, UTC).options == ()


def test_words_that_only_repeat_the_question_are_not_an_answer():
    p = passage("Which sunscreen do I use? I forgot.", "The mineral one from the pharmacy.")
    q = understand("Which sunscreen do I use?", NOW, UTC)
    echo = {"found": True, "items": [{"turn": "T0", "words": "sunscreen do I use"}]}
    assert check(q, p, echo, UTC, 0) == []
    real = {"found": True, "items": [{"turn": "T1", "words": "mineral one from the pharmacy"}]}
    assert [i.ref for i in check(q, p, real, UTC, 0)] == [("s", 1)]
    q = understand("Welchen Film hat Mira mir empfohlen?", NOW, UTC)
    p = passage("Hab ich doch gesagt 😌", "Schau Lola rennt, der Film ist super")
    assert (
        check(q, p, {"found": True, "items": [{"turn": "T0", "words": "Hab ich doch gesagt"}]}, UTC, 0) == []
    )
    assert check(q, p, {"found": True, "items": [{"turn": "T1", "words": "Lola rennt"}]}, UTC, 0)
    # a number is news even when the question names the thing; a date question may repeat its event
    q = understand("What is my locker number?", NOW, UTC)
    assert check(
        q,
        passage("my locker number is 118"),
        {"found": True, "items": [{"turn": "T0", "words": "locker number 118"}]},
        UTC,
        0,
    )
    q = understand("When did I go to the dentist?", NOW, UTC)
    assert check(
        q,
        passage("went to the dentist"),
        {"found": True, "items": [{"turn": "T0", "words": "go to the dentist", "when": None}]},
        UTC,
        0,
    )


def test_a_reading_that_repeats_the_question_lets_the_next_passage_answer():
    chats = [
        session("s:ask", day(3, 1), "What was the name of that ramen bar by the station?"),
        session("s:tip", day(2, 1), "The ramen bar by the station is called Cocolo, go there!"),
    ]

    def read(prompt: str) -> dict:
        turn = prompt.split("<<<DATA", 1)[1]
        words = "Cocolo" if "Cocolo" in turn else "name of that ramen bar by the station"
        return {"found": True, "items": [{"turn": "T0", "words": words}]}

    result, _ = ask_once(
        chats,
        "What is the name of the ramen bar by the station?",
        NOW,
        relevance={"relevant": [1, 2]},
        read=read,
    )
    assert result.answer.startswith("Cocolo") and result.citations == [("s:tip", 0)]


def test_a_question_for_the_newest_value_reads_on_past_the_passages_that_name_it():
    chats = [
        session("s:swim", day(1, 10), "Swim practice for Ida starts at 5 pm on Tuesdays."),
        session("s:coach", day(3, 28), "The coach wrote: from April practice starts at 6 pm."),
    ]

    result, _ = ask_once(
        chats,
        "What time does Ida's swim practice start now?",
        day(6, 1),
        relevance={"relevant": [1, 2]},
        read=reading_of("5 pm", "6 pm"),
    )
    # the first chat names the swim practice and is read first; the coach's newer time, found by
    # "practice" alone (it does not name the swimming), is read too, since only the newest statement
    # answers "now"
    reads = [e.session_id for e in result.trajectory if e.type == "read"]
    assert reads[0] == "s:swim" and "s:coach" in reads
    assert result.citations == [("s:coach", 0)] and "6 pm" in result.answer
