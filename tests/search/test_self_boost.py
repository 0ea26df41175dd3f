"""The first-person prior: a question about the person favours the turns where they spoke of themselves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from refind_desktop.search.engine import SearchOptions
from refind_desktop.search.querywords import about_person
from refind_desktop.services import build_services
from refind_desktop.types import Session, Turn

WHEN = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _session(sid: str, text: str) -> Session:
    # an assistant-style turn: the person's message, then the reply (ingest/base.py join_pair)
    turn = Turn(0, f"User: {text}\n\nAssistant: Noted.", "user+assistant", WHEN)
    return Session(sid, sid, WHEN, ["user", "assistant"], [turn])


@pytest.fixture
def svc():
    svc = build_services()
    svc.ingestor.apply_sessions(
        [
            # two impersonal turns that say "Eiffel tower" more often than the personal one
            _session("s:history", "Eiffel tower history: the Eiffel tower was built for the 1889 fair."),
            _session("s:height", "How tall is the Eiffel tower? The Eiffel tower height with antennas."),
            _session("s:visit", "I visited the Eiffel tower with my sister last spring."),
        ],
        "hand",
        "generic",
    )
    yield svc
    svc.close()


def _order(svc, keywords: str, **options) -> list[str]:
    opts = SearchOptions(session_scale=2, context_window=0).with_(**options)
    ranked = svc.engine.candidates(keywords, options=opts)
    recs = svc.catalog.ords_to_sessions(sorted({r.sord for r in ranked}))
    return list(dict.fromkeys(recs[r.sord].sid for r in ranked))


def test_about_person():
    assert about_person("When did I visit the Eiffel tower?")
    assert about_person("Where is my passport")
    assert about_person("Can you remind me what you said?")
    assert not about_person("How tall is the Eiffel tower?")
    assert not about_person("Is it mine or Imogen's?".replace("mine", "theirs"))  # "Imogen" is no "I"


def test_a_first_person_question_lifts_the_turn_where_the_person_spoke_of_themselves(svc):
    # three sessions pooled, more than the scale of 2: the prior applies
    boosted = svc.engine.candidates(
        "When was I at the Eiffel tower?", options=SearchOptions(session_scale=2, context_window=0)
    )
    plain = svc.engine.candidates(
        "When was I at the Eiffel tower?",
        options=SearchOptions(session_scale=2, context_window=0, self_boost=0.0),
    )
    by_turn = {(r.sord, r.turn): r.bm25 for r in plain}
    # exactly the personal turn gains the 12 points; the others keep their BM25
    for r in boosted:
        mine = svc.catalog.ords_to_sessions([r.sord])[r.sord].sid == "s:visit"
        assert r.bm25 == pytest.approx(by_turn[(r.sord, r.turn)] + (12.0 if mine else 0.0))
    assert _order(svc, "When was I at the Eiffel tower?")[0] == "s:visit"


def test_the_prior_needs_a_personal_search_and_an_archive_sized_pool(svc):
    question = "When was I at the Eiffel tower?"
    without = _order(svc, question, self_boost=0.0)
    assert without[0] != "s:visit"  # on its words alone an impersonal turn wins
    # an impersonal question (no I/my/me) is left alone
    assert _order(svc, "Eiffel tower") == _order(svc, "Eiffel tower", self_boost=0.0)
    # ... unless the caller says the search is about the person (the agent does, from its question)
    assert _order(svc, "Eiffel tower", person=True)[0] == "s:visit"
    assert _order(svc, question, person=False) == without
    # a haystack-sized pool (no more sessions than the scale) is ranked exactly as before
    assert _order(svc, question, session_scale=3) == _order(svc, question, session_scale=3, self_boost=0.0)


def test_generic_bm25_has_no_prior():
    assert SearchOptions.generic().self_boost == 0.0
    assert SearchOptions().self_boost == 12.0 and SearchOptions().person is None
