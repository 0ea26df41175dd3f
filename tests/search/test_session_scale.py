"""The session rank of the second RRF level scaled onto `session_scale` places (ranks worked out by hand)."""

from __future__ import annotations

import pytest

from refind_desktop.search.engine import SearchOptions, fuse

# (bm25, session, turn). Turn ranks r1 by BM25: A0=1, B0=2, B1=3, B2=4, C0=5, C1=6, D0=7, D1=8, D2=9.
# Session sums of the 3 best turns: B=24.0, D=11.7, C=11.5, A=10.0 -> session ranks r2: B=1, D=2, C=3, A=4.
# A holds the best turn, but its session ranks last by its sum.
SCORED = [
    (10.0, 1, 0),
    (9.0, 2, 0),
    (8.0, 2, 1),
    (7.0, 2, 2),
    (6.0, 3, 0),
    (5.5, 3, 1),
    (4.0, 4, 0),
    (3.9, 4, 1),
    (3.8, 4, 2),
]


def test_plain_session_ranks_let_a_long_session_pass_the_best_turn():
    out = fuse(SCORED, k=60, rrf=True, session_top=3)
    # B0 = 1/62 + 1/61 = .032522, B1 = 1/63 + 1/61 = .032266, A0 = 1/61 + 1/64 = .032018,
    # B2 = 1/64 + 1/61 = .032018 (a tie with A0, broken by BM25)
    fused = {(r.sord, r.turn): r.fused for r in out}
    assert fused[(1, 0)] == pytest.approx(1 / 61 + 1 / 64)
    assert fused[(2, 1)] == pytest.approx(1 / 63 + 1 / 61)
    assert [(r.sord, r.turn) for r in out[:4]] == [(2, 0), (2, 1), (1, 0), (2, 2)]


def test_scaled_session_ranks_keep_the_best_turn_ahead():
    # 4 sessions scaled onto 2 places: r2 * 2/4 -> B=0.5, D=1.0, C=1.5, A=2.0
    out = fuse(SCORED, k=60, rrf=True, session_top=3, session_scale=2)
    fused = {(r.sord, r.turn): r.fused for r in out}
    # B0 = 1/62 + 1/60.5 = .032658, A0 = 1/61 + 1/62 = .032522, B1 = 1/63 + 1/60.5 = .032402
    assert fused[(2, 0)] == pytest.approx(1 / 62 + 1 / 60.5)
    assert fused[(1, 0)] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[(2, 1)] == pytest.approx(1 / 63 + 1 / 60.5)
    assert fused[(4, 0)] == pytest.approx(1 / 67 + 1 / 61)
    assert [(r.sord, r.turn) for r in out[:3]] == [(2, 0), (1, 0), (2, 1)]


@pytest.mark.parametrize("scale", [4, 60])
def test_no_more_sessions_than_the_scale_changes_nothing(scale):
    plain = fuse(SCORED, k=60, rrf=True, session_top=3)
    scaled = fuse(SCORED, k=60, rrf=True, session_top=3, session_scale=scale)
    assert scaled == plain


def test_scale_is_off_without_rrf():
    assert fuse(SCORED, k=60, rrf=False, session_scale=2) == fuse(SCORED, k=60, rrf=False)


def test_default_scale_is_the_rrf_k():
    assert SearchOptions().session_scale == SearchOptions().rrf_k == 60


def test_damped_session_level_lets_the_best_turn_lead():
    # 4 sessions on 2 places: r2 = B 0.5, D 1.0, C 1.5, A 2.0 as above, and the session term weighted
    # by (2/4) ** damp. damp 1 -> weight 0.5:
    # A0 = 1/61 + 0.5/62 = .024458, B0 = 1/62 + 0.5/60.5 = .024393, B1 = 1/63 + 0.5/60.5 = .024137
    out = fuse(SCORED, k=60, rrf=True, session_top=3, session_scale=2, session_damp=1.0)
    fused = {(r.sord, r.turn): r.fused for r in out}
    assert fused[(1, 0)] == pytest.approx(1 / 61 + 0.5 / 62)
    assert fused[(2, 0)] == pytest.approx(1 / 62 + 0.5 / 60.5)
    assert [(r.sord, r.turn) for r in out[:3]] == [(1, 0), (2, 0), (2, 1)]
    # damp 0.5 -> weight sqrt(0.5) = .707107: B0 = 1/62 + .707107/60.5 = .027817 keeps a hair ahead of
    # A0 = 1/61 + .707107/62 = .027798, and C0 = 1/65 + .707107/61.5 = .026882
    half = {(r.sord, r.turn): r.fused for r in fuse(SCORED, 60, True, None, 3, 2, 0.5)}
    assert half[(2, 0)] == pytest.approx(1 / 62 + 0.5**0.5 / 60.5)
    assert half[(1, 0)] == pytest.approx(1 / 61 + 0.5**0.5 / 62)
    assert half[(3, 0)] == pytest.approx(1 / 65 + 0.5**0.5 / 61.5)
    # damp 0 is the undamped scaled fusion
    assert fuse(SCORED, 60, True, None, 3, 2, 0.0) == fuse(SCORED, 60, True, None, 3, 2)


@pytest.mark.parametrize("damp", [0.5, 1.0])
def test_damping_changes_nothing_within_the_scale(damp):
    # a haystack-sized pool (no more sessions than the scale) is fused exactly as before
    assert fuse(SCORED, 60, True, None, 3, 4, damp) == fuse(SCORED, 60, True, None, 3)


def test_default_damp_is_the_square_root():
    assert SearchOptions().session_damp == 0.5
