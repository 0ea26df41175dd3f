"""The answerer of a request for a suggestion: one short streamed sentence from what the person said they
like, have or want (a suggestion claims no fact, so it is given even when nothing was read)."""

from __future__ import annotations

from .. import prompts
from .base import Answerer, Composed, Found, shown

MAX_TOKENS = 90
"""Room for the suggestion: one or two sentences."""


def recommend(found: Found, run) -> Composed:
    """The model's suggestion over the person's stated preferences (neutralised), citing where they are."""
    said = [shown(it.words) for it in found.items[:6]]
    text = run.stream("answer", prompts.suggest_prompt(found.question.text, said), MAX_TOKENS)
    return Composed(" ".join(text.split()), [it.ref for it in found.items[:6]])


ANSWERERS = (Answerer("recommend", recommend, read=5),)
