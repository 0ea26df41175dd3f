"""HybridEngine: the ReFind engine with four-way RRF (BM25 turn/session + dense turn/session ranks)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, tzinfo

from ..index.catalog import Catalog
from ..index.store import TurnIndex
from ..search.engine import RankedTurn, SearchEngine, SearchOptions, day_bounds, utc_naive
from .dense import DenseRetriever

DENSE_POOL = 1000
"""Windows whose turns get a dense rank (exact cosine over every window picks them)."""


def rrf4(
    bm25: list[RankedTurn], dense_turn: dict[tuple[int, int], int], dense_session: dict[int, int], k: int = 60
) -> list[RankedTurn]:
    """Fuse BM25 turn rank, BM25 session rank (sum of turn BM25), dense turn rank and dense session rank.

    `bm25` holds (sord, turn, bm25) candidates in any order; a rank a candidate lacks adds nothing.
    Ties break on BM25, then session ordinal, then turn. `fused` is the RRF score.
    """
    by_bm25 = sorted(bm25, key=lambda x: (-x.bm25, x.sord, x.turn))
    sums: dict[int, float] = defaultdict(float)
    for r in by_bm25:
        sums[r.sord] += r.bm25
    bm25_session = {s: i for i, s in enumerate(sorted(sums, key=lambda s: (-sums[s], s)), start=1)}
    bm25_turn = {(r.sord, r.turn): i for i, r in enumerate(by_bm25, start=1)}
    score = {key: r.bm25 for key, r in zip(bm25_turn, by_bm25, strict=True)}
    keys = set(bm25_turn) | set(dense_turn)
    out = []
    for key in keys:
        sord = key[0]
        fused = 0.0
        for rank in (
            bm25_turn.get(key),
            bm25_session.get(sord),
            dense_turn.get(key),
            dense_session.get(sord),
        ):
            if rank is not None:
                fused += 1.0 / (k + rank)
        out.append(RankedTurn(sord, key[1], score.get(key, 0.0), fused))
    out.sort(key=lambda x: (-x.fused, -x.bm25, x.sord, x.turn))
    return out


class HybridEngine(SearchEngine):
    """A drop-in `SearchEngine` (for the agent and single-shot search) whose candidates are four-way RRF.

    Context expansion, the time filter and seen-session exclusion behave as in the ReFind engine;
    the time filter, the exclusion and the engine's `as_of` bound apply to the dense side too.
    """

    def __init__(
        self,
        index: TurnIndex,
        catalog: Catalog,
        dense: DenseRetriever,
        tz: tzinfo = UTC,
        as_of: datetime | None = None,
    ) -> None:
        super().__init__(index, catalog, tz, as_of)
        self.dense = dense

    def bounded(self, as_of: datetime | None) -> HybridEngine:
        """The same engine seeing only the turns dated at or before `as_of` on both sides."""
        return HybridEngine(self.index, self.catalog, self.dense, self.tz, as_of)

    def candidates(
        self,
        keywords: str,
        date_from: date | None = None,
        date_to: date | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
        options: SearchOptions = SearchOptions(),
        limit: int | None = None,
    ) -> list[RankedTurn]:
        """Four-way fused candidates (BM25 pool plus the turns of the best dense windows), best first."""
        bm25 = super().candidates(keywords, date_from, date_to, exclude, options.with_(rrf=False))
        if not keywords.strip():
            return bm25[:limit]
        excluded = (
            set(self.catalog.sid_to_ords(sorted(exclude))) if options.session_dedup and exclude else None
        )
        allowed = None
        ranged = bool(options.temporal and (date_from or date_to))
        if ranged or self.as_of is not None:
            lo_day, hi_day = (date_from, date_to) if ranged else (None, None)

            def allowed(pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
                return self._in_range(pairs, lo_day, hi_day)

        turn_rank, session_rank, _ = self.dense.turn_ranks(keywords, DENSE_POOL, excluded, allowed)
        return rrf4(bm25, turn_rank, session_rank, options.rrf_k)[:limit]

    def _in_range(
        self, pairs: list[tuple[int, int]], date_from: date | None, date_to: date | None
    ) -> set[tuple[int, int]]:
        """The (sord, turn) pairs whose turn time lies inside the inclusive day range and at or before
        the engine's `as_of` bound (undated turns never pass either)."""
        if not pairs:
            return set()
        recs = self.catalog.ords_to_sessions(sorted({s for s, _ in pairs}))
        sids = sorted(r.sid for r in recs.values())
        if not sids:
            return set()
        lo, hi = day_bounds(date_from, date_to, self.tz)
        if self.as_of is not None:
            bound = utc_naive(self.as_of, self.tz)
            hi = bound if hi is None else min(hi, bound)
        return self.index.turns_in_time_range(sids, lo, hi) & set(pairs)
