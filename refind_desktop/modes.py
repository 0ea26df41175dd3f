"""The one registry of answer modes: name → runner with one signature, read by every front end.

`refind ask --mode`, the TUI's mode menu, `refind eval qa` and the MCP server all list and run modes
from here. A runner is `run(svc, backend, question, *, now=None, on_event=None, cancel=None,
date_hint=None)` and returns an object with `.answer`, `.citations`, `.to_json()`; `cancel` (a
threading.Event) stops it between steps, `date_hint` (agent.DateHint) narrows the first search.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .agent import Agent, AgentConfig, DateHint, Event
from .errors import ConfigError


class Runner(Protocol):
    """The one runner signature."""

    def __call__(
        self,
        svc: Any,
        backend: Any,
        question: str,
        *,
        now: datetime | None = None,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
        date_hint: DateHint | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class AnswerMode:
    """A registered mode: its name, a one-line description and its runner."""

    name: str
    description: str
    run: Runner
    extra: str = ""
    """The optional dependency extra it needs ("" = none)."""


def agent_config(settings: Any) -> AgentConfig:
    """The agent's budgets from settings."""
    return AgentConfig.from_settings(settings)


def _agent_runner(mode: str) -> Runner:
    def run(svc, backend, question, *, now=None, on_event=None, cancel=None, date_hint=None):
        agent = Agent(
            svc.engine, backend, mode=mode, options=svc.search_options(), config=agent_config(svc.settings)
        )
        return agent.run(question, now=now, on_event=on_event, cancel=cancel, date_hint=date_hint)

    return run


def _rag_runner(name: str) -> Runner:
    def run(svc, backend, question, *, now=None, on_event=None, cancel=None, date_hint=None):
        from . import rag  # light wrappers: numpy and the embedder load only when the mode runs

        fn = rag.RAG_RUNNERS[name]
        return fn(svc, backend, name, question, now, on_event, cancel=cancel, date_hint=date_hint)

    return run


MODES: dict[str, AnswerMode] = {}


def register(mode: AnswerMode) -> None:
    """Add (or replace) a mode."""
    MODES[mode.name] = mode


register(
    AnswerMode("refind", "agentic search with notes, then a cited answer (default)", _agent_runner("refind"))
)
register(
    AnswerMode(
        "generic",
        "the same agent over plain BM25 (no RRF, context, dedup or dates)",
        _agent_runner("generic"),
    )
)
register(
    AnswerMode(
        "one-search",
        "one model-written search, every result kept, then the answer",
        _agent_runner("one-search"),
    )
)
register(
    AnswerMode(
        "rawrag",
        "dense windows + rerank, then the answer (needs `refind embed`)",
        _rag_runner("rawrag"),
        "rag",
    )
)
register(
    AnswerMode(
        "hybrid",
        "the agent over BM25 + dense four-way RRF (needs `refind embed`)",
        _rag_runner("hybrid"),
        "rag",
    )
)


def mode_names() -> tuple[str, ...]:
    """Every registered mode, default first."""
    return tuple(MODES)


def get_mode(name: str) -> AnswerMode:
    """The mode called `name`, or a ConfigError naming the available ones."""
    mode = MODES.get((name or "").strip())
    if mode is None:
        raise ConfigError(f"mode {name!r} is not available; choose one of {', '.join(MODES)}")
    return mode


def run_mode(name: str, svc: Any, backend: Any, question: str, **kw: Any) -> Any:
    """Run `question` in mode `name` (keywords: now, on_event, cancel, date_hint)."""
    return get_mode(name).run(svc, backend, question, **kw)


def positional_runner(
    svc: Any, backend: Any, mode: str, question: str, now: datetime | None, on_event: Any
) -> Any:
    """The registry behind the eval harness's positional runner(svc, backend, mode, question, now, on_event)."""
    return run_mode(mode, svc, backend, question, now=now, on_event=on_event)
