"""The paper's controller for strong models: the model writes each query, takes notes over the whole
result list at once (take_note) and decides when to finish (finish_search)."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import Block
from .. import prompts
from ..render import day_label, name, neutralise
from ..run import Run
from ..schemas import choose_schema, next_schema
from .base import check_search, model_query


def render_record(block: Block, number: int, limit: int) -> str:
    """One result with its context turns (hit turns get most of `limit` characters)."""
    head = f"RESULT {number} | date {day_label(block.date or block.session_date)}"
    if block.session_title:
        head += f" | title {name(block.session_title, 80)}"
    hits = [t for t in block.turns if t.turn in block.hit_turns] or list(block.turns[:1])
    hit_cap = max(limit * 2 // (3 * len(hits)), 120)
    other_cap = max(limit // (3 * max(len(block.turns) - len(hits), 1)), 60)
    lines = [head]
    for t in block.turns:
        cap = hit_cap if t in hits else other_cap
        lines.append(f"({name(t.speaker, 20) or 'turn'}) {neutralise(t.text, cap, one_line=True)}")
    return "\n".join(lines)


@dataclass
class OneShotController:
    """query → search → take_note (one list) → next or finish, at most `max_searches` searches."""

    name: str = "oneshot"
    max_searches: int = 4
    record_chars: int = 1600
    dates: bool = True
    fallback: int = 3

    def collect(self, run: Run) -> None:
        """Stage 1 (see the class docstring)."""
        action = model_query(run, 64)
        if action is None:
            return run.finish("retries", self.fallback)
        while True:
            blocks = run.search(*action)
            if blocks:
                records = [render_record(b, i, self.record_chars) for i, b in enumerate(blocks, 1)]

                def check(data: dict, n: int = len(blocks)) -> tuple[list[int] | None, str | None]:
                    out = sorted(set(data["indices"]))
                    bad = [i for i in out if not 1 <= i <= n]
                    return (None, f"result number {bad[0]} does not exist (1..{n})") if bad else (out, None)

                chosen = run.ask(
                    "take_note",
                    prompts.choose_prompt(run.head, records, run.round),
                    choose_schema(len(blocks)),
                    48,
                    check,
                )
                if chosen is None:
                    return run.finish("retries", self.fallback)
                if chosen:
                    run.note(chosen, blocks, "chosen")
            if run.searches >= self.max_searches:
                return run.finish("max_searches", self.fallback)
            run.round += 1

            def check_next(data: dict) -> tuple:
                if data.get("action") == "finish_search":
                    return "finish", None
                value, err = check_search(run, data)
                if value is not None and run.repeats(*value):
                    return None, "that search already ran; use other keywords or finish_search"
                return value, err

            left = self.max_searches - run.searches
            nxt = run.ask(
                "next",
                prompts.next_prompt(run.head, run.history, left, self.dates),
                next_schema(self.dates),
                96,
                check_next,
            )
            if nxt is None:
                return run.finish("retries", self.fallback)
            if nxt == "finish":
                return run.finish("model", self.fallback)
            action = nxt
