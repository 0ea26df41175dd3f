"""Stage 2: the answer from the notes. Aggregation questions: the model extracts cited items and the
program computes; other questions: one short streamed sentence over a token-budgeted context."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import ContextOverflowError
from ..llm.base import Completion
from . import prompts
from .aggregate import INSTRUCTIONS, Item, compute, items_schema, stated
from .context import Context, build_context
from .events import AnswerEvent, AnswerTokenEvent, Note
from .keywords import content_words
from .run import Run

_NOT_THERE = re.compile(r"not in your history", re.IGNORECASE)


@dataclass
class Answer:
    """The stage's outcome."""

    text: str
    citations: list[tuple[str, int]]
    abstained: bool = False
    computed: bool = False


def token_counter(backend: object) -> Callable[[str], int]:
    """The back end's own tokenizer when it has one, else about 4 characters a token."""
    count = getattr(backend, "count_tokens", None)
    if callable(count):
        return count
    return lambda text: len(text) // 4 + 1


def abstain(run: Run) -> Answer:
    """The "not in your history" answer, without a model call."""
    run.emit(AnswerTokenEvent(prompts.NO_HISTORY_ANSWER))
    run.emit(AnswerEvent(prompts.NO_HISTORY_ANSWER, [], abstained=True))
    return Answer(prompts.NO_HISTORY_ANSWER, [], abstained=True)


def answer(run: Run, budget: int, max_tokens: int) -> Answer:
    """Stage 2 for `run` (see the module docstring); `budget` is the context size in tokens."""
    if not run.notes:
        return abstain(run)
    count = token_counter(run.backend)
    words = content_words(run.question)
    newest = run.kind.kind == "latest"
    # the first search's other results follow the notes as candidates: a small model's relevance call
    # ranks (what it kept is read first) rather than discards (measured: it drops answers)
    noted = {(n.block.session_id, n.block.turn) for n in run.notes}
    reading = run.notes + [
        Note(b, 1, "candidate") for b in run.first_blocks if (b.session_id, b.turn) not in noted
    ]
    while True:
        ctx = build_context(reading, words, run.tags, budget, count, newest_first=newest)
        try:
            if run.kind.aggregates and ctx.labels:
                done = _computed(run, ctx)
                if done is not None:
                    return done
            return _written(run, ctx, newest, max_tokens)
        except ContextOverflowError:
            if budget <= 300:
                raise
            budget //= 2


def _computed(run: Run, ctx: Context) -> Answer | None:
    """Extract items under a schema and let the program compute; None when that did not work."""
    instruction = INSTRUCTIONS[run.kind.kind]
    text = prompts.extract_prompt(run.head, ctx.text, instruction)
    data = run.ask("extract", text, items_schema(ctx.labels), 260, usage_stage="answer")
    if not data:
        return None
    items: list[Item] = []
    seen: set[tuple[str, str]] = set()
    for raw in data.get("items", []):
        ref = run.tags.lookup(raw["tag"])
        what = " ".join(str(raw["item"]).split()).strip(" .,;")
        if ref is None or ref not in ctx.refs or not what or (raw["tag"], what.lower()) in seen:
            continue
        seen.add((raw["tag"], what.lower()))
        value = raw.get("value")
        if value is not None and not stated(float(value), ctx.texts.get(ref, "")):
            if run.kind.kind == "sum":
                continue  # an amount the cited turn does not hold is not added
            value = None
        if run.kind.kind == "count" and value is not None and not 1 < value <= 100:
            value = None
        items.append(
            Item(
                what, float(value) if value is not None else None, ref, f"[{raw['tag']}]", ctx.dates.get(ref)
            )
        )
    sentence = compute(run.kind, run.question, items, run.now, run.tz)
    if sentence is None:
        return None
    cites = list(dict.fromkeys(it.ref for it in items))
    run.emit(AnswerTokenEvent(sentence))
    run.emit(AnswerEvent(sentence, cites))
    return Answer(sentence, cites, computed=True)


def _written(run: Run, ctx: Context, newest: bool, max_tokens: int) -> Answer:
    """One short answer sentence, streamed when the back end can."""
    messages = run.messages(prompts.answer_prompt(run.head, ctx.text, newest))
    backend = run.backend
    if getattr(backend, "can_stream", False):
        run.check_cancel()
        import time

        t0 = time.perf_counter()
        pieces: list[str] = []
        final: Completion | None = None
        for item in backend.stream(messages, max_tokens=max_tokens):
            if isinstance(item, Completion):
                final = item
                continue
            pieces.append(item)
            run.emit(AnswerTokenEvent(item))
            run.check_cancel()
        final = final or Completion("".join(pieces))
        run.account("answer", final, time.perf_counter() - t0)
        text = "".join(pieces) or final.text
    else:
        text = run.call("answer", messages, None, max_tokens).text
        run.emit(AnswerTokenEvent(text))
    text = text.strip()
    citations = run.tags.resolve(text, ctx.refs)
    abstained = bool(_NOT_THERE.search(text)) and not citations
    run.emit(AnswerEvent(text, citations, abstained=abstained))
    return Answer(text, citations, abstained)
