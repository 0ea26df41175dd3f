"""The paper's one-search control: the model writes one query, every result is kept as a note."""

from __future__ import annotations

from dataclasses import dataclass

from ..keywords import question_keywords
from ..run import Run
from .base import model_query


@dataclass
class OneSearchController:
    """One model-written search (the question's content words if the model fails), all results kept."""

    name: str = "one-search"

    def collect(self, run: Run) -> None:
        """Stage 1: one search."""
        action = model_query(run, 48)
        blocks = (
            run.search(*(action or (question_keywords(run.question, pack=run.asked.pack), None, None))) or []
        )
        if blocks:
            run.note(list(range(1, len(blocks) + 1)), blocks, "all")
        run.finish("one-search", 0)
