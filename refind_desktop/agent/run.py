"""One question's run: its state (notes, tags, usage) and the primitives every controller uses
(search without repeats, a schema-checked model step with bounded retries, take_note, finish)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from typing import Any

from ..errors import InvalidOutputError, TruncatedOutputError
from ..llm.base import ChatMessage, Completion, LLMBackend, Usage
from ..llm.schema import OUTPUT_MARK, extract_json, validate
from ..search.engine import SearchSession
from ..types import Block
from .events import (
    TRAJECTORY_TYPES,
    AgentCancelled,
    AnswerTokenEvent,
    BatchEvent,
    Event,
    FinishEvent,
    Note,
    NoteEvent,
    RetryEvent,
    SearchEvent,
)
from .keywords import query_key
from .question import Question
from .render import Tags


@dataclass(frozen=True)
class DateHint:
    """A date range for the first search (e.g. from a relative-date resolver: "last month");
    the first search falls back to no filter when the range returns nothing."""

    date_from: date | None = None
    date_to: date | None = None


@dataclass
class Run:
    """State of one question; controllers read and extend it through the methods below."""

    question: str
    now: datetime
    tz: tzinfo
    asked: Question
    """The question as the program understands it (agent/question.py)."""
    head: str
    session: SearchSession
    backend: LLMBackend
    system: str
    top_k: int
    max_retries: int = 2
    on_event: Callable[[Event], None] | None = None
    cancel: threading.Event | None = None
    date_hint: DateHint | None = None
    tags: Tags = field(default_factory=Tags)
    trajectory: list[Event] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    used: list[list[str]] = field(default_factory=list)
    round: int = 1
    searches: int = 0
    usage: Usage = field(default_factory=Usage)
    stage_usage: dict[str, Usage] = field(default_factory=lambda: {"controller": Usage(), "answer": Usage()})
    call_log: list[dict] = field(default_factory=list)
    """One record per model call: stage, JSON or free text, prompt/reprocessed/completion tokens, seconds."""
    search_seconds: float = 0.0
    first_blocks: list[Block] = field(default_factory=list)
    seen_queries: set[frozenset[str]] = field(default_factory=set)

    @property
    def today(self) -> date:
        """The question's current day in the user's zone."""
        return self.now.astimezone(self.tz).date()

    # ---- events -------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Record a trajectory event and pass any event to the caller."""
        if isinstance(event, TRAJECTORY_TYPES):
            self.trajectory.append(event)
        if self.on_event is not None:
            self.on_event(event)

    def check_cancel(self) -> None:
        """Raise AgentCancelled when the caller set the cancel event."""
        if self.cancel is not None and self.cancel.is_set():
            raise AgentCancelled("the question was cancelled before it finished")

    # ---- search -------------------------------------------------------------------------------
    def repeats(
        self,
        keywords: list[str],
        date_from: date | None = None,
        date_to: date | None = None,
        rrf: bool | None = None,
    ) -> bool:
        """True when this exact search (same words, same range, same ranking) already ran in this
        question."""
        return self._key(keywords, date_from, date_to, rrf) in self.seen_queries

    @staticmethod
    def _key(
        keywords: list[str], date_from: date | None, date_to: date | None, rrf: bool | None
    ) -> frozenset:
        extra = {f"@{date_from}", f"~{date_to}"} | ({f"#rrf={rrf}"} if rrf is not None else set())
        return query_key(keywords) | extra

    def search(
        self,
        keywords: list[str],
        date_from: date | None = None,
        date_to: date | None = None,
        top_k: int | None = None,
        rrf: bool | None = None,
    ) -> list[Block] | None:
        """One search_chatrecord (`top_k` turns, the run's by default; `rrf` False: ranked by turn
        BM25 alone); None (and no search) when the same search already ran."""
        if self.repeats(keywords, date_from, date_to, rrf):
            return None
        self.seen_queries.add(self._key(keywords, date_from, date_to, rrf))
        self.check_cancel()
        top_k = top_k or self.top_k
        t0 = time.perf_counter()
        blocks = self.session.search(" ".join(keywords), date_from, date_to, top_k, rrf)
        spent = time.perf_counter() - t0
        self.search_seconds += spent
        self.searches += 1
        self.used.append(list(keywords))
        if not self.first_blocks:
            self.first_blocks = blocks
        for b in blocks:
            self.tags.session(b.session_id)
        hits = [(b.rank, b.session_id, b.turn) for b in blocks]
        self.emit(SearchEvent(self.round, list(keywords), date_from, date_to, top_k, hits, spent, blocks))
        rng = f" from {date_from or '...'} to {date_to or '...'}" if date_from or date_to else ""
        self.history.append(f"{self.round}. keywords {keywords}{rng} -> {len(blocks)} results")
        return blocks

    # ---- notes --------------------------------------------------------------------------------
    def note(self, indices: list[int], blocks: list[Block], how: str, step: int | None = None) -> None:
        """take_note: save blocks (by result number) as notes, from the search of round `step` (default:
        the current round)."""
        step = self.round if step is None else step
        have = {(n.block.session_id, n.block.turn) for n in self.notes}
        saved = [blocks[i - 1] for i in indices if (blocks[i - 1].session_id, blocks[i - 1].turn) not in have]
        if not saved:
            return
        self.notes.extend(Note(b, step, how) for b in saved)
        line = next(
            (k for k in range(len(self.history) - 1, -1, -1) if self.history[k].startswith(f"{step}. ")), -1
        )
        if self.history:
            self.history[line] += f", saved {indices}"
        self.emit(NoteEvent(step, indices, [(b.session_id, b.turn) for b in saved], how))

    def finish(self, reason: str, fallback: int = 3) -> None:
        """finish_search; when nothing was saved, keep the first search's top `fallback` results."""
        if not self.notes and self.first_blocks and fallback > 0:
            keep = self.first_blocks[:fallback]
            self.notes.extend(Note(b, 1, "fallback") for b in keep)
            self.emit(
                NoteEvent(
                    self.round, [b.rank for b in keep], [(b.session_id, b.turn) for b in keep], "fallback"
                )
            )
        self.emit(FinishEvent(self.round, reason, self.searches, len(self.notes)))

    # ---- model --------------------------------------------------------------------------------
    def call(
        self, stage: str, messages: list[ChatMessage], schema: dict | None, max_tokens: int
    ) -> Completion:
        """One model call with usage accounting (errors propagate: the caller decides)."""
        self.check_cancel()
        t0 = time.perf_counter()
        comp = self.backend.complete(messages, schema=schema, max_tokens=max_tokens, temperature=0.0)
        self.account(stage, comp, time.perf_counter() - t0, schema is not None)
        return comp

    def account(
        self, stage: str, comp: Completion, spent: float, constrained: bool = False, batch: int = 0
    ) -> None:
        """Add one call's usage to the run's totals and its record to `call_log` (`batch`: the calls it
        was decoded with, itself included, when it was one of a batch; its seconds are its share)."""
        u = comp.usage
        one = Usage(u.prompt_tokens, u.completion_tokens, u.reprocessed_prompt_tokens, 1, spent)
        self.usage.add(one)
        self.stage_usage.setdefault(stage, Usage()).add(one)
        self.call_log.append(
            {
                "stage": stage,
                "json": constrained,
                "prompt_tokens": u.prompt_tokens,
                "reprocessed_prompt_tokens": u.reprocessed_prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "seconds": round(spent, 3),
            }
            | ({"batch": batch} if batch else {})
        )

    def stream(self, stage: str, prompt: str, max_tokens: int) -> str:
        """One free-text call, streamed (each piece an AnswerTokenEvent) when the back end can."""
        messages = self.messages(prompt)
        if not getattr(self.backend, "can_stream", False):
            text = self.call(stage, messages, None, max_tokens).text
            self.emit(AnswerTokenEvent(text))
            return text.strip()
        self.check_cancel()
        t0 = time.perf_counter()
        pieces: list[str] = []
        final: Completion | None = None
        for item in self.backend.stream(messages, max_tokens=max_tokens):
            if isinstance(item, Completion):
                final = item
                continue
            pieces.append(item)
            self.emit(AnswerTokenEvent(item))
            self.check_cancel()
        final = final or Completion("".join(pieces))
        self.account(stage, final, time.perf_counter() - t0)
        return ("".join(pieces) or final.text).strip()

    def ask_many(
        self,
        stage: str,
        steps: list[tuple[str, dict, int]],
        usage_stage: str = "controller",
        check: Callable[[Any], tuple[Any, str | None]] = lambda d: (d, None),
    ) -> list[Any]:
        """Several independent `ask` steps `(text, schema, max_tokens)`, each checked by `check`: their
        first attempts made in one batch when the back end decodes several calls together
        (`complete_many`), else one by one; a reply that needs another attempt gets it alone. The results
        in order."""
        many = getattr(self.backend, "complete_many", None)
        if many is None or len(steps) < 2:
            return [
                self.ask(stage, text, schema, room, check, usage_stage=usage_stage)
                for text, schema, room in steps
            ]
        self.check_cancel()
        self.emit(BatchEvent(self.round, stage, len(steps)))
        t0 = time.perf_counter()
        firsts = many(
            [(self.messages(text), schema, room) for text, schema, room in steps], self.check_cancel
        )
        share = (time.perf_counter() - t0) / len(steps)
        for comp in firsts:
            if isinstance(comp, Completion):
                self.account(usage_stage, comp, share, True, batch=len(steps))
        return [
            self.ask(stage, text, schema, room, check, usage_stage=usage_stage, first=comp)
            for (text, schema, room), comp in zip(steps, firsts, strict=True)
        ]

    def messages(self, text: str) -> list[ChatMessage]:
        """The run's system prompt and one user message."""
        return [ChatMessage("system", self.system), ChatMessage("user", text)]

    def ask(
        self,
        stage: str,
        text: str,
        schema: dict,
        max_tokens: int,
        check: Callable[[Any], tuple[Any, str | None]] = lambda d: (d, None),
        usage_stage: str = "controller",
        first: Completion | Exception | None = None,
    ) -> Any:
        """One schema-constrained step: call, check the program's rules, retry invalid output a bounded
        number of times (each a RetryEvent). None when it never became valid. A dead back end, a
        context overflow or any other back-end failure propagates: it is not an invalid output.
        `first` is the first attempt's reply when it was already made (`ask_many`)."""
        base = self.messages(text)
        messages = base
        for attempt in range(1, self.max_retries + 2):
            raw, cut = "", False
            try:
                if attempt == 1 and first is not None:
                    if isinstance(first, Exception):
                        raise first
                    comp = first
                else:
                    comp = self.call(usage_stage, messages, schema, max_tokens)
                raw = comp.text
                data = comp.data
                if data is None:  # a back end without schema support: parse and check here, once
                    data = extract_json(comp.text)
                    err = validate(data, schema)
                    if err:
                        raise InvalidOutputError(err)
                value, err = check(data)
                if err is None:
                    return value
            except TruncatedOutputError as exc:
                err, cut = exc.message, True
            except InvalidOutputError as exc:
                err = exc.message
            except ValueError as exc:
                err = str(exc)
            gave_up = attempt > self.max_retries
            self.emit(RetryEvent(self.round, stage, err, raw, attempt, gave_up))
            if gave_up:
                return None
            if cut:  # the reply ran out of room: the same question again, with twice the room
                max_tokens, messages = max_tokens * 2, base
                continue
            reason = str(err).split(OUTPUT_MARK)[0]  # never the reply's own text (it may echo chat text)
            fix = f"That reply was invalid: {reason}. Reply again with JSON only, in the format asked for."
            messages = base + ([ChatMessage("assistant", raw)] if raw else []) + [ChatMessage("user", fix)]
        return None
