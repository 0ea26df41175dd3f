"""Registers the `dense`, `dense-rrf` and `hybrid` modes of `refind eval retrieval` (imported lazily)."""

from __future__ import annotations

from typing import Any

from ..eval.metrics import Hit
from ..eval.modes import cut, register_mode
from ..search.engine import SearchOptions
from .rawrag import dense_for


def _ready(services: Any):
    """The haystack's dense retriever, its windows embedded once per haystack."""
    dense = dense_for(services)
    if not services.vectors_current:
        dense.catch_up()
        services.vectors_current = True
    return dense


def _sid(services: Any, sords: list[int]) -> dict[int, str]:
    return {o: r.sid for o, r in services.catalog.ords_to_sessions(sorted(set(sords))).items()}


def dense_mode(services: Any, question: str, k: int) -> list[Hit]:
    """Raw-RAG retrieval order: cosine top 128 (reranked when a cross-encoder is configured), each
    window's turns in order, first occurrence kept."""
    dense = _ready(services)
    ret = dense.retrieve(question, keep=128)
    sids = _sid(services, [h.sord for h in ret.kept])
    hits = [
        (sids[h.sord], t) for h in ret.kept if h.sord in sids for t in range(h.first_turn, h.last_turn + 1)
    ]
    return cut(list(dict.fromkeys(hits)), k)


def dense_rrf_mode(services: Any, question: str, k: int) -> list[Hit]:
    """The ReFind paper's dense backend: RRF of dense turn rank and top-3-similarity session rank."""
    dense = _ready(services)
    turn_rank, session_rank, _ = dense.turn_ranks(question)
    fused = sorted(
        turn_rank, key=lambda key: (-(1 / (60 + turn_rank[key]) + 1 / (60 + session_rank[key[0]])), key)
    )
    sids = _sid(services, [s for s, _ in fused])
    return cut([(sids[s], t) for s, t in fused if s in sids], k)


def hybrid_mode(services: Any, question: str, k: int) -> list[Hit]:
    """Four-way RRF (BM25 turn + session, dense turn + session), single shot."""
    from .hybrid import HybridEngine

    engine = services.hybrid
    if engine is None:
        engine = services.hybrid = HybridEngine(
            services.index, services.catalog, _ready(services), services.tz
        )
    ranked = engine.candidates(question, options=SearchOptions())
    sids = _sid(services, [r.sord for r in ranked])
    return cut([(sids[r.sord], r.turn) for r in ranked if r.sord in sids], k)


register_mode(
    "dense",
    dense_mode,
    note="Raw-RAG order: exact cosine over 256/32-token windows (rerank when "
    "rerank_model is set, else dense order), windows expanded to their turns",
)
register_mode("dense-rrf", dense_rrf_mode, note="dense turn rank + dense session rank (top-3 sum), RRF k=60")
register_mode(
    "hybrid",
    hybrid_mode,
    context_window=SearchOptions().context_window,
    note="four-way RRF k=60: BM25 turn/session + dense turn/session ranks, ±2 turns of context",
)
