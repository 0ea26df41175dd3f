"""Agent.run: stage 1 by a controller (agent/controllers), stage 2 by agent/answer.py, for one question.

Called through the answer-mode registry (refind_desktop/modes.py) by `refind ask`, the TUI, the eval
harness and the MCP server. The controller is chosen by the `controller` setting (auto, small, oneshot):
"auto" takes the small-model controller for small models, the paper's one-shot take_note controller
for strong served ones (controllers/base.py: controller_for).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..errors import ConfigError
from ..llm.base import LLMBackend
from ..search.engine import SearchEngine, SearchOptions
from ..search.querywords import about_person
from ..types import Block
from . import prompts
from .answer import Answer
from .answer import answer as answer_stage
from .controllers import Controller, controller_for, make_controller
from .events import AgentResult, Event
from .question import understand
from .run import DateHint, Run

MODES = ("refind", "generic", "one-search")


@dataclass
class AgentConfig:
    """Budgets and controller choices of one agent."""

    max_searches: int = 4
    """Searches of the one-shot controller (the paper's 4)."""
    max_rounds: int = 3
    """Search rounds of the small-model controller."""
    max_retries: int = 2
    """Extra attempts per model step after an invalid output; then the step gives up."""
    controller: str = "auto"
    """auto | small | oneshot (see controllers/base.py)."""
    fallback_notes: int = 3
    """When the controller saved nothing, keep this many top results of the first search as notes."""
    judge: str = "auto"
    """Deprecated alias of `controller`: "batch" = oneshot, "each" = small."""

    @classmethod
    def from_settings(cls, settings: object) -> AgentConfig:
        """The agent's budgets from the settings (their defaults where a setting is missing)."""
        return cls(
            max_searches=getattr(settings, "max_searches", 4),
            controller=getattr(settings, "controller", "auto") or "auto",
        )


class Agent:
    """Answers a question from the archive: a controller collects notes, then a cited answer."""

    def __init__(
        self,
        engine: SearchEngine,
        backend: LLMBackend,
        mode: str = "refind",
        options: SearchOptions | None = None,
        config: AgentConfig | None = None,
        controller: Controller | None = None,
        answer: Callable[[Run], Answer] | None = None,
    ) -> None:
        """`answer` replaces the answer stage (the eval harness's baselines do; the product never)."""
        if mode not in MODES:
            raise ConfigError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.engine = engine
        self.backend = backend
        self.mode = mode
        base = options or SearchOptions()
        self.options = SearchOptions.generic(top_k=base.top_k) if mode == "generic" else base
        self.config = config or AgentConfig()
        self.dates = self.options.temporal
        self.controller = controller or self._default_controller()
        self.answer_stage = answer or answer_stage

    def _default_controller(self) -> Controller:
        c = self.config
        if self.mode == "one-search":
            return make_controller("one-search")
        setting = {"batch": "oneshot", "each": "small"}.get(c.judge, c.controller)
        name = controller_for(self.backend, setting)
        if name == "oneshot":
            return make_controller(
                "oneshot", max_searches=c.max_searches, dates=self.dates, fallback=c.fallback_notes
            )
        return make_controller(name, max_rounds=c.max_rounds, dates=self.dates, fallback=c.fallback_notes)

    # ---- public -------------------------------------------------------------------------------
    def new_run(
        self,
        question: str,
        now: datetime | None = None,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
        date_hint: DateHint | None = None,
    ) -> Run:
        """The state of one question before stage 1 (`now` defaults to the current time; a naive time
        is taken in the engine's zone)."""
        if not question:
            raise ConfigError('the question is empty; ask something, e.g. refind ask "when did I ...?"')
        tz = self.engine.tz
        now = now or datetime.now(tz)
        if now.tzinfo is None:
            now = now.replace(tzinfo=tz)
        system = (
            prompts.ONESHOT_SYSTEM if getattr(self.controller, "name", "") == "oneshot" else prompts.SYSTEM
        )
        asked = understand(question, now, tz, self.engine.language())
        return Run(
            question=question,
            now=now,
            tz=tz,
            asked=asked,
            head=prompts.header(question, now),
            session=self.engine.session(
                self.options.with_(person=about_person(question, asked.pack.first_person))
            ),
            backend=self.backend,
            system=system,
            top_k=self.options.top_k,
            max_retries=self.config.max_retries,
            on_event=on_event,
            cancel=cancel,
            date_hint=date_hint,
        )

    def run(
        self,
        question: str,
        now: datetime | None = None,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
        date_hint: DateHint | None = None,
    ) -> AgentResult:
        """Both stages for one question; `now` is the question's current time (default: now)."""
        question = question.strip()
        run = self.new_run(question, now, on_event, cancel, date_hint)
        now = run.now
        t0 = time.perf_counter()
        self._loop(run)
        out = self.answer_stage(run)
        total = time.perf_counter() - t0
        return AgentResult(
            question=question,
            mode=self.mode,
            now=now,
            answer=out.text,
            citations=out.citations,
            trajectory=run.trajectory,
            notes=run.notes,
            usage=run.usage,
            stage_usage=run.stage_usage,
            call_log=run.call_log,
            timings={
                "total_seconds": total,
                "search_seconds": run.search_seconds,
                "model_seconds": run.usage.seconds,
                "other_seconds": max(total - run.search_seconds - run.usage.seconds, 0.0),
            },
            abstained=out.abstained,
            outcome=out.outcome,
            draft=out.draft,
            verdicts=out.verdicts,
            evidence=out.evidence,
            kind=run.asked.kind,
            tags=run.tags.mapping(),
            computed=out.computed,
        )

    # ---- stage 1 (subclasses such as the Raw-RAG agent replace it) ------------------------------
    def _loop(self, run: Run) -> None:
        self.controller.collect(run)

    # helpers kept for subclasses
    def _note(self, run: Run, indices: list[int], blocks: list[Block], how: str) -> None:
        run.note(indices, blocks, how)

    def _finish(self, run: Run, reason: str) -> None:
        run.finish(reason, self.config.fallback_notes)

    @staticmethod
    def _check_cancel(run: Run) -> None:
        run.check_cancel()

    @staticmethod
    def _emit(run: Run, event: Event) -> None:
        run.emit(event)
