"""Document frequency as the index reads a word, and the rarest words of a question."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from refind_desktop.services import build_services
from refind_desktop.types import Session, Turn

WHEN = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _session(sid: str, *texts: str) -> Session:
    return Session(sid, sid, WHEN, ["user"], [Turn(i, t, "user", WHEN) for i, t in enumerate(texts)])


@pytest.fixture
def svc():
    svc = build_services()
    svc.ingestor.apply_sessions(
        [
            _session("s:party", "Thinking about the guests", "I made a gin cocktail for the party"),
            _session("s:plans", "Thinking about plans for the weekend", "The party is on Saturday"),
            _session("s:work", "Thinking about the report", "Choosing a font for the report"),
        ],
        "hand",
        "generic",
    )
    yield svc
    svc.close()


def test_doc_freq_counts_turns_as_the_index_reads_the_word(svc):
    freq = svc.index.doc_freq
    assert svc.index.searcher().num_docs == 6
    assert freq("thinking") == freq("Think") == 3  # stemmed and lower-cased like the indexed text
    assert freq("party") == freq("parties") == 2
    assert freq("cocktails") == 1 and freq("gin") == 1
    assert freq("rhubarb") == 0
    assert freq("the") == 6  # a stop word is never searched: it counts as every turn
    assert freq("...") == 6


def test_rarest_keeps_the_question_order_breaks_ties_by_position_and_skips_absent_words(svc):
    words = ["thinking", "making", "cocktail", "party", "rhubarb", "choose"]
    # df: thinking 3, making 0 ("made" stays "made", "making" reads "make"), cocktail 1, party 2,
    # rhubarb 0, choose 1 ("choosing"); absent words are left out
    assert svc.index.doc_freq("making") == 0 and svc.index.doc_freq("choose") == 1
    assert svc.engine.rarest(words, 2) == ["cocktail", "choose"]  # a tie at 1: both kept
    assert svc.engine.rarest(words, 1) == ["cocktail"]  # a tie broken by position
    assert svc.engine.rarest(words, 3) == ["cocktail", "party", "choose"]
    assert svc.engine.rarest(words, 10) == ["thinking", "cocktail", "party", "choose"]
    assert svc.engine.rarest(["rhubarb", "the"], 2) == ["the"]  # present in every turn; absent ones never
    assert svc.engine.rarest(["rhubarb"], 2) == []
    assert svc.engine.rarest(["party", "party", "gin"], 2) == ["party", "gin"]
