"""Single-shot retrieval modes for `refind eval retrieval`: a registry of (services, question, k) → hits.

A mode is a function `fn(services, question, k) -> list[(session_id, turn)]`, best first, long enough
to hold k distinct sessions and k turns where the haystack allows. The harness indexes one haystack per
`Services` and puts its parsed sessions in `services.eval_sessions` (for modes that build their own
index, e.g. bm25s or dense); the typed cache fields of `Services` live per haystack. Other packages add
modes with `register_mode` (the raw-RAG package registers `dense` and `hybrid`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ConfigError, MissingDependencyError
from ..search.engine import SearchOptions
from .metrics import Hit

ModeFn = Callable[[object, str, int], list[Hit]]


@dataclass(frozen=True)
class RetrievalMode:
    """A registered retrieval mode with the context its hits come with and an honest note."""

    name: str
    fn: ModeFn
    context_window: int = 0
    """Turns of context returned around each hit (scored by ctx_turn_recall@k)."""
    note: str = ""
    """Shown beside the results, e.g. that a switch is a no-op for single-shot retrieval."""


MODES: dict[str, RetrievalMode] = {}
DEFAULT_MODES = ("bm25", "refind", "no-rrf", "no-context", "no-dedup", "no-temporal")
ANCHOR = "bm25s"
LAZY_MODES = {
    "dense": "refind_desktop.rag.eval_modes",
    "dense-rrf": "refind_desktop.rag.eval_modes",
    "hybrid": "refind_desktop.rag.eval_modes",
}
"""Modes whose module registers them on import (looked up only when asked for)."""


def register_mode(name: str, fn: ModeFn, *, context_window: int = 0, note: str = "") -> None:
    """Add (or replace) a retrieval mode."""
    MODES[name] = RetrievalMode(name, fn, context_window, note)


def get_mode(name: str) -> RetrievalMode:
    """The registered mode, importing its provider module when it registers lazily."""
    if name not in MODES and name in LAZY_MODES:
        import importlib

        try:
            importlib.import_module(LAZY_MODES[name])
        except ModuleNotFoundError as exc:
            raise ConfigError(
                f"retrieval mode {name!r} is not available in this build ({exc.name} is missing)"
            ) from exc
    if name not in MODES:
        raise ConfigError(f"unknown retrieval mode {name!r}; available: {', '.join(available_modes())}")
    return MODES[name]


def available_modes() -> list[str]:
    """Registered modes plus the lazily registered ones."""
    return list(dict.fromkeys([*MODES, *LAZY_MODES]))


def cut(hits: list[Hit], k: int) -> list[Hit]:
    """The shortest prefix holding k turns and k distinct sessions (or everything)."""
    sessions: set[str] = set()
    for i, (sid, _) in enumerate(hits):
        sessions.add(sid)
        if i + 1 >= k and len(sessions) >= k:
            return hits[: i + 1]
    return hits


# -- the engine's modes ----------------------------------------------------------------------------
def engine_mode(options: SearchOptions) -> ModeFn:
    """A mode that ranks turns with `SearchEngine.candidates` under fixed options (no dates, no seen set)."""

    def run(services, question: str, k: int) -> list[Hit]:
        ranked = services.engine.candidates(question, options=options)
        recs = services.catalog.ords_to_sessions(sorted({r.sord for r in ranked}))
        return cut([(recs[r.sord].sid, r.turn) for r in ranked if r.sord in recs], k)

    return run


_REFIND = SearchOptions()
_NOOP = "no-op for single-shot retrieval (one query, no dates, nothing seen yet): same ranking as refind"
register_mode(
    "bm25",
    engine_mode(_REFIND.with_(rrf=False, context_window=0)),
    note="turn BM25 only: RRF off, no context",
)
register_mode(
    "refind",
    engine_mode(_REFIND),
    context_window=_REFIND.context_window,
    note="two-level RRF (k=60) with the engine's defaults, ±2 turns of context",
)
register_mode(
    "no-rrf",
    engine_mode(_REFIND.with_(rrf=False)),
    context_window=_REFIND.context_window,
    note="pure turn BM25 ranking with ±2 turns of context: session/turn metrics equal bm25's",
)
register_mode(
    "no-context",
    engine_mode(_REFIND.with_(context_window=0)),
    note="same ranking as refind; only ctx_turn_recall differs (no context turns)",
)
register_mode(
    "no-dedup",
    engine_mode(_REFIND.with_(session_dedup=False)),
    context_window=_REFIND.context_window,
    note=_NOOP,
)
register_mode(
    "no-temporal",
    engine_mode(_REFIND.with_(temporal=False)),
    context_window=_REFIND.context_window,
    note=_NOOP,
)


# -- the external anchor ---------------------------------------------------------------------------
def bm25s_mode(services, question: str, k: int) -> list[Hit]:
    """Reference BM25 with the bm25s library (k1 1.2, b 0.75, English stop-words, Snowball stemmer)
    over the same turns; turns with score 0 are dropped, as tantivy only returns matches."""
    state = services.bm25s_anchor
    if state is None:
        try:
            import bm25s
            import Stemmer
        except ImportError as exc:
            raise MissingDependencyError(
                'the bm25s anchor needs `pip install "refind-desktop[bench]"`'
            ) from exc
        sessions = services.eval_sessions
        keys = [(s.session_id, t.index) for s in sessions for t in s.turns]
        stemmer = Stemmer.Stemmer("english")
        model = bm25s.BM25(k1=1.2, b=0.75)
        if keys:
            texts = [t.text for s in sessions for t in s.turns]
            model.index(
                bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                show_progress=False,
            )
        state = services.bm25s_anchor = (bm25s, stemmer, model, keys)
    bm25s, stemmer, model, keys = state
    if not keys:
        return []
    tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
    if not any(tokens.ids):
        return []
    docs, scores = model.retrieve(tokens, k=len(keys), show_progress=False, n_threads=1)
    ranked = sorted(
        ((float(s), int(d)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0),
        key=lambda x: (-x[0], x[1]),
    )
    return cut([keys[d] for _, d in ranked], k)


register_mode(ANCHOR, bm25s_mode, note="external anchor: bm25s library, same turns, same tokenization family")
