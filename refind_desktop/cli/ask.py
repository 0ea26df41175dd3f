"""`refind ask`: answer a question from the archive, streaming the search steps and the answer."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime, time
from pathlib import Path

from ..errors import ConfigError, NotFoundError
from ..llm.factory import BACKENDS
from ..rag import RAG_RUNNERS
from ..search.engine import block_to_json
from ..terminal import printable
from .common import print_json, services

AGENT_MODES = ("refind", "generic", "one-search")


def register(sub: argparse._SubParsersAction) -> None:
    """Add `ask`."""
    p = sub.add_parser("ask", help="answer a question from your chat history, with cited turns")
    p.add_argument("question", nargs="+")
    p.add_argument(
        "--mode",
        choices=tuple(MODE_RUNNERS),
        default=None,
        help="refind (default): agentic search; generic: plain BM25 agent; one-search: a "
        "single search straight to the answer; rawrag: dense windows + rerank "
        "(needs `refind embed`); hybrid: the agent over BM25+dense four-way RRF",
    )
    p.add_argument("--backend", choices=tuple(BACKENDS), default=None, help="model back end")
    p.add_argument("--model", default=None, metavar="NAME|PATH", help="catalog name or GGUF path")
    p.add_argument(
        "--now",
        default=None,
        metavar="DATE",
        help="the question's current time, YYYY-MM-DD or YYYY-MM-DDTHH:MM (default: now)",
    )
    p.add_argument("--json", action="store_true", help="print only the result JSON")
    p.add_argument(
        "--trace",
        type=Path,
        default=None,
        metavar="FILE",
        help="save the whole trajectory (with every search result) as JSON",
    )
    p.set_defaults(func=cmd_ask)


def load_backend(svc, backend: str | None, model: str | None):
    """The configured model back end (imported lazily: the llama/openai modules are heavy)."""
    from ..llm.factory import make_backend

    return make_backend(svc.settings, backend=backend, model=model)


def parse_now(value: str | None, tz) -> datetime | None:
    """--now: a day (taken at noon) or an ISO date-time, in the configured zone."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError as exc:
        raise ConfigError(f"--now takes YYYY-MM-DD or YYYY-MM-DDTHH:MM, got {value!r}") from exc
    if len(value) <= 10:
        when = datetime.combine(when.date(), time(12, 0))
    return when if when.tzinfo else when.replace(tzinfo=tz)


class StepPrinter:
    """Human-readable progress: steps on stderr, answer tokens on stdout."""

    def __init__(self, stream_answer: bool) -> None:
        self.stream_answer = stream_answer

    def __call__(self, event) -> None:
        from ..agent import AnswerTokenEvent, FinishEvent, NoteEvent, RetryEvent, SearchEvent

        err = sys.stderr
        if isinstance(event, SearchEvent):
            span = ""
            if event.date_from or event.date_to:
                span = f" [{event.date_from or '...'} .. {event.date_to or '...'}]"
            print(
                printable(
                    f"search {event.step}: {', '.join(event.keywords)}{span} -> {len(event.hits)} results",
                    one_line=True,
                ),
                file=err,
                flush=True,
            )
        elif isinstance(event, NoteEvent):
            where = ", ".join(f"{s} turn {t}" for s, t in event.saved)
            print(printable(f"  noted {event.indices}: {where}", one_line=True), file=err, flush=True)
        elif isinstance(event, RetryEvent):
            state = "gave up" if event.gave_up else "retrying"
            print(
                printable(f"  invalid {event.stage} output ({event.reason}); {state}", one_line=True),
                file=err,
                flush=True,
            )
        elif isinstance(event, FinishEvent):
            print(
                f"finished ({event.reason}): {event.searches} searches, {event.notes} notes\n",
                file=err,
                flush=True,
            )
        elif isinstance(event, AnswerTokenEvent) and self.stream_answer:
            sys.stdout.write(printable(event.text))
            sys.stdout.flush()


def run_agent(svc, backend, mode: str, question: str, now: datetime | None, on_event: Callable):
    """ReFind-family modes: one Agent run."""
    from ..agent import Agent, AgentConfig

    config = AgentConfig(max_searches=svc.settings.max_searches)
    agent = Agent(svc.engine, backend, mode=mode, options=svc.search_options(), config=config)
    return agent.run(question, now=now, on_event=on_event)


# Mode name -> runner(svc, backend, mode, question, now, on_event) returning an object with
# `.answer`, `.citations` and `.to_json()`. The raw-RAG modes ("rawrag", "hybrid") register here.
MODE_RUNNERS: dict[str, Callable] = {m: run_agent for m in AGENT_MODES}
MODE_RUNNERS.update(RAG_RUNNERS)  # rawrag, hybrid: light wrappers, numpy/torch load only when they run


def trace_json(result) -> dict:
    """The result JSON plus every block each search returned (verbatim), for audit."""
    data = result.to_json()
    data["search_results"] = [
        {"step": e.step, "keywords": e.keywords, "results": [block_to_json(b) for b in e.blocks]}
        for e in getattr(result, "searches", [])
    ]
    return data


def cmd_ask(args: argparse.Namespace) -> int:
    """`refind ask QUESTION`"""
    svc = services()
    mode = args.mode or svc.settings.mode
    runner = MODE_RUNNERS.get(mode)
    if runner is None:
        raise ConfigError(f"mode {mode!r} is not available; choose one of {', '.join(MODE_RUNNERS)}")
    question = " ".join(args.question)
    if svc.index.num_turns() == 0:
        raise NotFoundError("nothing is indexed yet; add chat exports with `refind ingest PATH`")
    now = parse_now(args.now, svc.tz)
    if not args.json:
        print("loading the model...", file=sys.stderr, flush=True)
    backend = load_backend(svc, args.backend, args.model)
    try:
        result = runner(svc, backend, mode, question, now, None if args.json else StepPrinter(True))
    finally:
        svc.close()
    if args.trace:
        args.trace.write_text(
            json.dumps(trace_json(result), ensure_ascii=False, indent=2, default=str), encoding="utf-8"
        )
    if args.json:
        print_json(result.to_json())
        return 0
    sys.stdout.write("\n")
    if result.citations:
        print(
            "\nsources: " + printable("; ".join(f"{s} turn {t}" for s, t in result.citations), one_line=True)
        )
        print("open one with: refind show SESSION --turn N", file=sys.stderr)
    return 0
