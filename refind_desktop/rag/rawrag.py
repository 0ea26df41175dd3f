"""Raw-RAG and hybrid question answering: dense windows → complete turns → the agent's answer stage.

Called by `refind ask --mode rawrag|hybrid` (cli/ask.py registers `RAG_RUNNERS`), the TUI and the
eval harness. Raw-RAG replaces the agent's search rounds with one retrieval (cosine top 128 →
cross-encoder → top 15, or the dense order when no cross-encoder loads offline); the kept windows
become notes (their complete turns, one block per run of consecutive turns) and the agent's own
answer stage writes the cited answer. Hybrid is the agent itself over `HybridEngine`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..agent import Agent, AgentConfig, AgentResult
from ..agent.events import SearchEvent
from ..errors import ConfigError
from ..types import Block
from .dense import CANDIDATES, KEEP, DenseRetriever, Retrieval, WindowHit

FALLBACK = "dense-order fallback"


def dense_for(svc: Any) -> DenseRetriever:
    """The services' dense retriever (vectors beside its index), created once per Services."""
    dense = svc.dense
    if dense is None:
        s = svc.settings
        dense = svc.dense = DenseRetriever(
            svc.index,
            svc.catalog,
            getattr(s, "embed_model", ""),
            getattr(s, "rerank_model", ""),
            getattr(s, "embed_threads", 0),
        )
    return dense


def require_vectors(dense: DenseRetriever) -> None:
    """Raise with the fix when nothing was embedded yet."""
    if not len(dense.store.load().wid):
        raise ConfigError(
            "no embeddings yet: run `refind embed` first (ingest only indexes text; "
            "embedding is a separate, resumable step)"
        )


@dataclass
class RetrieveEvent:
    """The Raw-RAG retrieval step: candidates, kept windows, and which reranker ordered them."""

    type = "retrieve"
    candidates: int
    kept: list[WindowHit]
    reranker: str | None
    fallback: str
    stale_sessions: int
    seconds: float

    @property
    def message(self) -> str:
        """One human line (printed by the CLI on stderr)."""
        how = f"reranked by {self.reranker}" if self.reranker else f"{FALLBACK}: {self.fallback}"
        stale = (
            f"; {self.stale_sessions} sessions not embedded yet (run `refind embed`)"
            if self.stale_sessions
            else ""
        )
        return f"retrieved {self.candidates} windows, kept {len(self.kept)} ({how}){stale}"

    def to_json(self) -> dict:
        """Plain dict for the trajectory."""
        return {
            "type": self.type,
            "candidates": self.candidates,
            "reranker": self.reranker,
            "order": "rerank" if self.reranker else FALLBACK,
            "fallback_reason": self.fallback or None,
            "stale_sessions": self.stale_sessions,
            "seconds": round(self.seconds, 4),
            "kept": [
                {
                    "window": h.wid,
                    "sord": h.sord,
                    "turns": [h.first_turn, h.last_turn],
                    "dense": round(h.dense, 5),
                    "rerank": None if h.rerank is None else round(h.rerank, 5),
                }
                for h in self.kept
            ],
        }


@dataclass
class RagResult(AgentResult):
    """An AgentResult with the retrieval step in front of the trajectory."""

    retrieval: RetrieveEvent | None = None
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """AgentResult's JSON plus `retrieval` (and the retrieve step first in the trajectory)."""
        data = super().to_json()
        if self.retrieval is not None:
            data["retrieval"] = self.retrieval.to_json()
            data["trajectory"].insert(0, data["retrieval"])
        return data


def blocks_from_windows(dense: DenseRetriever, kept: list[WindowHit]) -> list[Block]:
    """Complete turns the windows overlap, de-duplicated: one block per run of consecutive turns,
    sessions oldest first, turns in order (undated sessions last)."""
    turns: dict[int, set[int]] = {}
    best: dict[tuple[int, int], float] = {}
    for h in kept:
        score = h.rerank if h.rerank is not None else h.dense
        for t in range(h.first_turn, h.last_turn + 1):
            turns.setdefault(h.sord, set()).add(t)
            best[(h.sord, t)] = max(best.get((h.sord, t), float("-inf")), score)
    recs = dense.catalog.ords_to_sessions(sorted(turns))
    far = datetime.max.replace(tzinfo=None)

    def when(sord: int) -> tuple:
        d = recs[sord].started_at if sord in recs else None
        return (d.replace(tzinfo=None) if d else far, sord)

    blocks: list[Block] = []
    for sord in sorted(turns, key=when):
        rec = recs.get(sord)
        if rec is None:
            continue
        ordered = sorted(turns[sord])
        runs: list[list[int]] = [[ordered[0]]]
        for t in ordered[1:]:
            if t == runs[-1][-1] + 1:
                runs[-1].append(t)
            else:
                runs.append([t])
        for run in runs:
            views = tuple(dense.index.session_turns(sord, run[0], run[-1]))
            if not views:
                continue
            blocks.append(
                Block(
                    rank=len(blocks) + 1,
                    session_id=rec.sid,
                    session_title=rec.title,
                    session_date=rec.started_at,
                    turn=run[0],
                    score=max(best[(sord, t)] for t in run),
                    hit_turns=tuple(v.turn for v in views),
                    turns=views,
                    chat_id=rec.chat,
                    chat_title=rec.chat_title,
                )
            )
    return blocks


