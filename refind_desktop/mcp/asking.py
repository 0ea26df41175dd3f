"""run_ask: the one adapter between the MCP `ask` tool and the answer modes (agent and Raw-RAG).

Modes come from the core's one registry (`refind_desktop/modes.py`), as for `refind ask`, the TUI and
`refind eval qa`; the cancel event stops a run between steps (and at each event). Called from a worker
thread by `mcp/server.py`.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ..agent import AgentCancelled, Event
from ..errors import ConfigError
from ..modes import get_mode, mode_names
from ..services import Services

SCRIPT_ENV = "REFIND_TEST_SCRIPTED_BACKEND"
"""TEST ONLY: path of a JSON script; when set, `ask` uses the scripted fake model instead of the configured
back end (the MCP tests run `refind mcp` as a subprocess and cannot inject a back end any other way)."""

_lock = threading.Lock()
_run_lock = threading.Lock()  # one question at a time: the model's context is not shared
_backend: Any = None  # the server process's model back end, loaded by the first `ask`


def ask_modes() -> tuple[str, ...]:
    """Names the `mode` argument accepts (the same as `refind ask --mode`)."""
    return mode_names()


def scripted_from_file(path: Path) -> Any:
    """TEST ONLY: a ScriptedBackend answering by agent step from a JSON script.

    Keys: "query", "next" (replies), "judge_yes_if" (a judge says yes when the record contains this text),
    "answer" (text: read from the passage whose turn holds its words), "confirm" (the confirming
    reading's reply, default agreeing), "named" (the typed reading's reply, default agreeing), "delay"
    (seconds each call sleeps: lets a test cancel mid-run), "calls_log" (a file that gets one line per
    model call, so a test can see when the run stopped).
    """
    from ..llm.scripted import AGREEING, ScriptedBackend, stage_of

    script = json.loads(path.read_text(encoding="utf-8"))
    delay = float(script.get("delay", 0))

    log = script.get("calls_log")

    def respond(messages, schema):
        stage = stage_of(schema)
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(stage + "\n")
        if delay:
            time.sleep(delay)
        needle = script.get("judge_yes_if", "")
        if stage == "relevance":  # the batched relevance call: the numbered results holding the needle
            blocks = re.split(r"(?m)^(?=\d+\. \[)", messages[-1].content)
            hits = [int(b.split(".", 1)[0]) for b in blocks if b[:1].isdigit() and needle and needle in b]
            return {"relevant": hits}
        if stage == "judge":
            return {"answer": "yes" if needle and needle in messages[-1].content else "no"}
        if stage == "choose":
            return {"indices": [1]}
        if stage == "read":  # the answer text is the reading of the passage that holds it
            return script.get("read", script.get("answer"))
        if stage in AGREEING:  # a check reading of the answer agrees unless the script says
            return script.get(stage, AGREEING[stage])
        return script[stage]

    return ScriptedBackend(respond, name="scripted")


def backend_loaded(svc: Services) -> bool:
    """Whether `backend_for` already loaded the model in this process."""
    return _backend is not None


def backend_for(svc: Services) -> Any:
    """The configured model back end, loaded once per server process and reused by every `ask`."""
    global _backend
    with _lock:
        backend = _backend
        if backend is None:
            script = os.environ.get(SCRIPT_ENV)
            if script:
                print(f"refind mcp: TEST MODE, scripted model from {script}", file=sys.stderr, flush=True)
                backend = scripted_from_file(Path(script))
            else:
                from ..llm.factory import make_backend

                backend = make_backend(svc.settings)
            _backend = backend
        return backend


def run_ask(
    svc: Services,
    question: str,
    mode: str | None,
    now: datetime | None,
    on_event: Callable[[Event], None] | None,
    cancel: threading.Event,
) -> Any:
    """Answer one question in `mode` (default: the configured mode); returns a result with `.to_json()`.

    Raises AgentCancelled when `cancel` is set before the run finishes. One model call at a time: a second
    question waits for the first (a local model is not re-entrant).
    """
    mode = mode or svc.settings.mode
    if mode not in ask_modes():
        raise ConfigError(f"mode {mode!r} is not available; choose one of {', '.join(ask_modes())}")
    backend = backend_for(svc)

    def emit(event: Event) -> None:
        if cancel.is_set():
            raise AgentCancelled("the question was cancelled before it finished")
        if on_event is not None:
            on_event(event)

    with _run_lock:
        if cancel.is_set():
            raise AgentCancelled("the question was cancelled before it started")
        return get_mode(mode).run(svc, backend, question, now=now, on_event=emit, cancel=cancel)
