"""Gold-item scoring on answers a person would get: dates, number words, amounts, lists, abstentions."""

from __future__ import annotations

import pytest

from refind_desktop.eval.items import abstains, covered, false_abstention, gold_items, items_share, normalize
from refind_desktop.eval.qa import record_false_abstention


@pytest.mark.parametrize(
    ("answer", "gold", "lang"),
    [
        ("She went to the group on May 7th, 2023.", "7 May 2023", "en"),
        ("2023-05-07", "7 May 2023", "en"),
        ("On 7 May, 2023", "May 7, 2023", "en"),
        ("Das war am 7. Mai 2023.", "2023-05-07", "de"),
        ("Am 07.05.2023 hat sie angefangen", "7. Mai 2023", "de"),
        ("Sie hat am 7.5.2023 angefangen", "7 May 2023", "de"),
        ("In June 2023, on the 15th", "June 2023", "en"),
        ("June 15, 2023", "June 2023", "en"),  # a month gold holds any day of it
        ("It was in 2022.", "2022", "en"),
        ("On 3 June 2022", "2022", "en"),  # a year gold is found in a date of that year
        ("Sie haben zwei Katzen.", "2 Katzen", "de"),
        ("They have three children and a dog", "3 children and a dog", "en"),
        ("Insgesamt 1.250 € für alles", "1250 EUR", "de"),
        ("Das macht zwölf Euro fünfzig, also 12,50 Euro", "12.50 €", "de"),
        ("It cost $1,200 in total", "1200 dollars", "en"),
        ("Vierzehn Tage lagen dazwischen", "14 Tage", "de"),
    ],
)
def test_the_same_thing_written_differently_is_found(answer, gold, lang):
    assert items_share(answer, gold, lang)[0] == 1.0


@pytest.mark.parametrize(
    ("answer", "gold", "lang"),
    [
        ("She went on 8 May 2023.", "7 May 2023", "en"),
        ("May 7, 2022", "7 May 2023", "en"),
        ("7 June 2023", "7 May 2023", "en"),
        ("Am 7. Juni 2023", "7. Mai 2023", "de"),
        ("2021", "2022", "en"),
        ("Sie haben drei Katzen.", "2 Katzen", "de"),
        ("12,05 Euro", "12.50 €", "de"),
    ],
)
def test_a_different_date_or_number_is_not_found(answer, gold, lang):
    assert items_share(answer, gold, lang)[0] == 0.0


def test_list_golds_score_the_share_of_items_named():
    gold = "pottery, camping; painting and swimming"
    assert [i.words for i in gold_items(gold)] == [("pottery",), ("camping",), ("painting",), ("swimming",)]
    assert items_share("She likes camping and painting.", gold) == (0.5, 2, 4)
    assert items_share("Anna und Ben waren da", "Ben und Anna", "de") == (1.0, 2, 2)
    # a comma inside a date or an amount does not split an item
    assert len(gold_items("May 7, 2023")) == 1 and len(gold_items("1,250 euros")) == 1
    # words may come in another order; articles do not count
    assert items_share("She painted the lake at sunrise", "a sunrise over the lake")[0] == 0.0
    assert items_share("a lake sunrise", "the sunrise, a lake")[0] == 1.0


def test_normalize_keeps_dates_and_amounts_whole():
    n = normalize("Paid 1,250 euros on May 7, 2023 [S1 T4]", "en")
    assert n.dates == ((2023, 5, 7),) and n.words == ("paid", "1250", "eur", "on")


@pytest.mark.parametrize(
    ("answer", "lang", "said_none"),
    [
        ("The information is not mentioned in the history.", "en", True),
        ("Not in your history: nothing I found in your chats mentions 'Emi'.", "en", True),
        ("Dazu habe ich in deinen Chats nichts gefunden.", "de", True),
        ("Das wird in den Nachrichten nicht erwähnt.", "de", True),
        ("Dazu gibt es keine Informationen.", "de", True),
        ("Dazu finde ich nichts in deinen Chats.", "de", True),
        ("Ich habe keine Nachricht über einen Hund gefunden.", "de", True),
        ("Die Miete beträgt jetzt 950 Euro.", "de", False),
        ("She moved to Lisbon in 2021.", "en", False),
    ],
)
def test_abstentions_in_the_sets_language(answer, lang, said_none):
    assert abstains(answer, lang) is said_none


def test_evidence_counts_as_noted_within_two_turns_of_a_noted_turn():
    notes = [{"session_id": "chat:a", "hit_turn": 40, "turns": [38, 39, 40, 41, 42]}]
    evidence = [("chat:a", 42), ("chat:a", 43), ("chat:b", 40), ("chat:a", 37)]
    assert covered(evidence, notes) == [("chat:a", 42)]
    # a block shown wider than the window still counts in full
    wide = [{"session_id": "chat:a", "hit_turn": 40, "turns": list(range(30, 50))}]
    assert covered(evidence, wide) == [("chat:a", 42), ("chat:a", 43), ("chat:a", 37)]


def test_false_abstention_needs_an_answerable_question_and_noted_evidence():
    assert false_abstention(True, False, True)
    assert not false_abstention(True, True, True)  # the right answer to an absent thing
    assert not false_abstention(True, False, False)  # the notes missed it: a search failure
    assert not false_abstention(False, False, True)


def test_eval_qa_records_count_false_abstentions():
    base = {"answer_sessions": ["lme:a"], "noted_sessions": ["lme:x", "lme:a"], "abstention": False}
    assert record_false_abstention(
        {**base, "answer": "It is not mentioned in your chats.", "abstained": False}
    )
    assert record_false_abstention({**base, "answer": "Nothing.", "abstained": True})
    assert not record_false_abstention({**base, "answer": "Three times.", "abstained": False})
    assert not record_false_abstention({**base, "answer": "Not mentioned.", "abstention": True})
    assert not record_false_abstention({**base, "answer": "Not mentioned.", "category": 5})
    assert not record_false_abstention({**base, "answer": "Not mentioned.", "noted_sessions": ["lme:x"]})