class RawRagAgent(Agent):
    """The agent with stage 1 replaced by one Raw-RAG retrieval; stage 2 (answer) is the agent's own."""

    def __init__(
        self,
        dense: DenseRetriever,
        engine: Any,
        backend: Any,
        config: AgentConfig | None = None,
        candidates: int = CANDIDATES,
        keep: int = KEEP,
    ) -> None:
        super().__init__(engine, backend, mode="refind", config=config)
        self.dense = dense
        self.candidates = candidates
        self.keep = keep
        self.retrieval: Retrieval | None = None
        self.event: RetrieveEvent | None = None

    def _loop(self, run: Any) -> None:  # stage 1 of Agent.run
        self._check_cancel(run)
        t0 = time.perf_counter()
        self.retrieval = ret = self.dense.retrieve(run.question, self.candidates, self.keep)
        blocks = blocks_from_windows(self.dense, ret.kept)
        spent = time.perf_counter() - t0
        run.search_seconds += spent
        run.searches += 1
        self.event = RetrieveEvent(
            len(ret.candidates), ret.kept, ret.reranker, ret.fallback, self.dense.pending_sessions(), spent
        )
        if run.on_event is not None:
            run.on_event(self.event)
        self._emit(
            run,
            SearchEvent(
                run.round,
                [run.question],
                None,
                None,
                self.keep,
                [(b.rank, b.session_id, b.turn) for b in blocks],
                spent,
                blocks,
            ),
        )
        run.history.append(f"1. raw-rag retrieval -> {len(blocks)} blocks")
        if blocks:
            self._note(run, list(range(1, len(blocks) + 1)), blocks, "all")
        self._finish(run, "rawrag" if ret.reranker else f"rawrag ({FALLBACK})")


def _as_rag_result(result: AgentResult, mode: str, event: RetrieveEvent | None) -> RagResult:
    fields = {k: getattr(result, k) for k in AgentResult.__dataclass_fields__}
    fields["mode"] = mode
    return RagResult(**fields, retrieval=event)


def _printer(on_event: Callable | None) -> Callable | None:
    """Pass events on; print the retrieval line (with any dense-order fallback) on stderr."""
    if on_event is None:
        return None

    def handle(event: Any) -> None:
        if isinstance(event, RetrieveEvent):
            print(event.message, file=sys.stderr, flush=True)
        else:
            on_event(event)

    return handle


def run_rawrag(
    svc: Any,
    backend: Any,
    mode: str,
    question: str,
    now: datetime | None,
    on_event: Callable | None,
    *,
    cancel: Any = None,
    date_hint: Any = None,
) -> RagResult:
    """`refind ask --mode rawrag` (`cancel` stops it between steps; a date hint does not apply)."""
    if getattr(svc.engine, "as_of", None) is not None:
        raise ConfigError(
            "rawrag cannot run in the archive setting: its window retrieval does not apply the as-of "
            "bound, so later sessions would leak into its notes; use --mode hybrid or refind"
        )
    dense = dense_for(svc)
    require_vectors(dense)
    agent = RawRagAgent(dense, svc.engine, backend, AgentConfig(max_searches=1))
    result = agent.run(question, now=now, on_event=_printer(on_event), cancel=cancel)
    return _as_rag_result(result, "rawrag", agent.event)


def hybrid_engine(svc: Any) -> Any:
    """The HybridEngine over the services' index, catalog and vectors, under the services' engine's
    `as_of` bound (set by the eval harness in the archive setting; None otherwise)."""
    from .hybrid import HybridEngine

    as_of = getattr(svc.engine, "as_of", None)
    return HybridEngine(svc.index, svc.catalog, dense_for(svc), svc.tz, as_of)


def run_hybrid(
    svc: Any,
    backend: Any,
    mode: str,
    question: str,
    now: datetime | None,
    on_event: Callable | None,
    *,
    cancel: Any = None,
    date_hint: Any = None,
) -> RagResult:
    """`refind ask --mode hybrid`: the ReFind agent searching with four-way RRF.

    Sessions not embedded yet still take part through their BM25 ranks (the index stays
    searchable while `refind embed` catches up); the CLI says how many there are.
    """
    engine = hybrid_engine(svc)
    pending = engine.dense.pending_sessions()
    if pending and on_event is not None:
        print(
            f"{pending} sessions not embedded yet: they rank by BM25 only until `refind embed` runs",
            file=sys.stderr,
            flush=True,
        )
    config = AgentConfig(
        max_searches=svc.settings.max_searches, controller=getattr(svc.settings, "controller", "auto")
    )
    agent = Agent(engine, backend, mode="refind", options=svc.search_options(), config=config)
    result = agent.run(question, now=now, on_event=on_event, cancel=cancel, date_hint=date_hint)
    return _as_rag_result(result, "hybrid", None)
