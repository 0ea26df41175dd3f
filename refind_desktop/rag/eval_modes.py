"""The `dense`, `dense-rrf` and `hybrid` rankings of `refind eval retrieval` (registered by the CLI).

Each function is `(services, question) -> [(session_id, turn), ...]`, best first, the whole ranking;
the eval harness cuts it to k. This module does not import the eval package (same layer).
"""

from __future__ import annotations

from typing import Any

from ..search.engine import SearchOptions
from .rawrag import dense_for

Hit = tuple[str, int]


def _ready(services: Any):
    """The haystack's dense retriever, its windows embedded once per haystack."""
    dense = dense_for(services)
    if not services.vectors_current:
        dense.catch_up()
        services.vectors_current = True
    return dense


def _sid(services: Any, sords: list[int]) -> dict[int, str]:
    return {o: r.sid for o, r in services.catalog.ords_to_sessions(sorted(set(sords))).items()}


def dense_mode(services: Any, question: str) -> list[Hit]:
    """Raw-RAG retrieval order: cosine top 128 (reranked when a cross-encoder is configured), each
    window's turns in order, first occurrence kept."""
    dense = _ready(services)
    ret = dense.retrieve(question, keep=128)
    sids = _sid(services, [h.sord for h in ret.kept])
    hits = [
        (sids[h.sord], t) for h in ret.kept if h.sord in sids for t in range(h.first_turn, h.last_turn + 1)
    ]
    return list(dict.fromkeys(hits))


def dense_rrf_mode(services: Any, question: str) -> list[Hit]:
    """The ReFind paper's dense backend: RRF of dense turn rank and top-3-similarity session rank."""
    dense = _ready(services)
    turn_rank, session_rank, _ = dense.turn_ranks(question)
    fused = sorted(
        turn_rank, key=lambda key: (-(1 / (60 + turn_rank[key]) + 1 / (60 + session_rank[key[0]])), key)
    )
    sids = _sid(services, [s for s, _ in fused])
    return [(sids[s], t) for s, t in fused if s in sids]


def hybrid_mode(services: Any, question: str) -> list[Hit]:
    """Four-way RRF (BM25 turn + session, dense turn + session), single shot, both sides under the
    question's `as_of` bound (the archive setting)."""
    from .hybrid import HybridEngine

    engine = services.hybrid
    if engine is None:
        engine = services.hybrid = HybridEngine(
            services.index, services.catalog, _ready(services), services.tz
        )
    engine = engine.bounded(getattr(services.engine, "as_of", None))
    ranked = engine.candidates(question, options=SearchOptions())
    sids = _sid(services, [r.sord for r in ranked])
    return [(sids[r.sord], r.turn) for r in ranked if r.sord in sids]


RAG_EVAL_MODES: dict[str, tuple[Any, int, str, bool]] = {
    "dense": (
        dense_mode,
        0,
        "Raw-RAG order: exact cosine over 256/32-token windows (rerank when "
        "rerank_model is set, else dense order), windows expanded to their turns",
        False,
    ),
    "dense-rrf": (dense_rrf_mode, 0, "dense turn rank + dense session rank (top-3 sum), RRF k=60", False),
    "hybrid": (
        hybrid_mode,
        SearchOptions().context_window,
        "four-way RRF k=60: BM25 turn/session + dense turn/session ranks, ±2 turns of context",
        True,
    ),
}
"""name → (ranking function, context window, note, whether it applies the archive setting's `as_of`
bound: only those run there)."""
