"""Stage 2: the answer from the notes. Aggregation questions: the model extracts cited items and the
program computes; other questions: one short streamed sentence over a token-budgeted context."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..errors import ConfigError, ContextOverflowError
from ..index.said import person_words
from ..llm.base import Completion
from . import premise, prompts
from .aggregate import (
    INSTRUCTIONS,
    Item,
    StatedCount,
    amount_in,
    compute,
    counted_noun,
    find_stated,
    items_schema,
    local_day,
    money_question,
    money_sign,
    stated,
    stated_sentence,
    summed_sentence,
)
from .context import Context, build_context, stem
from .eventdays import StatedDay, stated_day
from .eventpairs import find_events
from .events import AnswerEvent, AnswerTokenEvent, Note
from .keywords import content_words
from .run import Run

STYLES = ("plain", "short", "sentence")
EXTRACT_TOKENS = 480
"""Room for the extraction reply: a dozen items of about 40 tokens (at 260 the 1.5B model's list of
eleven notes' items was cut mid-JSON, measured)."""
_ANY_TAG = re.compile(r"\[\s*S\d+\s*T\d+\s*\]")
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


def abstain(run: Run, text: str = prompts.NO_HISTORY_ANSWER) -> Answer:
    """The "not in your history" answer, without a model call."""
    run.emit(AnswerTokenEvent(text))
    run.emit(AnswerEvent(text, [], abstained=True))
    return Answer(text, [], abstained=True)


def answer(
    run: Run, budget: int, max_tokens: int, style: str = "plain", premise_check: bool = True
) -> Answer:
    """Stage 2 for `run` (see the module docstring); `budget` is the context size in tokens. `style`
    "plain": one streamed sentence over tag-free excerpts, cited by the program; "short": the model
    fills a schema with a few-word answer and the tag of the turn that says it (a small model otherwise
    copies note lines); "sentence": one streamed sentence with tags. `premise_check`: first check
    that the notes hold what the question rests on (agent/premise.py)."""
    if style not in STYLES:
        raise ConfigError(f"unknown answer style {style!r}; choose one of {', '.join(STYLES)}")
    if not run.notes:
        return abstain(run)
    if premise_check:
        refusal = premise.check(run)
        if refusal:
            return abstain(run, refusal)
    count = token_counter(run.backend)
    words = content_words(run.question)
    newest = run.kind.kind == "latest"
    lookup = not run.kind.aggregates  # the first search's results are read first (context.py)
    # the first search's other results follow the notes as candidates: a small model's relevance call
    # ranks (what it kept is read first) rather than discards (measured: it drops answers)
    noted = {(n.block.session_id, n.block.turn) for n in run.notes}
    reading = run.notes + [
        Note(b, 1, "candidate") for b in run.first_blocks if (b.session_id, b.turn) not in noted
    ]
    # the tagged context serves the program's computations and the tagged styles; a plain lookup
    # never reads it
    tagged = run.kind.aggregates or newest or style != "plain"

    def read(budget: int, plain: bool) -> Context:
        return build_context(
            reading,
            words,
            run.tags,
            budget,
            count,
            newest_first=newest,
            plain=plain,
            first_search_first=lookup,
        )

    while True:
        try:
            if tagged:
                ctx = read(budget, plain=False)
                if run.kind.aggregates and ctx.labels:
                    done = _computed(run, ctx)
                    if done is not None:
                        return done
                if newest and ctx.labels:  # "how many ... currently": the last stated count
                    found = _stated(run, ctx)
                    if found:
                        sentence = stated_sentence(counted_noun(run.question) or "", found, run.tz)
                        return _deliver(run, sentence, [s.ref for s in found], computed=True)
                if style == "short" and ctx.labels:
                    return _short(run, ctx, newest)
                if style == "sentence" or style == "short":
                    return _written(run, ctx, newest, max_tokens)
            return _plain(run, read(budget, plain=True), newest, max_tokens)
        except ContextOverflowError:
            if budget <= 300:
                raise
            budget //= 2


def _paired(run: Run) -> Answer | None:
    """ "Which came first, X or Y" / "how many days between X and Y": the program finds X and Y in
    the person's own words of every noted turn (agent/eventpairs.py) and computes; None when it
    cannot tell (then the model extracts the items)."""
    turns: dict[tuple[str, int], tuple[str, datetime | None]] = {}
    for note in run.notes:
        for view in note.block.turns:
            ref = (view.session_id, view.turn)
            turns.setdefault(
                ref, (person_words(view.text, view.speaker), view.timestamp or note.block.session_date)
            )
    found = find_events(
        run.question, [(ref, text, local_day(when, run.tz)) for ref, (text, when) in turns.items()]
    )
    if found is None:
        return None
    items = [
        Item(e.phrase, None, e.ref, run.tags.tag(*e.ref), turns[e.ref][1], stated=e.stated) for e in found
    ]
    sentence = compute(run.kind, run.question, items, run.now, run.tz)
    if sentence is None:
        return None
    return _deliver(run, sentence, [it.ref for it in items], computed=True)


def _computed(run: Run, ctx: Context) -> Answer | None:
    """Extract items under a schema and let the program compute; None when that did not work."""
    if run.kind.kind in ("order", "date_diff") and not run.kind.since_now:
        paired = _paired(run)
        if paired is not None:
            return paired
    instruction = INSTRUCTIONS[run.kind.kind]
    text = prompts.extract_prompt(run.head, ctx.text, instruction)
    data = run.ask("extract", text, items_schema(ctx.labels), EXTRACT_TOKENS, usage_stage="answer")
    data = data or {"items": []}
    items: list[Item] = []
    seen: set[tuple[str, str]] = set()
    money = money_question(run.question)
    seen_amounts: set[tuple[str, float]] = set()
    for raw in data.get("items", []):
        ref = run.tags.lookup(raw["tag"])
        what = " ".join(str(raw["item"]).split()).strip(" .,;")
        # a count lists each distinct thing once, wherever it is mentioned; amounts and events are per turn
        key = ("", what.lower()) if run.kind.kind == "count" else (raw["tag"], what.lower())
        if ref is None or ref not in ctx.refs or not what or key in seen:
            continue
        seen.add(key)
        value = raw.get("value")
        amounts = run.kind.kind in ("sum", "difference")
        if value is None and amounts:
            value = amount_in(what, _own(ctx, ref))
        sign = ""
        if value is not None and amounts and money:
            # a money total adds only amounts the cited turn writes as money (measured: "2 hours" and
            # "room 1" were added up as "$6 in total" for gifts)
            sign = money_sign(float(value), ctx.texts.get(ref, "")) or ""
            if not sign:
                continue
        elif value is not None and not stated(float(value), ctx.texts.get(ref, "")):
            if amounts:
                continue  # an amount the cited turn does not hold is not added
            value = None
        if value is not None and run.kind.kind == "sum":
            # one amount restated in one chat is one amount (measured: "a gift card ... which was $100"
            # written in two turns of one chat was added twice)
            again = (ref[0], float(value))
            if again in seen_amounts:
                continue
            seen_amounts.add(again)
        if run.kind.kind == "count" and value is not None and not 1 < value <= 100:
            value = None
        value = float(value) if value is not None else None
        items.append(
            Item(what, value, ref, f"[{raw['tag']}]", ctx.dates.get(ref), sign, _told(run, ctx, what, ref))
        )
    sentence = compute(run.kind, run.question, items, run.now, run.tz)
    cites = list(dict.fromkeys(it.ref for it in items))
    if run.kind.kind == "sum" and sentence is None and not money_question(run.question):
        written = _stated(run, ctx)  # "the total number of episodes": the counts stated per session, added
        if written:
            sentence, parts = summed_sentence(counted_noun(run.question) or "", written)
            cites = [s.ref for s in parts]
    if run.kind.kind == "count":
        written = _stated(run, ctx)
        # a count the person wrote beats counting mentions (measured: once extraction worked, a small
        # model's items for "how many Korean restaurants" were five unrelated names; the person wrote "four")
        if written:
            noun = counted_noun(run.question) or ""
            sentence, cites = stated_sentence(noun, written, run.tz), [s.ref for s in written]
        elif len(items) == 1 and not items[0].value:
            sentence = None  # "1 in total" from one mention is no count: the model's own answer reads better
    if sentence is None:
        return None
    return _deliver(run, sentence, cites, computed=True)


def _deliver(run: Run, sentence: str, cites: list[tuple[str, int]], computed: bool = False) -> Answer:
    """A sentence the program wrote whole: one token event, the answer event, the Answer."""
    run.emit(AnswerTokenEvent(sentence))
    run.emit(AnswerEvent(sentence, cites))
    return Answer(sentence, cites, computed=computed)


def _since(run: Run, ctx: Context, what: str, ref: tuple[str, int]) -> str | None:
    """ "How long ago": the cited turn's date is the event's, measured to the question's today; None
    for other questions or an undated turn."""
    if not (run.kind.kind == "date_diff" and run.kind.since_now and ctx.dates.get(ref)):
        return None
    event = Item(what, None, ref, run.tags.tag(*ref), ctx.dates[ref], stated=_told(run, ctx, what, ref))
    return compute(run.kind, run.question, [event], run.now, run.tz)


def _told(run: Run, ctx: Context, what: str, ref: tuple[str, int]) -> StatedDay | None:
    """For questions about when things happened, the days the person's sentence about `what` names."""
    if run.kind.kind not in ("order", "date_diff"):
        return None
    return stated_day(what, _own(ctx, ref), local_day(ctx.dates.get(ref), run.tz))


def _stated(run: Run, ctx: Context) -> list[StatedCount]:
    """Counts of the question's noun written in the person's own words of the context's turns."""
    noun = counted_noun(run.question)
    if not noun:
        return []
    turns = [(ref, run.tags.tag(*ref), _own(ctx, ref), ctx.dates.get(ref)) for ref in ctx.refs]
    return find_stated(noun, turns)


def _own(ctx: Context, ref: tuple[str, int]) -> str:
    """The person's own words of a context turn (a bare user message is all theirs)."""
    return person_words(ctx.texts.get(ref, ""), ctx.speakers.get(ref, ""))


def _short(run: Run, ctx: Context, newest: bool) -> Answer:
    """A few-word answer and the tag of the turn that states it, under a schema; the program writes
    the sentence (answer, tag, the turn's date)."""
    text = prompts.short_answer_prompt(run.head, ctx.text, newest)
    data = run.ask("answer", text, prompts.short_answer_schema(ctx.labels), 60, usage_stage="answer")
    said = " ".join(str((data or {}).get("answer") or "").split()).strip(" .;,")
    ref = run.tags.lookup(str((data or {}).get("tag") or ""))
    if not said or _NOT_THERE.search(said) or said.lower() in ("null", "none", "n/a", "unknown"):
        return abstain(run)
    cites = [ref] if ref is not None and ref in ctx.refs else []
    sentence = said + (f" {run.tags.tag(*ref)}" if cites else "") + "."
    if cites:
        sentence = _since(run, ctx, said, cites[0]) or sentence
    return _deliver(run, sentence, cites)


def _streamed(run: Run, prompt: str, max_tokens: int) -> str:
    """One free-text answer call, streamed (each piece an AnswerTokenEvent) when the back end can."""
    messages = run.messages(prompt)
    backend = run.backend
    if not getattr(backend, "can_stream", False):
        text = run.call("answer", messages, None, max_tokens).text
        run.emit(AnswerTokenEvent(text))
        return text.strip()
    run.check_cancel()
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
    return ("".join(pieces) or final.text).strip()


def _written(run: Run, ctx: Context, newest: bool, max_tokens: int) -> Answer:
    """One short answer sentence citing tags, streamed when the back end can."""
    text = _streamed(run, prompts.answer_prompt(run.head, ctx.text, newest), max_tokens)
    citations = run.tags.resolve(text, ctx.refs)
    abstained = bool(_NOT_THERE.search(text)) and not citations
    run.emit(AnswerEvent(text, citations, abstained=abstained))
    return Answer(text, citations, abstained)


def _plain(run: Run, ctx: Context, newest: bool, max_tokens: int) -> Answer:
    """One short sentence over tag-free excerpts, streamed; the program cites the turn(s) whose text
    holds most of the answer's words (none when no shown turn holds any)."""
    text = _streamed(run, prompts.plain_answer_prompt(run.head, ctx.text, newest), max_tokens)
    text = " ".join(text.split())
    if not text or _NOT_THERE.search(text):
        run.emit(AnswerEvent(text or prompts.NO_HISTORY_ANSWER, [], abstained=True))
        return Answer(text or prompts.NO_HISTORY_ANSWER, [], abstained=True)
    text = " ".join(_ANY_TAG.sub(" ", text).split())  # no tags were shown; a copied one means nothing
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    citations = attribute(text, ctx)
    tags = " ".join(run.tags.tag(*ref) for ref in citations)
    full = f"{text} {tags}".strip()
    if citations:
        what = text if len(text) <= 80 else text[:77].rsplit(" ", 1)[0] + "..."
        full = _since(run, ctx, what, citations[0]) or full
    tail = full[len(text) :] if full.startswith(text) else "\n" + full
    if tail.strip():
        run.emit(AnswerTokenEvent(tail))
    run.emit(AnswerEvent(full, citations))
    return Answer(full, citations)


def attribute(text: str, ctx: Context, most: int = 2) -> list[tuple[str, int]]:
    """The context turns an answer comes from: those whose shown text holds the most of the answer's
    content words (at least one), best first, at most `most`."""
    words = {stem(w) for w in content_words(text)}
    if not words:
        return []
    scored = []
    for position, (ref, shown) in enumerate(ctx.shown.items()):
        low = shown.lower()
        hits = sum(1 for w in words if w in low)
        if hits:
            scored.append((-hits, position, ref))
    scored.sort()
    if not scored:
        return []
    best = scored[0][0]
    return [ref for hits, _, ref in scored if hits == best][:most]
