"""TUI test helpers: the sample chats' Lisbon flight, a scripted responder, and waits for the app loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from refind_desktop.llm.scripted import stage_of

__all__ = ["ANSWER", "LISBON", "SAMPLES", "SHOWN", "responder", "wait_for", "wait_indexed"]

SAMPLES = Path(__file__).resolve().parents[2] / "refind_desktop" / "samples"
LISBON = "chatgpt:c0ffee00-0000-4000-8000-000000000001"
ANSWER = {"found": True, "items": [{"turn": "T2", "words": "TAP Air Portugal TP1351", "when": "14 May 2025"}]}
"""What the scripted model reads in the Lisbon passage: the flight, in turn 2, and its day's words."""
SHOWN = "14 May 2025: TAP Air Portugal TP1351 [S1 T2]."
"""The answer as shown: the day the turn names, the words, the program's tag of the turn."""


def responder(
    gate: threading.Event | None = None, answer: str | dict = ANSWER, confirms: bool = True
) -> Callable:
    """A model that keeps the results that mention TP1351 (one batched relevance call) and answers.

    With `gate`, the first model call waits for it (so a test can cancel a question in flight).
    `confirms`: what the confirming reading of the answer's cited turn says (False: the outcome is unsure).
    """

    def respond(messages, schema):
        stage = stage_of(schema)
        if gate is not None:
            gate.wait(10)
        if stage == "query":
            return {"keywords": ["flight", "Lisbon"]}
        if stage == "relevance":
            lines = messages[-1].content.splitlines()
            return {
                "relevant": [
                    i for i in range(1, 9) if any(x.startswith(f"{i}. [") and "TP1351" in x for x in lines)
                ]
            }
        if stage == "judge":
            return {"answer": "yes" if "TP1351" in messages[-1].content else "no"}
        if stage == "next":
            return {"action": "finish_search", "keywords": [], "date_from": None, "date_to": None}
        if stage == "confirm":
            return {"about": confirms, "answers": confirms}
        if stage == "named":
            return {"names": confirms}
        return answer

    return respond


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until `predicate()` holds (workers post messages; the loop must turn)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.05)


async def wait_indexed(pilot) -> None:
    """Until the initial ingest finished and the status bar shows the totals."""
    from refind_desktop.tui.widgets import StatusBar

    bar = pilot.app.query_one(StatusBar)
    await wait_for(pilot, lambda: bar.indexing is None and bar.stats.sessions > 0)
