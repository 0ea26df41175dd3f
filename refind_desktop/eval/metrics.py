"""Retrieval metrics over a ranked turn list: session recall_any/all@k, NDCG@k, turn recall@k."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

Hit = tuple[str, int]
"""(session_id, turn index) of one ranked turn."""


def session_ranking(hits: Iterable[Hit]) -> list[str]:
    """Sessions ranked by the first appearance of any of their turns in the turn ranking."""
    return list(dict.fromkeys(s for s, _ in hits))


def recall_any(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when at least one gold item is in the top k."""
    top = set(ranked[:k])
    return float(any(g in top for g in set(gold)))


def recall_all(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """1.0 when every (distinct) gold item is in the top k."""
    want = set(gold)
    return float(bool(want) and want <= set(ranked[:k]))


def ndcg(ranked: Sequence[str], gold: Iterable[str], k: int) -> float:
    """Binary-relevance NDCG@k; the ideal ranking puts the min(|gold|, k) gold items first."""
    want = set(gold)
    if not want:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in want)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(want), k)))
    return dcg / idcg


def turn_recall(hits: Sequence[Hit], gold: Iterable[Hit], k: int, window: int = 0) -> float:
    """Share of gold turns among the top-k hit turns, each hit widened by `window` turns either side
    (the context the mode returns with it; 0 = the hit turn alone)."""
    want = set(gold)
    if not want:
        return 0.0
    covered: dict[str, set[int]] = defaultdict(set)
    for sid, turn in hits[:k]:
        covered[sid].update(range(turn - window, turn + window + 1))
    return sum(1 for sid, turn in want if turn in covered.get(sid, ())) / len(want)


def score_question(
    hits: Sequence[Hit],
    gold_sessions: Sequence[str],
    gold_turns: Sequence[Hit],
    ks: Sequence[int],
    window: int = 0,
) -> dict[str, float]:
    """Every metric at every k for one question (turn metrics only when turn labels exist)."""
    ranked = session_ranking(hits)
    out: dict[str, float] = {}
    for k in ks:
        out[f"recall_any@{k}"] = recall_any(ranked, gold_sessions, k)
        out[f"recall_all@{k}"] = recall_all(ranked, gold_sessions, k)
        out[f"ndcg@{k}"] = ndcg(ranked, gold_sessions, k)
        if gold_turns:
            out[f"turn_recall@{k}"] = turn_recall(hits, gold_turns, k)
            out[f"ctx_turn_recall@{k}"] = turn_recall(hits, gold_turns, k, window)
    return out


def mean_table(rows: Iterable[dict[str, float]]) -> dict[str, float]:
    """Per-metric means; each metric averages over the rows that have it (turn metrics need labels)."""
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    n = 0
    for row in rows:
        n += 1
        for key, value in row.items():
            sums[key] += value
            counts[key] += 1
    out = {key: round(sums[key] / counts[key], 4) for key in sums}
    out["n"] = n
    if counts:
        turn_n = max((c for key, c in counts.items() if key.startswith("turn_recall")), default=0)
        out["n_turn_labelled"] = turn_n
    return out
