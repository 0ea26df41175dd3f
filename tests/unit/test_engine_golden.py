"""Golden tests of the ReFind engine arithmetic on a hand-built archive (rankings worked out by hand)."""

from __future__ import annotations

from datetime import date, datetime, timezone

import numpy as np
import pytest

from refind_desktop.search.engine import RankedTurn, SearchOptions, fuse, merge_windows
from refind_desktop.services import build_services
from refind_desktop.types import Session, Turn


def day(d: int) -> datetime:
    return datetime(2024, 3, d, 12, 0, tzinfo=timezone.utc)


def test_fuse_two_level_rrf_by_hand():
    # (bm25, session, turn). Turn ranks r1: A0=1 (3.0), B0=2 (2.5), B1=3 (2.0), C0=4 (1.0)
    # session sums: A=3.0, B=4.5, C=1.0 -> session ranks r2: B=1, A=2, C=3
    scored = [(3.0, 1, 0), (2.5, 2, 0), (2.0, 2, 1), (1.0, 3, 0)]
    out = fuse(scored, k=60, rrf=True)
    expect = {
        (1, 0): 1 / 61 + 1 / 62,
        (2, 0): 1 / 62 + 1 / 61,
        (2, 1): 1 / 63 + 1 / 61,
        (3, 0): 1 / 64 + 1 / 63,
    }
    for r in out:
        assert r.fused == pytest.approx(expect[(r.sord, r.turn)])
    # A0 and B0 tie on fused score; BM25 breaks the tie (A0 3.0 > B0 2.5)
    assert [(r.sord, r.turn) for r in out] == [(1, 0), (2, 0), (2, 1), (3, 0)]


def test_fuse_session_rank_lifts_a_weaker_turn():
    # one strong turn in session 1, three medium turns in session 2
    scored = [(5.0, 1, 0), (4.0, 2, 0), (3.9, 2, 1), (3.8, 2, 2), (3.7, 3, 0)]
    out = fuse(scored, k=60, rrf=True)
    # session sums: 1=5.0 (rank 2), 2=11.7 (rank 1), 3=3.7 (rank 3)
    # 1/0: 1/61+1/62 = .032520 ; 2/0: 1/62+1/61 same -> bm25 tiebreak: 1/0 first
    # 2/1: 1/63+1/61 = .032266 ; 2/2: 1/64+1/61 = .032018 ; 3/0: 1/65+1/63 = .031258
    assert [(r.sord, r.turn) for r in out] == [(1, 0), (2, 0), (2, 1), (2, 2), (3, 0)]
    plain = fuse(scored, k=60, rrf=False)
    assert [r.fused for r in plain] == [5.0, 4.0, 3.9, 3.8, 3.7]


def test_merge_windows_cut_at_bounds_and_merge_overlaps():
    hits = [
        RankedTurn(1, 5, 3.0, 0.3),
        RankedTurn(2, 0, 2.0, 0.2),
        RankedTurn(1, 8, 1.0, 0.1),
        RankedTurn(1, 1, 0.5, 0.05),
    ]
    out = merge_windows(hits, w=2, n_turns={1: 10, 2: 2})
    # session 1: [3,7] and [6,9] overlap -> [3,9]; [0,3] shares turn 3 with [3,9] -> merged [0,9]
    # session 2: turn 0 with w=2 cut at 0..1
    assert [(s, lo, hi) for s, lo, hi, _ in out] == [(1, 0, 9), (2, 0, 1)]
    assert sorted(h.turn for h in out[0][3]) == [1, 5, 8]


@pytest.fixture
def archive():
    svc = build_services()
    sessions = [
        Session(
            "s:alpha",
            "Alpha trip",
            day(1),
            turns=[
                Turn(0, "We planned a hiking trip to the alps", "user", day(1)),
                Turn(1, "Packing list: boots, tent, stove", "user", day(1)),
                Turn(2, "The tent is green", "user", day(1)),
                Turn(3, "Weather looks fine", "user", day(1)),
                Turn(4, "Hiking boots were expensive", "user", day(1)),
            ],
        ),
        Session(
            "s:beta",
            "Beta cooking",
            day(10),
            turns=[
                Turn(0, "Recipe for tomato soup", "user", day(10)),
                Turn(1, "The stove is broken, cannot cook soup", "user", day(10)),
            ],
        ),
        Session(
            "s:gamma",
            "Gamma hiking",
            day(20),
            turns=[
                Turn(0, "A hiking club meets on Sundays", "user", day(20)),
            ],
        ),
    ]
    svc.ingestor.apply_sessions(sessions, "hand", "generic")
    yield svc
    svc.close()


def test_adjacent_windows_do_not_merge():
    out = merge_windows([RankedTurn(1, 2, 1.0, 0.2), RankedTurn(1, 5, 1.0, 0.1)], w=1, n_turns={1: 9})
    assert [(lo, hi) for _, lo, hi, _ in out] == [(1, 3), (4, 6)]


