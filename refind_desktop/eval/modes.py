"""Single-shot retrieval modes for `refind eval retrieval`: a registry of (services, question, k) → hits.

A mode is a function `fn(services, question, k) -> list[(session_id, turn)]`, best first, long enough
to hold k distinct sessions and k turns where the haystack allows. The harness indexes one haystack per
`Services` and puts its parsed sessions in `services.eval_sessions` (for modes that build their own
index, e.g. bm25s or dense); the typed cache fields of `Services` live per haystack. The services a mode
gets are the question's view: `services.engine` is bounded at the question's date in the archive
setting, and `services.question_date` is the question's date. Callers above this layer add modes
with `register_mode`, or lazily with `register_provider` (the CLI does it for raw-RAG's `dense` and
`hybrid`: eval never imports the rag package).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC

from ..errors import ConfigError, MissingDependencyError
from ..search.engine import SearchOptions
from ..search.timewords import mention_range
from ..search.timewords import resolve as resolve_timewords
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
    as_of: bool = False
    """The mode searches only through `services.engine` (or applies its `as_of` bound itself), so it
    can run in the archive setting without later sessions leaking into its results."""


MODES: dict[str, RetrievalMode] = {}
DEFAULT_MODES = ("bm25", "refind", "no-rrf", "no-context", "no-dedup", "no-temporal")
ABLATION_MODES = (
    "session-sum",
    "no-own-words",
    "no-question-words",
    "refind-v1",
    "refind-unscaled",
    "refind-undamped",
    "no-self-boost",
    "refind-dated",
    "refind-since",
    "second-look",
)
"""Measured beside refind on request (--mode): what each part of the scoring adds."""
ANCHOR = "bm25s"
PROVIDERS: dict[str, Callable[[], None]] = {}
"""Mode name → a function that registers it (called the first time the mode is asked for)."""


def register_mode(
    name: str, fn: ModeFn, *, context_window: int = 0, note: str = "", as_of: bool = False
) -> None:
    """Add (or replace) a retrieval mode."""
    MODES[name] = RetrievalMode(name, fn, context_window, note, as_of)


def register_provider(names: tuple[str, ...], load: Callable[[], None]) -> None:
    """Modes registered lazily: `load()` registers them when one is first asked for."""
    for name in names:
        PROVIDERS[name] = load


def get_mode(name: str) -> RetrievalMode:
    """The registered mode, calling its provider when it registers lazily."""
    if name not in MODES and name in PROVIDERS:
        try:
            PROVIDERS[name]()
        except ModuleNotFoundError as exc:
            raise ConfigError(
                f"retrieval mode {name!r} is not available in this build ({exc.name} is missing)"
            ) from exc
    if name not in MODES:
        raise ConfigError(f"unknown retrieval mode {name!r}; available: {', '.join(available_modes())}")
    return MODES[name]


def available_modes() -> list[str]:
    """Registered modes plus the lazily registered ones."""
    return list(dict.fromkeys([*MODES, *PROVIDERS]))


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
        return _hits(services, services.engine.candidates(question, options=options), k)

    return run


def _hits(services, ranked, k: int) -> list[Hit]:
    recs = services.catalog.ords_to_sessions(sorted({r.sord for r in ranked}))
    return cut([(recs[r.sord].sid, r.turn) for r in ranked if r.sord in recs], k)


_REFIND = SearchOptions()
_NOOP = "no-op for single-shot retrieval (one query, no dates, nothing seen yet): same ranking as refind"


def _engine(name: str, options: SearchOptions, note: str, context: bool = True) -> None:
    register_mode(
        name,
        engine_mode(options),
        context_window=options.context_window if context else 0,
        note=note,
        as_of=True,
    )


_PLAIN = _REFIND.with_(
    rrf=False, context_window=0, own_words=False, speaker_weight=0.0, question_words=False, self_boost=0.0
)
_engine("bm25", _PLAIN, "plain turn BM25 (the whole question, turn text only): RRF off, no context", False)
_engine(
    "refind",
    _REFIND,
    "the engine's defaults: two-level RRF (k=60, session = its 3 best turns, its rank scaled onto 60 "
    "places and its term weighted by the square root of 60 / sessions when more sessions compete; "
    "then a question in the first person adds 12 to each turn where the person speaks of "
    "themselves), the person's own words scored beside the turn text, the question's generic words "
    "dropped, ±2 turns of context",
)
_engine(
    "no-rrf",
    _REFIND.with_(rrf=False),
    "refind's query (own words, generic words dropped) ranked by turn BM25 only, ±2 turns of context",
)
_engine(
    "no-context",
    _REFIND.with_(context_window=0),
    "same ranking as refind; only ctx_turn_recall differs (no context turns)",
    False,
)
_engine("no-dedup", _REFIND.with_(session_dedup=False), _NOOP)
_engine("no-temporal", _REFIND.with_(temporal=False), _NOOP)
_engine(
    "session-sum",
    _REFIND.with_(session_top=0),
    "refind with the session scored by the sum over all its pooled turns (the earlier default)",
)
_engine("no-own-words", _REFIND.with_(own_words=False), "refind without the own-words field")
_engine("no-speaker", _REFIND.with_(speaker_weight=0.0), "refind without matching words on who spoke")
_engine(
    "no-question-words", _REFIND.with_(question_words=False), "refind keeping the question's generic words"
)
_engine(
    "refind-v1",
    _REFIND.with_(
        session_top=0,
        own_words=False,
        speaker_weight=0.0,
        question_words=False,
        session_scale=0,
        session_damp=0.0,
        self_boost=0.0,
    ),
    "the engine's scoring before the archive work: session sums over the pool, whole question, text only",
)
_engine(
    "refind-unscaled",
    _REFIND.with_(session_scale=0),
    "refind with plain session ranks (session_scale 0: the default before the scaled session level)",
)
_engine(
    "no-self-boost",
    _REFIND.with_(self_boost=0.0),
    "refind without the first-person prior (self_boost 0: the default before it)",
)
_engine(
    "refind-undamped",
    _REFIND.with_(session_damp=0.0),
    "refind with the session level at full weight however many sessions compete (session_damp 0: "
    "the default before the damped session level)",
)


def dated_mode(options: SearchOptions, since: bool = False) -> ModeFn:
    """The question's relative time words (search/timewords.py, against the question's date) as the
    date filter of the single search; unfiltered when the filter finds nothing or there are none.
    `since`: the filter runs from the event's first day to the question's day (`mention_range`)."""
    resolver = mention_range if since else resolve_timewords

    def run(services, question: str, k: int) -> list[Hit]:
        when = getattr(services, "question_date", None)
        span = resolver(question, when, services.engine.tz) if when else None
        ranked = []
        if span is not None:
            ranked = services.engine.candidates(question, span[0], span[1], options=options)
        if not ranked:
            ranked = services.engine.candidates(question, options=options)
        return _hits(services, ranked, k)

    return run


register_mode(
    "refind-dated",
    dated_mode(_REFIND),
    context_window=_REFIND.context_window,
    note='refind with the question\'s relative time words ("last month", "two weeks ago") resolved '
    "against its date as the date filter; unfiltered when that finds nothing",
    as_of=True,
)
register_mode(
    "refind-since",
    dated_mode(_REFIND, since=True),
    context_window=_REFIND.context_window,
    note="refind filtered to the conversations that can tell of the question's event: from the first "
    "day its time words name to the question's day; unfiltered when that finds nothing",
    as_of=True,
)


def second_look_mode(options: SearchOptions, first: int = 5) -> ModeFn:
    """The small controller's first two searches as one ranking: the fused ranking's top `first`
    sessions (each with its turns in fused order), then the turn-BM25 ranking's turns of the other
    sessions (the second look excludes the sessions already returned)."""
    turn_only = options.with_(rrf=False)

    def run(services, question: str, k: int) -> list[Hit]:
        head = _hits(services, services.engine.candidates(question, options=options), 10**9)
        shown = list(dict.fromkeys(sid for sid, _ in head))[:first]
        kept = set(shown)
        rest = _hits(services, services.engine.candidates(question, options=turn_only), 10**9)
        return cut([h for h in head if h[0] in kept] + [h for h in rest if h[0] not in kept], k)

    return run


register_mode(
    "second-look",
    second_look_mode(_REFIND),
    context_window=_REFIND.context_window,
    note="the small controller's first two searches: refind's top 5 sessions, then the sessions "
    "turn BM25 alone ranks first among the others (read it at @10; @5 equals refind)",
    as_of=True,
)


# -- the external anchor ---------------------------------------------------------------------------
def _bm25s_state(services):
    state = services.bm25s_anchor
    if state is None:
        try:
            import bm25s
            import numpy as np
            import Stemmer
        except ImportError as exc:
            raise MissingDependencyError(
                'the bm25s anchor needs `pip install "refind-desktop[bench]"`'
            ) from exc
        sessions = services.eval_sessions
        keys = [(s.session_id, t.index) for s in sessions for t in s.turns]
        # the turn's time as the index stores it (a turn without one is dated by its session)
        stamps = np.array(
            [_epoch(t.timestamp or s.started_at) for s in sessions for t in s.turns],
            dtype=np.float64,
        )
        stemmer = Stemmer.Stemmer("english")
        model = bm25s.BM25(k1=1.2, b=0.75)
        if keys:
            texts = [t.text for s in sessions for t in s.turns]
            model.index(
                bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                show_progress=False,
            )
        state = services.bm25s_anchor = (bm25s, stemmer, model, keys, stamps)
    return state


def _epoch(when) -> float:
    """Seconds since the epoch (naive times are UTC, as in the eval index); undated: +inf."""
    if when is None:
        return float("inf")
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


def bm25s_mode(services, question: str, k: int) -> list[Hit]:
    """Reference BM25 with the bm25s library (k1 1.2, b 0.75, English stop-words, Snowball stemmer)
    over the same turns; turns with score 0 are dropped, as tantivy only returns matches. Under the
    engine's `as_of` bound, turns dated after it are dropped before ranking, as the engine does
    (document frequencies are over the whole index in both)."""
    bm25s, stemmer, model, keys, stamps = _bm25s_state(services)
    if not keys:
        return []
    tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
    if not any(tokens.ids):
        return []
    docs, scores = model.retrieve(tokens, k=len(keys), show_progress=False, n_threads=1)
    as_of = getattr(services.engine, "as_of", None)
    bound = _epoch(as_of) if as_of is not None else None
    ranked = sorted(
        (
            (float(s), int(d))
            for d, s in zip(docs[0], scores[0], strict=True)
            if s > 0 and (bound is None or stamps[int(d)] <= bound)
        ),
        key=lambda x: (-x[0], x[1]),
    )
    return cut([keys[d] for _, d in ranked], k)


register_mode(
    ANCHOR,
    bm25s_mode,
    note="external anchor: bm25s library, same turns, same tokenization family",
    as_of=True,
)
