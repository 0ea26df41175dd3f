"""The `second-look` retrieval mode: the fused ranking's top sessions, then the turn ranking's others."""

from __future__ import annotations

import pytest
from helpers.agent import day, session

from refind_desktop.eval.modes import _hits, get_mode, second_look_mode
from refind_desktop.search.engine import SearchOptions
from refind_desktop.services import build_services

# s:fact states the fact in one short turn (the best turn: rank 1); s:topic and s:club name both
# words in three longer turns each (turn ranks 2-4 and 5-7; the best sessions by their 3 best turns:
# ranks 1 and 2, s:fact 3rd). Fused (k = 60), s:topic's best turn (turn rank 2, session rank 1)
# beats s:fact's (1 and 3): 1/62 + 1/61 > 1/61 + 1/63. s:board matches "paddle" only.
ARCHIVE = [
    session("s:fact", day(1, 9), "kayak paddle", "lunch was pasta", "the weather held"),
    session(
        "s:topic",
        day(1, 5),
        "kayak paddle trip planning",
        "kayak paddle rental prices",
        "kayak paddle lessons booked",
    ),
    session(
        "s:club",
        day(1, 7),
        "the kayak paddle club meets every week at the lake",
        "the kayak paddle club has a race in the spring",
        "the kayak paddle club sells used boats and gear",
    ),
    session("s:board", day(1, 12), "a paddle board for the summer holidays at the sea"),
]


@pytest.fixture
def svc():
    services = build_services()
    services.ingestor.apply_sessions(ARCHIVE, "second-look-tests", "generic")
    yield services
    services.close()


def sessions(hits):
    return list(dict.fromkeys(sid for sid, _ in hits))


def test_second_look_is_the_fused_top_then_the_turn_ranking_of_the_rest(svc):
    options = SearchOptions(context_window=0)
    fused = sessions(_hits(svc, svc.engine.candidates("kayak paddle", options=options), 100))
    turn = sessions(_hits(svc, svc.engine.candidates("kayak paddle", options=options.with_(rrf=False)), 100))
    # the worked-out ranks (see ARCHIVE)
    assert turn == ["s:fact", "s:topic", "s:club", "s:board"]
    assert fused == ["s:topic", "s:fact", "s:club", "s:board"]
    top = svc.engine.candidates("kayak paddle", options=options)[:2]
    assert [r.fused for r in top] == pytest.approx([1 / 62 + 1 / 61, 1 / 61 + 1 / 63])
    assert set(fused) == set(turn) == {"s:topic", "s:fact", "s:club", "s:board"}
    hits = second_look_mode(options, first=1)(svc, "kayak paddle", 10)
    assert sessions(hits) == ["s:topic", "s:fact", "s:club", "s:board"]  # = s:topic, then turn order
    assert sessions(second_look_mode(options, first=0)(svc, "kayak paddle", 10)) == turn
    # the first part keeps every turn of the fused top session, in fused order
    assert [t for sid, t in hits if sid == "s:topic"] == [
        t
        for sid, t in _hits(svc, svc.engine.candidates("kayak paddle", options=options), 100)
        if sid == "s:topic"
    ]


def test_second_look_at_five_equals_refind_and_runs_in_the_archive_setting(svc):
    mode = get_mode("second-look")
    assert mode.as_of and mode.context_window == SearchOptions().context_window
    refind = get_mode("refind").fn(svc, "kayak paddle", 5)
    assert sessions(mode.fn(svc, "kayak paddle", 5))[:4] == sessions(refind)[:4]
