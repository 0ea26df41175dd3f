"""List questions ("Which books has Emi read?"): the things are gathered from every chat that tells of
one, each read again alone, and a thing that reading rejects is left out of the list."""

from __future__ import annotations

from datetime import UTC, datetime

from helpers.agent import ask_once, day

from refind_desktop.agent.question import understand
from refind_desktop.types import Session, Turn

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


def chat(sid: str, when: datetime, *lines: tuple[str, str]) -> Session:
    """One conversation of a two-person messenger chat."""
    return Session(
        sid,
        "Emi",
        when,
        ["Emi", "Jonah"],
        [Turn(i, text, who, when) for i, (who, text) in enumerate(lines)],
    )


CHATS = [
    chat(
        "wa:1",
        day(1, 5),
        ("Emi", "I finished reading Dune last night, what a book"),
        ("Jonah", "Nice, books are the best in winter"),
        ("Emi", "I read books on the train every morning"),
        ("Emi", "Dune is a book I will read again"),
    ),
    chat("wa:2", day(2, 11), ("Emi", "Just read Circe, loved that book"), ("Jonah", "Which one is next?")),
    chat("wa:3", day(3, 20), ("Emi", "The book club read Piranesi this month"), ("Jonah", "Sounds good")),
    chat("wa:4", day(4, 2), ("Emi", "The bookshop on Main Street had a book sale"), ("Jonah", "Cool")),
]
TITLES = ("Dune", "Circe", "Piranesi", "book sale")


def read_titles(prompt: str) -> dict:
    """A reading that names the first title a passage's turns hold (the book sale too: a loose reading)."""
    _, data = prompt.split("<<<DATA", 1)
    for line in data.splitlines():
        for title in TITLES:
            if line.startswith("[T") and title in line:
                return {"found": True, "items": [{"turn": line[1 : line.index("]")], "words": title}]}
    return {"found": False, "items": []}


def every_result(prompt: str) -> dict:
    return {"relevant": [int(ln.split(".")[0]) for ln in prompt.splitlines() if ln[:1].isdigit()]}


def kind(text: str) -> str:
    return understand(text, NOW, UTC).kind


def test_a_question_for_several_things_of_a_kind_is_a_list_question_in_each_language():
    assert kind("Which books has Emi read?") == "list"
    assert kind("What activities does Jonah do at the weekend?") == "list"
    assert kind("List the places we went to in Lisbon") == "list"
    assert kind("Was hat Emi alles gelesen?") == "list"
    # one thing asked for: a single fact
    assert kind("Which book did Emi read first?") != "list"
    assert kind("What class does Jonah teach?") == "lookup"
    assert kind("Which bus do I take to the harbour?") == "lookup"
    assert kind("Hat Emi alle Bücher gelesen?") == "yesno"


def books_emi_read(confirm):
    """ "Which books has Emi read?" asked of the chats, each thing's confirming reading answered by
    `confirm` (a reply, or a function of the prompt)."""
    result, _ = ask_once(
        CHATS, "Which books has Emi read?", NOW, relevance=every_result, read=read_titles, confirm=confirm
    )
    return result


def test_a_list_gathers_one_thing_from_each_chat_and_leaves_out_what_its_reading_rejects():
    def confirm(prompt: str) -> dict:
        item = prompt.split("Proposed item:", 1)[1].split("\n", 1)[0]
        return {"about": "book sale" not in item, "answers": True}

    result = books_emi_read(confirm)
    assert result.outcome == "answer"
    for title in ("Dune", "Circe", "Piranesi"):
        assert title in result.answer
    assert "book sale" not in result.answer  # read, then rejected by its own reading: left out
    assert {sid for sid, _ in result.citations} == {"wa:1", "wa:2", "wa:3"}
    assert result.verdicts["parts"] and not result.verdicts["failed"]


def test_a_list_every_part_of_which_is_rejected_is_unsure():
    result = books_emi_read({"about": False, "answers": False})
    assert result.outcome == "unsure" and "part" in result.verdicts["failed"]


def test_passages_are_read_one_chat_at_a_time():
    from refind_desktop.agent.answer import spread
    from refind_desktop.agent.evidence import Passage

    read = [Passage(sid, "", None, (), i) for i, sid in enumerate(["a", "a", "a", "b", "c", "b"])]
    assert [(p.session_id, p.order) for p in spread(read)] == [
        ("a", 0),
        ("b", 3),
        ("c", 4),
        ("a", 1),
        ("b", 5),
        ("a", 2),
    ]


def test_the_noun_phrases_last_word_says_whether_several_things_are_asked_for():
    assert kind("What European cities has Jonah been to?") == "list"
    assert kind("Which running shoes did I buy?") == "list"
    assert kind("What music class does Emi take?") == "lookup"
