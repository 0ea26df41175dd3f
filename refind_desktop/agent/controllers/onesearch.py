"""The paper's one-search control: the model writes one query, every result is kept as a note."""

from __future__ import annotations

from dataclasses import dataclass

from .. import prompts
from ..keywords import question_keywords
from ..run import Run
from ..schemas import query_schema
from .base import check_search


@dataclass
class OneSearchController:
    """One model-written search (the question's content words if the model fails), all results kept."""

    name: str = "one-search"

    def collect(self, run: Run) -> None:
        """Stage 1: one search."""
        action = run.ask(
            "query",
            prompts.keywords_prompt(run.head, [], False),
            query_schema(False),
            48,
            lambda d: check_search(run, d),
        )
        blocks = run.search(*(action or (question_keywords(run.question), None, None))) or []
        if blocks:
            run.note(list(range(1, len(blocks) + 1)), blocks, "all")
        run.finish("one-search", 0)