def test_search_golden_ranking_and_context(archive):
    blocks = archive.engine.search("hiking", options=SearchOptions(top_k=5, context_window=1))
    # BM25 for "hiking" hits alpha:0, alpha:4, gamma:0. Session sums: alpha (two hits) ranks first.
    # Analyzed lengths: alpha:4 "hike boot were expens" = 4, gamma:0 "hike club meet sunday" = 4,
    # alpha:0 "we plan hike trip alp" = 5. BM25: alpha:4 = gamma:0 > alpha:0; ties break on
    # session ordinal, so r1: alpha:4=1, gamma:0=2, alpha:0=3. Session sums: alpha (2 hits) r2=1,
    # gamma r2=2. Fused: alpha:4 1/61+1/61=.03279, alpha:0 1/63+1/61=.03227, gamma:0 1/62+1/62=.03226.
    got = [(b.rank, b.session_id, b.hit_turns, b.turns[0].turn, b.turns[-1].turn) for b in blocks]
    # w=1: alpha:4 -> [3,4]; alpha:0 -> [0,1] (does not touch [3,4]); gamma:0 -> [0,0]
    assert got == [(1, "s:alpha", (4,), 3, 4), (2, "s:alpha", (0,), 0, 1), (3, "s:gamma", (0,), 0, 0)]
    assert blocks[0].score == pytest.approx(2 / 61)
    assert blocks[1].score == pytest.approx(1 / 63 + 1 / 61)
    assert blocks[2].score == pytest.approx(2 / 62)
    assert blocks[0].session_title == "Alpha trip"
    # without RRF the order is plain BM25: alpha:4 and gamma:0 tie, alpha:0 last
    plain = archive.engine.search("hiking", options=SearchOptions(context_window=0, rrf=False))
    assert [(b.session_id, b.turn) for b in plain] == [("s:alpha", 4), ("s:gamma", 0), ("s:alpha", 0)]


def test_time_filter_applies_before_scoring(archive):
    blocks = archive.engine.search("hiking stove", date(2024, 3, 5), date(2024, 3, 31))
    assert {b.session_id for b in blocks} == {"s:beta", "s:gamma"}
    # inclusive days: a range that is exactly the day of gamma keeps it
    only = archive.engine.search("hiking", date(2024, 3, 20), date(2024, 3, 20))
    assert [b.session_id for b in only] == ["s:gamma"]
    # the filter adds nothing to the scores (a bare tantivy range clause adds 1.0 to every turn)
    unfiltered = {(r.sord, r.turn): r.bm25 for r in archive.engine.candidates("hiking stove")}
    filtered = archive.engine.candidates("hiking stove", date(2024, 3, 5), date(2024, 3, 31))
    assert filtered and all(r.bm25 == pytest.approx(unfiltered[(r.sord, r.turn)]) for r in filtered)
    bounded = archive.engine.bounded(day(15)).candidates("hiking stove")
    assert bounded and all(r.bm25 == pytest.approx(unfiltered[(r.sord, r.turn)]) for r in bounded)
    # temporal switch off ignores dates
    off = archive.engine.search(
        "hiking", date(2024, 3, 20), date(2024, 3, 20), options=SearchOptions(temporal=False)
    )
    assert {b.session_id for b in off} == {"s:alpha", "s:gamma"}


def test_seen_sessions_are_excluded_in_later_rounds(archive):
    sess = archive.engine.session(SearchOptions(top_k=1, context_window=0))
    first = sess.search("stove")
    second = sess.search("stove")
    assert len(first) == 1 and len(second) == 1
    assert first[0].session_id != second[0].session_id
    assert sess.seen == {first[0].session_id, second[0].session_id}
    third = sess.search("stove")
    assert third == []  # only two sessions mention the stove
    nodedup = archive.engine.session(SearchOptions(top_k=1, context_window=0, session_dedup=False))
    assert nodedup.search("stove")[0].session_id == nodedup.search("stove")[0].session_id


def test_stopword_only_query_returns_nothing(archive):
    assert archive.engine.search("the and of") == []
    assert archive.engine.search("   ") == []
    # query-language syntax in keywords is never interpreted: this is just the word "tent"
    hits = archive.engine.search('text:"tent" AND (OR', options=SearchOptions(context_window=0))
    assert [(b.session_id, b.turn) for b in hits] == [("s:alpha", 2), ("s:alpha", 1)]


