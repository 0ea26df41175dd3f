"""DenseRetriever: question → valid windows by exact cosine, optional cross-encoder rerank, turn ranks."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..index.catalog import Catalog
from ..index.store import TurnIndex
from .indexer import EmbedProgress, EmbedReport, catch_up
from .state import vectors_folder
from .vectors import VectorStore
from .windows import window_text

CANDIDATES = 128
"""Windows retrieved by cosine before the rerank (Raw-RAG paper)."""
KEEP = 15
"""Windows kept after the rerank (Raw-RAG paper)."""
SESSION_TOP = 3
"""Dense session score = sum of its best three window similarities (ReFind paper's dense backend)."""

_MODELS: dict[tuple[str, str, int], Any] = {}
_MODELS_LOCK = threading.Lock()


def shared_model(kind: str, name: str, threads: int) -> Any:
    """One loaded model per process (the eval harness asks for it once per haystack)."""
    from .models import Embedder, load_reranker

    key = (kind, name, threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = Embedder(name, threads) if kind == "embed" else load_reranker(name, threads)
        return _MODELS[key]


@dataclass(frozen=True, slots=True)
class WindowHit:
    """A retrieved window: session ordinal, the turns it covers, its cosine and rerank scores."""

    wid: int
    sord: int
    first_turn: int
    last_turn: int
    dense: float
    rerank: float | None = None


@dataclass
class Retrieval:
    """What one Raw-RAG retrieval did (the trajectory records it)."""

    candidates: list[WindowHit]
    kept: list[WindowHit]
    reranker: str | None
    fallback: str = ""
    """Why the order is the dense order ('' when a cross-encoder reranked)."""
    stale_sessions: int = 0
    extra: dict = field(default_factory=dict)


class DenseRetriever:
    """Vectors beside one turn index, with the models that read and write them (loaded on first use)."""

    def __init__(
        self,
        index: TurnIndex,
        catalog: Catalog,
        embed_model: str = "",
        rerank_model: str = "",
        threads: int = 0,
        embedder: Any = None,
        reranker: tuple[Any, str] | None = None,
    ) -> None:
        self.index = index
        self.catalog = catalog
        self.store = VectorStore(vectors_folder(index.path))
        self.embed_model = embed_model
        self.rerank_model = rerank_model
        self.threads = threads
        self._embedder = embedder
        self._reranker = reranker

    @property
    def embedder(self) -> Any:
        """The bi-encoder (given, or loaded once per process)."""
        if self._embedder is None:
            self._embedder = shared_model("embed", self.embed_model, self.threads)
        return self._embedder

    def reranker(self) -> tuple[Any, str]:
        """(cross-encoder, '') or (None, why the dense order is used)."""
        if self._reranker is None:
            self._reranker = shared_model("rerank", self.rerank_model, self.threads)
        return self._reranker

    def close(self) -> None:
        """Close the vector store."""
        self.store.close()

    # -- writing -------------------------------------------------------------------------------------
    def catch_up(
        self,
        progress: Callable[[EmbedProgress], None] | None = None,
        cancel: threading.Event | None = None,
        rebuild: bool = False,
    ) -> EmbedReport:
        """Embed what ingest added or changed since the last run (`rebuild`: everything again)."""
        if rebuild:
            self.store.wipe()
        return catch_up(self.index, self.catalog, self.store, self.embedder, progress, cancel)

    def pending_sessions(self) -> int:
        """Sessions whose windows are not (all) embedded yet."""
        from .indexer import session_fingerprint

        done = self.store.table.fingerprints()
        return sum(
            1
            for r in self.catalog.iter_sessions()
            if done.get(r.ord) != session_fingerprint(r.n_turns, r.hashes)
        )

    # -- reading -------------------------------------------------------------------------------------
    def encode_query(self, text: str) -> Any:
        """Unit vector of a question or keyword list."""
        if self.store.model and self.store.model != self.embedder.name:
            self.store.check_model(self.embedder.name, self.embedder.dim)  # raises with the fix
        return self.embedder.encode([text])[0]

    def windows(self, query: str, k: int, exclude_sords: set[int] | None = None) -> list[WindowHit]:
        """The k best valid windows by exact cosine (windows of changed or removed turns are skipped)."""
        if not len(self.store.load().wid):
            return []
        qv = self.encode_query(query)
        want = k
        while True:
            raw = self.store.search(qv, want + 16, exclude_sords)
            data = self.store.load()
            hits = [
                WindowHit(
                    int(data.wid[i]), int(data.sord[i]), int(data.first_turn[i]), int(data.last_turn[i]), s
                )
                for i, s in raw
            ]
            valid = self._valid(hits)
            if len(valid) >= k or len(raw) < want + 16:
                return valid[:k]
            want *= 2

    def _valid(self, hits: list[WindowHit]) -> list[WindowHit]:
        """Drop windows whose session is gone or whose turns changed after they were embedded."""
        sords = sorted({h.sord for h in hits})
        recs = self.catalog.ords_to_sessions(sords)
        cut_from = self.store.table.contents(sords)
        ok_upto: dict[int, int] = {}
        for sord in sords:
            rec, old = recs.get(sord), cut_from.get(sord)
            if rec is None or old is None:
                ok_upto[sord] = -1
                continue
            common = 0
            for a, b in zip(old, rec.hashes, strict=False):
                if a != b:
                    break
                common += 1
            ok_upto[sord] = common - 1
        return [h for h in hits if h.last_turn <= ok_upto[h.sord]]

    def texts(self, hits: list[WindowHit]) -> list[str]:
        """The exact text of each window, rebuilt from the index (for the cross-encoder)."""
        spans = self.store.table.spans([h.wid for h in hits])
        out = []
        for h in hits:
            sord, first, last, c0, c1 = spans[h.wid]
            turns = self.index.session_turns(sord, max(0, first - 1), last)
            out.append(window_text(turns, first, c0, c1))
        return out

    def retrieve(self, question: str, candidates: int = CANDIDATES, keep: int = KEEP) -> Retrieval:
        """Raw-RAG retrieval: cosine top `candidates` → cross-encoder → top `keep` (dense order fallback)."""
        cands = self.windows(question, candidates)
        reranker, why = self.reranker()
        if reranker is None or not cands:
            return Retrieval(cands, cands[:keep], None, why if reranker is None else "")
        scores = reranker.score(question, self.texts(cands))
        ranked = sorted(
            (
                WindowHit(h.wid, h.sord, h.first_turn, h.last_turn, h.dense, s)
                for h, s in zip(cands, scores, strict=True)
            ),
            key=lambda h: (-(h.rerank or 0.0), -h.dense, h.wid),
        )
        return Retrieval(cands, ranked[:keep], reranker.name)

    def turn_ranks(
        self,
        query: str,
        pool: int = 1000,
        exclude_sords: set[int] | None = None,
        allowed: Callable[[list[tuple[int, int]]], set[tuple[int, int]]] | None = None,
    ) -> tuple[dict[tuple[int, int], int], dict[int, int], dict[tuple[int, int], float]]:
        """Dense turn rank, dense session rank and turn score over the best `pool` windows.

        A turn scores the best cosine of the windows covering it (turns of one window share its
        rank); a session scores the sum of its best three window cosines. `allowed` filters
        (sord, turn) pairs first (the time filter).
        """
        hits = self.windows(query, pool, exclude_sords)
        score: dict[tuple[int, int], float] = {}
        for h in hits:
            for t in range(h.first_turn, h.last_turn + 1):
                key = (h.sord, t)
                if key not in score or h.dense > score[key]:
                    score[key] = h.dense
        if allowed is not None:
            keep = allowed(list(score))
            score = {k: v for k, v in score.items() if k in keep}
            live = {k[0] for k in score}
            hits = [h for h in hits if h.sord in live]
        distinct = sorted(set(score.values()), reverse=True)
        rank_of = {v: r for r, v in enumerate(distinct, start=1)}
        turn_rank = {k: rank_of[v] for k, v in score.items()}
        per_session: dict[int, list[float]] = defaultdict(list)
        for h in hits:
            per_session[h.sord].append(h.dense)
        sess_score = {s: sum(sorted(v, reverse=True)[:SESSION_TOP]) for s, v in per_session.items()}
        session_rank = {
            s: r for r, s in enumerate(sorted(sess_score, key=lambda s: (-sess_score[s], s)), start=1)
        }
        return turn_rank, session_rank, score
