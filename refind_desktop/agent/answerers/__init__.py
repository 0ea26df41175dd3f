"""The answerers, one per kind of question, in one registry (as modes.py registers answer modes)."""

from __future__ import annotations

from . import computed, lists, single, suggest
from .base import Answerer, Composed, Found

REGISTRY: dict[str, Answerer] = {}


def register(answerer: Answerer) -> None:
    """Add (or replace) the answerer of one kind."""
    REGISTRY[answerer.kind] = answerer


for _module in (single, computed, lists, suggest):
    for _answerer in _module.ANSWERERS:
        register(_answerer)


def answerer_for(kind: str) -> Answerer:
    """The answerer of a kind (the lookup one for a kind without its own)."""
    return REGISTRY.get(kind) or REGISTRY["lookup"]


__all__ = ["REGISTRY", "Answerer", "Composed", "Found", "answerer_for", "register"]
