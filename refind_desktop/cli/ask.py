"""`refind ask`: answer a question from the archive, streaming the search steps and the answer."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime, time
from pathlib import Path

from ..errors import NotFoundError, UsageError
from ..llm.factory import BACKENDS
from ..modes import MODES, get_mode, positional_runner
from ..search.engine import block_to_json
from ..terminal import printable
from .common import Progress, day_problem, print_json, services


def register(sub: argparse._SubParsersAction) -> None:
    """Add `ask`."""
    p = sub.add_parser("ask", help="answer a question from your chat history, with cited turns")
    p.add_argument("question", nargs="+")
    p.add_argument(
        "--mode",
        choices=tuple(MODES),
        default=None,
        help="; ".join(f"{m.name}: {m.description}" for m in MODES.values()),
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
    """The configured model back end (imported lazily: the llama/openai modules are heavy). When the
    embedded model must first be assembled from its parts, a progress bar says so (on a terminal)."""
    from ..llm.factory import make_backend

    bar: list[Progress] = []

    def assembling(done: int, total: int) -> None:
        if not bar:
            bar.append(Progress("preparing the model (once)"))
        bar[0].update(done, total or None)

    try:
        return make_backend(svc.settings, backend=backend, model=model, progress=assembling)
    finally:
        for b in bar:
            b.close()


def parse_now(value: str | None, tz) -> datetime | None:
    """--now: a day (taken at noon) or an ISO date-time, in the configured zone."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError as exc:
        why = day_problem(value[:10]) if len(value) >= 10 else None
        raise UsageError(
            f"--now takes YYYY-MM-DD or YYYY-MM-DDTHH:MM, got {printable(value, one_line=True)!r}"
            + (f" ({why})" if why and "YYYY-MM-DD" not in why else "")
        ) from exc
    if len(value) <= 10:
        when = datetime.combine(when.date(), time(12, 0))
    return when if when.tzinfo else when.replace(tzinfo=tz)


def _day(when) -> str:
    return when.date().isoformat() if when else "????-??-??"


class StepPrinter:
    """Human-readable progress: steps on stderr (the first search's top hits verbatim, with their
    session dates, as soon as it returns: evidence first), answer tokens on stdout."""

    def __init__(
        self,
        stream_answer: bool,
        evidence: int = 3,
        evidence_chars: int = 300,
        hide: Callable[[str], str] = str,
    ) -> None:
        self.stream_answer = stream_answer
        self.evidence = evidence
        self.evidence_chars = evidence_chars
        self.hide = hide
        """Secret redaction of what is printed (the answer word by word, as it streams)."""
        self._shown = False
        self._pending = ""

    def flush(self) -> None:
        """Print the answer's last (unfinished) word."""
        if self._pending:
            sys.stdout.write(printable(self.hide(self._pending)))
            sys.stdout.flush()
            self._pending = ""

    def __call__(self, event) -> None:
        from ..agent import (
            AnswerTokenEvent,
            BatchEvent,
            FinishEvent,
            NoteEvent,
            ReadEvent,
            RetryEvent,
            SearchEvent,
        )

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
            if not self._shown and event.blocks:
                self._shown = True
                for b in event.blocks[: self.evidence]:
                    hit = next((t for t in b.turns if t.turn == b.turn), b.turns[0])
                    text = " ".join(self.hide(hit.text).split())
                    if len(text) > self.evidence_chars:
                        text = text[: self.evidence_chars - 1] + "…"
                    who = f"{hit.speaker}: " if hit.speaker else ""
                    print(
                        printable(
                            f"  {_day(b.date)}  {b.session_id} turn {b.turn}  {who}{text}",
                            one_line=True,
                        ),
                        file=err,
                        flush=True,
                    )
        elif isinstance(event, NoteEvent):
            where = ", ".join(f"{s} turn {t}" for s, t in event.saved)
            print(printable(f"  noted {event.indices}: {where}", one_line=True), file=err, flush=True)
        elif isinstance(event, BatchEvent):
            print(f"  {event.describe()}…", file=err, flush=True)
        elif isinstance(event, ReadEvent):
            said = "; ".join(f"turn {i['turn']}: {self.hide(i['words'])}" for i in event.items) or "nothing"
            where = (
                f"{event.session_id} turns {event.turns[0]}-{event.turns[-1]}"
                if event.turns
                else event.session_id
            )
            print(printable(f"  read {where}: {said}", one_line=True), file=err, flush=True)
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
            self._pending += event.text
            cut = max(self._pending.rfind(" "), self._pending.rfind("\n")) + 1
            if cut:  # whole words go out redacted; a key is never split across two writes
                sys.stdout.write(printable(self.hide(self._pending[:cut])))
                sys.stdout.flush()
                self._pending = self._pending[cut:]


MODE_RUNNERS: dict[str, Callable] = {name: positional_runner for name in MODES}
"""Mode name → runner(svc, backend, mode, question, now, on_event) for the eval harness (the
registry in refind_desktop/modes.py behind one positional signature)."""


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
    mode = get_mode(args.mode or svc.settings.mode)
    question = " ".join(args.question)
    if svc.index.num_turns() == 0:
        raise NotFoundError("nothing is indexed yet; add chat exports with `refind ingest PATH`")
    now = parse_now(args.now, svc.tz)
    from ..llm.factory import backend_traits
    from ..llm.lazy import LazyBackend

    def loading() -> None:
        if not args.json:
            print("loading the model...", file=sys.stderr, flush=True)

    # built on the first model call: the first search and its hits print before the model loads
    # (its traits come from the settings, so choosing the controller does not build it)
    backend = LazyBackend(
        lambda: load_backend(svc, args.backend, args.model),
        on_load=loading,
        traits=backend_traits(svc.settings, args.backend, args.model),
    )
    printer = None if args.json else StepPrinter(True, hide=svc.redactor.text)
    try:
        result = mode.run(svc, backend, question, now=now, on_event=printer)
    finally:
        svc.close()
    if printer is not None:
        printer.flush()
    if args.trace:
        args.trace.write_text(
            json.dumps(svc.redactor.data(trace_json(result)), ensure_ascii=False, indent=2, default=str),
            encoding="utf-8",
        )
    if args.json:
        print_json(svc.redactor.data(result.to_json()))
        return 0
    sys.stdout.write("\n")
    if result.citations:
        tags = {sid: tag for tag, sid in getattr(result, "tags", {}).items()}
        print(
            "\nsources: "
            + printable(
                "; ".join(f"[{tags.get(s, '?')} T{t}] {s} turn {t}" for s, t in result.citations),
                one_line=True,
            )
        )
        print("open one with: refind show SESSION --turn N", file=sys.stderr)
    return 0