def test_session_scores_sum_or_best_turns_by_hand():
    from refind_desktop.search.engine import session_scores

    # session 0: turns 3.0, 0.5; session 1: six turns of 1.0 (a long session of common words)
    bm25 = np.array([3.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    inverse = np.array([0, 0, 1, 1, 1, 1, 1, 1])
    assert session_scores(bm25, inverse, 2, 0).tolist() == [3.5, 6.0]  # sum over every turn
    assert session_scores(bm25, inverse, 2, 3).tolist() == [3.5, 3.0]  # its 3 best turns
    assert session_scores(bm25, inverse, 2, 1).tolist() == [3.0, 1.0]  # its best turn


def test_fuse_best_three_turns_stop_a_long_session_winning_on_length():
    # sord 1: turns 3.0 and 0.5; sord 2: six turns of 1.0. Turn ranks r1: 1/0=1, 2/0..2/5=2..7, 1/1=8.
    scored = [(3.0, 1, 0), (0.5, 1, 1)] + [(1.0, 2, t) for t in range(6)]
    # sum: sord 2 = 6.0 (r2=1) beats sord 1 = 3.5 (r2=2). 1/0 = 1/61+1/62 ties 2/0 = 1/62+1/61 (BM25
    # breaks it); 1/1 = 1/68+1/62 = .030835 comes after 2/5 = 1/67+1/61 = .031318: last.
    summed = fuse(scored, k=60, rrf=True, session_top=0)
    assert [(r.sord, r.turn) for r in summed][-1] == (1, 1)
    assert summed[-1].fused == pytest.approx(1 / 68 + 1 / 62)
    # best 3 turns: sord 1 = 3.5 (r2=1) beats sord 2 = 3.0 (r2=2). 1/0 = 2/61; 2/0 = 2/62;
    # 2/1..2/5 = 1/63..1/67 + 1/62 (.032002 .. .031054); 1/1 = 1/68+1/61 = .031099 passes 2/5.
    top3 = fuse(scored, k=60, rrf=True, session_top=3)
    order = [(r.sord, r.turn) for r in top3]
    assert order == [(1, 0), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (1, 1), (2, 5)]
    assert top3[0].fused == pytest.approx(2 / 61) and top3[6].fused == pytest.approx(1 / 68 + 1 / 61)


@pytest.fixture
def paired():
    """Assistant-style turns (user part + reply): who said "beagle" matters."""
    svc = build_services()

    def s(sid: str, user: str, reply: str) -> Session:
        return Session(
            sid, sid, day(1), turns=[Turn(0, f"User: {user}\n\nAssistant: {reply}", "user+assistant", day(1))]
        )

    sessions = [
        s("s:dog", "I adopted a beagle", "Congratulations"),
        s("s:breeds", "Which breeds are calm", "A beagle is calm, a beagle is friendly, a beagle is small"),
        s("s:cat", "My cat sleeps", "Cats sleep a lot"),
    ]
    svc.ingestor.apply_sessions(sessions, "hand", "generic")
    yield svc
    svc.close()


def test_own_words_outrank_a_reply_that_repeats_the_word(paired):
    # Analyzed text (Lucene stop list, Snowball): dog "user i adopt beagl assist congratul" = 6 tokens,
    # breeds "user which breed calm assist beagl calm beagl friend beagl small" = 11, cat "user my cat
    # sleep assist cat sleep lot" = 8; average 25/3. BM25 (k1 1.2, b .75), idf(beagl, n=2 of N=3) =
    # ln(1 + 1.5/2.5) = 0.470: dog 1*2.2/(1+1.2*(.25+.75*6/8.33)) = 1.129 -> 0.531; breeds
    # 3*2.2/(3+1.2*(.25+.75*11/8.33)) = 1.471 -> 0.691. Text alone: breeds first.
    plain = paired.engine.candidates("beagle", options=SearchOptions(own_words=False))
    recs = paired.catalog.ords_to_sessions(sorted({r.sord for r in plain}))
    assert [recs[r.sord].sid for r in plain] == ["s:breeds", "s:dog"]
    assert plain[0].bm25 == pytest.approx(0.691, abs=2e-3) and plain[1].bm25 == pytest.approx(0.531, abs=2e-3)
    # The person's own words ("said"): dog "i adopt beagl", breeds "which breed calm", cat "my cat
    # sleep", 3 tokens each; idf(beagl, n=1 of 3) = ln(1 + 2.5/1.5) = 0.981 and tf 1 at average length
    # gives 2.2/2.2 = 1 -> 0.981. dog = 0.531 + 0.981 = 1.512 > breeds 0.691 (no beagle in its user part).
    own = paired.engine.candidates("beagle", options=SearchOptions(own_words=True))
    assert [recs[r.sord].sid for r in own] == ["s:dog", "s:breeds"]
    assert own[0].bm25 == pytest.approx(1.512, abs=3e-3) and own[1].bm25 == pytest.approx(0.691, abs=2e-3)


def test_question_words_do_not_decide(paired):
    from refind_desktop.search.querywords import content_words

    assert content_words("how many times did i adopt my beagle".split()) == ["times", "adopt", "beagle"]
    assert content_words(["what", "did", "i"]) == ["what", "did", "i"]  # nothing else: keep them
    # "which" is in the breeds turn only; as a question word it must not pull that turn up
    kept = paired.engine.candidates("Which one did I adopt?", options=SearchOptions(question_words=False))
    dropped = paired.engine.candidates("Which one did I adopt?", options=SearchOptions(question_words=True))
    recs = paired.catalog.ords_to_sessions(sorted({r.sord for r in kept}))
    assert {recs[r.sord].sid for r in kept} >= {"s:breeds", "s:dog"}
    assert [recs[r.sord].sid for r in dropped] == ["s:dog"]  # only "one" and "adopt" are searched
