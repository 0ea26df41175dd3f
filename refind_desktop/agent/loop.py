"""Agent.run: the ReFind search-then-answer loop with a structured, schema-checked controller.

Called by `refind ask` (cli/ask.py), the TUI's ask screen and the eval harness. Stage 1 records the
paper's three actions (search_chatrecord, take_note, finish_search); the controller that picks them
is split into small JSON-constrained steps that a 0.5B local model can follow:
(1) write keywords, (2) judge each result (or, for strong models, choose the numbers at once) and
save the relevant ones, (3) search again with new keywords (maybe a date range) or finish.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from ..errors import BackendError, ConfigError
from ..llm.base import ChatMessage, Completion, LLMBackend, Usage
from ..search.engine import SearchEngine, SearchOptions, SearchSession
from ..types import Block
from . import prompts
from .answer import answer_messages, note_turns, parse_citations
from .events import (
    TRAJECTORY_TYPES,
    AgentCancelled,
    AgentResult,
    AnswerEvent,
    AnswerTokenEvent,
    Event,
    FinishEvent,
    Note,
    NoteEvent,
    RetryEvent,
    SearchEvent,
)
from .schemas import JUDGE_SCHEMA, choose_schema, extract_json, next_schema, query_schema, validate

MODES = ("refind", "generic", "one-search")
FINISH = "finish_search"


@dataclass
class AgentConfig:
    """Budgets and controller choices of one agent (defaults follow the paper: 4 searches, K=5)."""

    max_searches: int = 4
    max_retries: int = 2
    """Extra attempts per controller step after an invalid output; then the loop finishes."""
    judge: str = "auto"
    """"each" (one yes/no call per result: small models), "batch" (one take_note list: strong models),
    "auto" (batch for OpenAI-compatible back ends, each otherwise)."""
    record_chars: int = 1600
    """Characters of one result shown to the controller (the note keeps the complete block)."""
    answer_chars: int | None = None
    """Characters of notes in the answer prompt (None: from the model's context size)."""
    answer_max_tokens: int = 400
    digest_notes: int = 12
    fallback_notes: int = 3
    """When the controller saved nothing, keep this many top results of the first search as notes
    (a small model often judges every result irrelevant; the answer stage still abstains when they do
    not answer the question). 0 turns the fallback off."""


@dataclass
class SearchAction:
    """A validated search_chatrecord request."""

    keywords: list[str]
    date_from: date | None = None
    date_to: date | None = None


@dataclass
class _Run:
    question: str
    now: datetime
    today: date
    head: str
    session: SearchSession
    on_event: Callable[[Event], None] | None
    cancel: threading.Event | None
    trajectory: list[Event] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    round: int = 1
    searches: int = 0
    usage: Usage = field(default_factory=Usage)
    stage_usage: dict[str, Usage] = field(default_factory=lambda: {"controller": Usage(), "answer": Usage()})
    search_seconds: float = 0.0
    first_blocks: list[Block] = field(default_factory=list)


def _parse_day(value: Any, name: str) -> tuple[date | None, str | None]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    try:
        return date.fromisoformat(str(value).strip().replace("/", "-")), None
    except ValueError:
        return None, f"{name} {value!r} is not a date (YYYY-MM-DD)"


class Agent:
    """Answers a question from the archive: search rounds with notes, then a cited answer."""

    def __init__(
        self,
        engine: SearchEngine,
        backend: LLMBackend,
        mode: str = "refind",
        options: SearchOptions | None = None,
        config: AgentConfig | None = None,
    ) -> None:
        if mode not in MODES:
            raise ConfigError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.engine = engine
        self.backend = backend
        self.mode = mode
        base = options or SearchOptions()
        self.options = SearchOptions.generic(top_k=base.top_k) if mode == "generic" else base
        self.config = config or AgentConfig()
        judge = self.config.judge
        if judge == "auto":
            judge = "batch" if "openai" in getattr(backend, "name", "") else "each"
        self.judge = judge
        self.dates = self.options.temporal
        self.system = prompts.CONTROLLER_SYSTEM + (prompts.TIME_RULES if self.dates else "")

    # ---- public -------------------------------------------------------------------------------
    def run(
        self,
        question: str,
        now: datetime | None = None,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> AgentResult:
        """Run both stages for one question; `now` is the question's current time (default: now)."""
        question = question.strip()
        if not question:
            raise ConfigError('the question is empty; ask something, e.g. refind ask "when did I ...?"')
        now = now or datetime.now(self.engine.tz)
        if now.tzinfo is None:
            now = now.replace(tzinfo=self.engine.tz)
        today = now.astimezone(self.engine.tz).date()
        run = _Run(
            question,
            now,
            today,
            prompts.header(question, today),
            self.engine.session(self.options),
            on_event,
            cancel,
        )
        t0 = time.perf_counter()
        if self.mode == "one-search":
            self._one_search(run)
        else:
            self._loop(run)
        answer, citations, abstained = self._answer(run)
        total = time.perf_counter() - t0
        return AgentResult(
            question=question,
            mode=self.mode,
            now=now,
            answer=answer,
            citations=citations,
            trajectory=run.trajectory,
            notes=run.notes,
            usage=run.usage,
            stage_usage=run.stage_usage,
            timings={
                "total_seconds": total,
                "search_seconds": run.search_seconds,
                "model_seconds": run.usage.seconds,
                "other_seconds": max(total - run.search_seconds - run.usage.seconds, 0.0),
            },
            abstained=abstained,
        )

    # ---- stage 1 ------------------------------------------------------------------------------
    def _loop(self, run: _Run) -> None:
        action = self._ask(
            run,
            "query",
            prompts.query_prompt(run.head),
            query_schema(False),
            64,
            lambda d: self._check_search(run, d),
        )
        if action is None:
            return self._finish(run, "retries")
        while True:
            blocks = self._search(run, action)
            if blocks and not self._take_notes(run, blocks):
                return self._finish(run, "retries")
            if run.searches >= self.config.max_searches:
                return self._finish(run, "max_searches")
            run.round += 1
            digest = [prompts.digest_line(n.block) for n in run.notes[-self.config.digest_notes :]]
            text = prompts.next_prompt(
                run.head, run.history, digest, self.config.max_searches - run.searches, self.dates
            )
            nxt = self._ask(
                run, "next", text, next_schema(self.dates), 96, lambda d: self._check_next(run, d)
            )
            if nxt is None:
                return self._finish(run, "retries")
            if nxt == FINISH:
                return self._finish(run, "model")
            action = nxt

    def _one_search(self, run: _Run) -> None:
        """The paper's one-search control: the controller writes the query; every block is kept."""
        action = self._ask(
            run,
            "query",
            prompts.query_prompt(run.head),
            query_schema(False),
            64,
            lambda d: self._check_search(run, d),
        )
        blocks = self._search(run, action or SearchAction([run.question]))
        if blocks:
            self._note(run, list(range(1, len(blocks) + 1)), blocks, "all")
        self._finish(run, "one-search")

    def _search(self, run: _Run, action: SearchAction) -> list[Block]:
        self._check_cancel(run)
        t0 = time.perf_counter()
        blocks = run.session.search(
            " ".join(action.keywords), action.date_from, action.date_to, self.options.top_k
        )
        spent = time.perf_counter() - t0
        run.search_seconds += spent
        run.searches += 1
        if run.searches == 1:
            run.first_blocks = blocks
        self._emit(
            run,
            SearchEvent(
                run.round,
                action.keywords,
                action.date_from,
                action.date_to,
                self.options.top_k,
                [(b.rank, b.session_id, b.turn) for b in blocks],
                spent,
                blocks,
            ),
        )
        span = ""
        if action.date_from or action.date_to:
            span = f" from {action.date_from or '...'} to {action.date_to or '...'}"
        run.history.append(f"{run.round}. keywords {action.keywords}{span} -> {len(blocks)} results")
        return blocks

    def _take_notes(self, run: _Run, blocks: list[Block]) -> bool:
        """take_note over the last results; False when the controller failed past its retries."""
        records = [prompts.render_record(b, i, self.config.record_chars) for i, b in enumerate(blocks, 1)]
        if self.judge == "batch":
            text = prompts.choose_prompt(run.head, records, run.round)
            chosen = self._ask(
                run,
                "take_note",
                text,
                choose_schema(len(blocks)),
                48,
                lambda d: self._check_indices(d, len(blocks)),
            )
            if chosen is None:
                return False
            if chosen:
                self._note(run, chosen, blocks, "chosen")
            return True
        yes: list[int] = []
        ok = True
        for i, record in enumerate(records, 1):
            verdict = self._ask(
                run,
                "judge",
                prompts.judge_prompt(run.question, record),
                JUDGE_SCHEMA,
                12,
                lambda d: (d["answer"] == "yes", None),
                system=prompts.JUDGE_SYSTEM,
            )
            if verdict is None:
                ok = False
                break
            if verdict:
                yes.append(i)
        if yes:
            self._note(run, yes, blocks, "judged")
        return ok

    def _note(self, run: _Run, indices: list[int], blocks: list[Block], how: str) -> None:
        saved = [blocks[i - 1] for i in indices]
        run.notes.extend(Note(b, run.round) for b in saved)
        run.history[-1] += f", saved {indices}"
        self._emit(run, NoteEvent(run.round, indices, [(b.session_id, b.turn) for b in saved], how))

    def _finish(self, run: _Run, reason: str) -> None:
        if not run.notes and run.first_blocks and self.config.fallback_notes > 0:
            keep = run.first_blocks[: self.config.fallback_notes]
            run.notes.extend(Note(b, 1) for b in keep)
            self._emit(
                run,
                NoteEvent(
                    run.round, [b.rank for b in keep], [(b.session_id, b.turn) for b in keep], "fallback"
                ),
            )
        self._emit(run, FinishEvent(run.round, reason, run.searches, len(run.notes)))

    # ---- controller outputs -------------------------------------------------------------------
    def _check_search(self, run: _Run, data: dict) -> tuple[SearchAction | None, str | None]:
        keywords = list(dict.fromkeys(k.strip() for k in data.get("keywords", []) if k and k.strip()))
        if not keywords:
            return None, "keywords are empty; give 1-6 keywords"
        d_from, err = _parse_day(data.get("date_from"), "date_from")
        if err:
            return None, err
        d_to, err = _parse_day(data.get("date_to"), "date_to")
        if err:
            return None, err
        if d_from and d_to and d_from > d_to:
            return None, f"date_from {d_from} is after date_to {d_to}"
        if d_from and d_from > run.today:
            return None, f"date_from {d_from} is after today ({run.today})"
        return SearchAction(keywords, d_from, d_to), None

    def _check_next(self, run: _Run, data: dict) -> tuple[SearchAction | str | None, str | None]:
        if data.get("action") == FINISH:
            return FINISH, None
        return self._check_search(run, data)

    @staticmethod
    def _check_indices(data: dict, n: int) -> tuple[list[int] | None, str | None]:
        out = list(dict.fromkeys(data["indices"]))
        for i in out:
            if not 1 <= i <= n:
                return None, f"result number {i} does not exist (results are 1..{n})"
        return sorted(out), None

    def _ask(
        self,
        run: _Run,
        stage: str,
        text: str,
        schema: dict,
        max_tokens: int,
        check: Callable[[Any], tuple[Any, str | None]],
        system: str | None = None,
    ) -> Any:
        """One controller step: call, validate against the schema and the rules, retry a bounded number
        of times (each failure is a RetryEvent). None when it never became valid."""
        base = [ChatMessage("system", system or self.system), ChatMessage("user", text)]
        messages = base
        for attempt in range(1, self.config.max_retries + 2):
            raw = ""
            try:
                comp = self._call(run, "controller", messages, schema, max_tokens)
                raw = comp.text
                data = comp.data if comp.data is not None else extract_json(comp.text)
                err = validate(data, schema)
                if err is None:
                    value, err = check(data)
                    if err is None:
                        return value
            except BackendError as exc:
                err = f"back end: {exc.message}"
            except ValueError as exc:
                err = str(exc)
            gave_up = attempt > self.config.max_retries
            self._emit(run, RetryEvent(run.round, stage, err, raw, attempt, gave_up))
            if gave_up:
                return None
            fix = f"That reply was invalid: {err}. Reply again with JSON only, in the format asked for."
            messages = base + ([ChatMessage("assistant", raw)] if raw else []) + [ChatMessage("user", fix)]
        return None

    # ---- stage 2 ------------------------------------------------------------------------------
    def _answer_budget(self) -> int:
        if self.config.answer_chars:
            return self.config.answer_chars
        n_ctx = getattr(self.backend, "n_ctx", None)
        if isinstance(n_ctx, int) and n_ctx > 0:
            return max(1500, int((n_ctx - self.config.answer_max_tokens - 600) * 3))
        return 60000

    def _answer(self, run: _Run) -> tuple[str, list[tuple[str, int]], bool]:
        if not run.notes:
            # the paper's "no history found" case: say so instead of letting the model guess
            self._emit(run, AnswerTokenEvent(prompts.NO_HISTORY_ANSWER))
            self._emit(run, AnswerEvent(prompts.NO_HISTORY_ANSWER, [], abstained=True))
            return prompts.NO_HISTORY_ANSWER, [], True
        budget = self._answer_budget()
        while True:
            messages = answer_messages(run.notes, run.question, run.now, budget)
            try:
                text = self._generate(run, messages)
                break
            except BackendError as exc:
                # a prompt over the model's context (dense text tokenizes worse than 3 chars a token):
                # shrink the notes' text and try again, down to a floor
                if "context" not in exc.message.lower() or budget <= 2000:
                    raise
                budget //= 2
        text = text.strip()
        citations = parse_citations(text, note_turns(run.notes))
        self._emit(run, AnswerEvent(text, citations))
        return text, citations, False

    def _generate(self, run: _Run, messages: list[ChatMessage]) -> str:
        """The answer text, streamed as AnswerTokenEvents when the back end can stream."""
        max_tokens = self.config.answer_max_tokens
        if not getattr(self.backend, "can_stream", False):
            final = self._call(run, "answer", messages, None, max_tokens)
            self._emit(run, AnswerTokenEvent(final.text))
            return final.text
        self._check_cancel(run)
        t0 = time.perf_counter()
        pieces: list[str] = []
        final: Completion | None = None
        for item in self.backend.stream(messages, max_tokens=max_tokens):
            if isinstance(item, Completion):
                final = item
                continue
            pieces.append(item)
            self._emit(run, AnswerTokenEvent(item))
            self._check_cancel(run)
        final = final or Completion("".join(pieces))
        self._account(run, "answer", final, time.perf_counter() - t0)
        return "".join(pieces) or final.text

    # ---- plumbing -----------------------------------------------------------------------------
    def _call(
        self, run: _Run, stage: str, messages: list[ChatMessage], schema: dict | None, max_tokens: int
    ) -> Completion:
        self._check_cancel(run)
        t0 = time.perf_counter()
        try:
            comp = self.backend.complete(messages, schema=schema, max_tokens=max_tokens, temperature=0.0)
        finally:
            spent = time.perf_counter() - t0
        self._account(run, stage, comp, spent)
        return comp

    @staticmethod
    def _account(run: _Run, stage: str, comp: Completion, spent: float) -> None:
        u = comp.usage
        one = Usage(u.prompt_tokens, u.completion_tokens, u.reprocessed_prompt_tokens, 1, spent)
        run.usage.add(one)
        run.stage_usage[stage].add(one)

    @staticmethod
    def _check_cancel(run: _Run) -> None:
        if run.cancel is not None and run.cancel.is_set():
            raise AgentCancelled("the question was cancelled before it finished")

    @staticmethod
    def _emit(run: _Run, event: Event) -> None:
        if isinstance(event, TRAJECTORY_TYPES):
            run.trajectory.append(event)
        if run.on_event is not None:
            run.on_event(event)
