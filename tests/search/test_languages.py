"""Each session is stemmed in its own language: a German chat's word forms match a German query's."""

from __future__ import annotations

from datetime import UTC, datetime

from refind_desktop.index.store import session_language
from refind_desktop.services import build_services
from refind_desktop.types import Session, Turn

WHEN = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def chat(sid: str, *texts: str) -> Session:
    return Session(sid, sid, WHEN, ["Lea", "Jonas"], [Turn(i, t, "Lea", WHEN) for i, t in enumerate(texts)])


def test_a_german_chat_matches_other_forms_of_a_german_word():
    svc = build_services()
    try:
        svc.ingestor.apply_sessions(
            [
                chat(
                    "de",
                    "Wir haben gestern zwei neue Fahrräder für die Kinder gekauft.",
                    "Die Räder sind blau.",
                ),
                chat("en", "We talked about the weather and nothing else at all today."),
            ],
            "t",
            "generic",
        )
        blocks = svc.engine.search("Fahrrad gekauft")
        assert blocks and blocks[0].session_id == "de"
        # the English analyzer alone keeps "fahrräder" and "fahrrad" apart
        assert svc.engine.search("Fahrrad", options=svc.search_options(top_k=3))[0].session_id == "de"
    finally:
        svc.close()


def test_the_language_of_a_session_comes_from_its_text():
    assert session_language([Turn(0, "Ich komme morgen nicht ins Büro, weil ich krank bin.")]) == "de"
    assert session_language([Turn(0, "I will not come to the office tomorrow because I am ill.")]) == "en"
    assert session_language([Turn(0, "ok")]) is None
