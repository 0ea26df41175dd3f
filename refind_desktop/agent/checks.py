"""The checks that may stop an answer, run as lists: before the reading (is there anything to read?) and
after it (did any passage state it?). Each returns the refusal sentence, or None to let the answer go on."""

from __future__ import annotations

from collections.abc import Callable

from .answerers import Found
from .evidence import Passage
from .question import Question

Before = Callable[[Question, list[Passage]], str | None]
After = Callable[[Found], str | None]


def no_evidence(q: Question, evidence: list[Passage]) -> str | None:
    """Nothing was found to read: not in the history, without a model call."""
    return None if evidence else q.pack.say("no_notes")


def nothing_stated(found: Found) -> str | None:
    """No passage read states what the question asks: not in the history. A request for a suggestion
    claims no fact and goes on."""
    if found.items or found.question.kind == "recommend":
        return None
    return found.question.pack.say("not_found", read=found.read)


BEFORE: tuple[Before, ...] = (no_evidence,)
AFTER: tuple[After, ...] = (nothing_stated,)
