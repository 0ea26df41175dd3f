"""Trajectory events of one agent run (search, note, retry, finish, answer) and the run's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import ClassVar

from ..errors import RefindError
from ..llm.base import Usage
from ..types import Block


class AgentCancelled(RefindError):
    """The caller set the cancel event; the run stopped between two steps."""

    title = "cancelled"
    exit_code = 130


def _day(d: date | None) -> str | None:
    return d.isoformat() if d else None


@dataclass
class SearchEvent:
    """One `search_chatrecord` action and what the engine returned (hits are (rank, session_id, turn))."""

    type: ClassVar[str] = "search"
    step: int
    keywords: list[str]
    date_from: date | None
    date_to: date | None
    top_k: int
    hits: list[tuple[int, str, int]]
    seconds: float = 0.0
    blocks: list[Block] = field(default_factory=list, repr=False)

    def to_json(self) -> dict:
        """Plain dict (the blocks themselves are left out; notes carry the saved text)."""
        return {
            "type": self.type,
            "step": self.step,
            "action": "search_chatrecord",
            "keywords": list(self.keywords),
            "date_from": _day(self.date_from),
            "date_to": _day(self.date_to),
            "top_k": self.top_k,
            "hits": [{"rank": r, "session_id": s, "turn": t} for r, s, t in self.hits],
            "seconds": round(self.seconds, 4),
        }


@dataclass
class NoteEvent:
    """One `take_note` action: result numbers of the last search saved as complete blocks."""

    type: ClassVar[str] = "note"
    step: int
    indices: list[int]
    saved: list[tuple[str, int]]
    """(session_id, hit turn) of each saved block."""
    how: str = "judged"
    """"judged" (per-result decisions), "chosen" (one list from the model), "all" (one-search) or
    "fallback" (the controller saved nothing: the first search's top results were kept)."""

    def to_json(self) -> dict:
        """Plain dict."""
        return {
            "type": self.type,
            "step": self.step,
            "action": "take_note",
            "indices": list(self.indices),
            "saved": [{"session_id": s, "turn": t} for s, t in self.saved],
            "how": self.how,
        }


@dataclass
class RetryEvent:
    """A controller output that was invalid or impossible; it was asked for again (or given up)."""

    type: ClassVar[str] = "retry"
    step: int
    stage: str
    reason: str
    raw: str
    attempt: int
    gave_up: bool = False

    def to_json(self) -> dict:
        """Plain dict (raw output cut to 500 characters)."""
        return {
            "type": self.type,
            "step": self.step,
            "stage": self.stage,
            "reason": self.reason,
            "raw": self.raw[:500],
            "attempt": self.attempt,
            "gave_up": self.gave_up,
        }


@dataclass
class FinishEvent:
    """`finish_search`: why stage 1 ended and how much it collected."""

    type: ClassVar[str] = "finish"
    step: int
    reason: str
    """"model", "max_searches", "retries", "one-search" or "no_results"."""
    searches: int
    notes: int

    def to_json(self) -> dict:
        """Plain dict."""
        return {
            "type": self.type,
            "step": self.step,
            "action": "finish_search",
            "reason": self.reason,
            "searches": self.searches,
            "notes": self.notes,
        }


@dataclass
class AnswerTokenEvent:
    """A piece of the answer as it streams."""

    type: ClassVar[str] = "answer_token"
    text: str


@dataclass
class BatchEvent:
    """Several calls of one stage about to be made together (a question's readings, its relevance calls),
    sent before them so a person waiting knows what for; not kept in the trajectory."""

    type: ClassVar[str] = "batch"
    step: int
    stage: str
    """"read" or "relevance"."""
    calls: int

    def describe(self) -> str:
        """What is being done, in a few words ("reading 6 passages together")."""
        if self.stage == "read":
            return f"reading {self.calls} passages together"
        if self.stage == "relevance":
            return f"judging the results of {self.calls} searches together"
        return f"{self.calls} {self.stage} calls together"


@dataclass
class AnswerEvent:
    """The complete answer with its validated citations."""

    type: ClassVar[str] = "answer"
    answer: str
    citations: list[tuple[str, int]]
    abstained: bool = False
    outcome: str = "answer"
    """"answer", "unsure" (no claimed answer: the closest turns, verbatim) or "not_found"."""


Event = SearchEvent | NoteEvent | RetryEvent | FinishEvent | AnswerTokenEvent | BatchEvent | AnswerEvent


@dataclass
class ReadEvent:
    """One reading call: the passage read (session, turns) and what it was found to state (checked items:
    turn, the copied words, a number, the day its words name)."""

    type: ClassVar[str] = "read"
    step: int
    session_id: str
    turns: list[int]
    items: list[dict]

    def to_json(self) -> dict:
        """Plain dict."""
        return {
            "type": self.type,
            "step": self.step,
            "action": "read",
            "session_id": self.session_id,
            "turns": list(self.turns),
            "items": list(self.items),
        }


TRAJECTORY_TYPES = (SearchEvent, NoteEvent, RetryEvent, FinishEvent, ReadEvent)


@dataclass
class Note:
    """A saved search result: the complete block, with the search step that found it."""

    block: Block
    step: int
    how: str = ""
    """How it was saved: "judged", "chosen", "all" or "fallback" (see NoteEvent.how)."""


@dataclass
class AgentResult:
    """What `Agent.run` returns: the answer, its citations, the trajectory, notes, usage and timings."""

    question: str
    mode: str
    now: datetime
    answer: str
    citations: list[tuple[str, int]]
    trajectory: list[Event]
    notes: list[Note]
    usage: Usage
    stage_usage: dict[str, Usage]
    timings: dict[str, float]
    abstained: bool = False
    outcome: str = "answer"
    """"answer" (a checked answer), "unsure" (no claimed answer: `evidence` holds the closest turns,
    verbatim) or "not_found" (not in the history)."""
    draft: str = ""
    """What the answerer composed before the checks (agent/earn.py)."""
    verdicts: dict = field(default_factory=dict)
    """What each check said of the draft."""
    evidence: list[dict] = field(default_factory=list)
    """For "unsure": the turns shown ({session_id, turn, speaker, text})."""
    kind: str = "lookup"
    """The question's kind (agent/question.py KINDS): lookup, latest, when, count, total, difference, span,
    order, yesno or recommend."""
    tags: dict[str, str] = field(default_factory=dict)
    """Citation tag of each session in the prompts ("S1" → session id)."""
    computed: bool = False
    """True when the program computed the answer from extracted items (count, sum, dates, order)."""
    call_log: list[dict] = field(default_factory=list)
    """One record per model call (agent/run.py `Run.call_log`)."""

    @property
    def searches(self) -> list[SearchEvent]:
        """The search events, in order."""
        return [e for e in self.trajectory if isinstance(e, SearchEvent)]

    @property
    def noted_sessions(self) -> list[str]:
        """Session ids of the notes, first-noted first, each once."""
        return list(dict.fromkeys(n.block.session_id for n in self.notes))

    def to_json(self) -> dict:
        """The stable JSON shape: answer, citations, trajectory, usage (plus question, mode, notes)."""
        usage = self.usage.to_json()
        usage["llm_calls"] = self.usage.calls
        usage["searches"] = len(self.searches)
        usage.update({k: round(v, 3) for k, v in self.timings.items()})
        usage["stages"] = {k: u.to_json() for k, u in self.stage_usage.items()}
        usage["per_call"] = self.call_log
        return {
            "question": self.question,
            "mode": self.mode,
            "now": self.now.isoformat(),
            "answer": self.answer,
            "outcome": self.outcome,
            "abstained": self.abstained,
            "draft": self.draft,
            "verdicts": dict(self.verdicts),
            "evidence": list(self.evidence),
            "kind": self.kind,
            "computed": self.computed,
            "tags": dict(self.tags),
            "citations": [{"session_id": s, "turn": t} for s, t in self.citations],
            "trajectory": [e.to_json() for e in self.trajectory if isinstance(e, TRAJECTORY_TYPES)],
            "notes": [
                {
                    "session_id": n.block.session_id,
                    "session_date": n.block.session_date.isoformat() if n.block.session_date else None,
                    "hit_turn": n.block.turn,
                    "turns": [t.turn for t in n.block.turns],
                    "step": n.step,
                }
                for n in self.notes
            ],
            "usage": usage,
        }
