"""Stage 2, the answer from the notes: the question's kind chooses an answerer (agent/answerers); the model
reads the notes one passage at a time (agent/reading.py) and the program computes the answer from the items
it checked, with every item cited; the checks (agent/checks.py) may stop it with "not in your history"."""

from __future__ import annotations

from dataclasses import dataclass

from ..index.schema import stems
from . import checks
from .answerers import Answerer, Composed, Found, answerer_for
from .answerers.base import shown
from .dates import local_day
from .events import AnswerEvent, AnswerTokenEvent, Note
from .evidence import Passage, passages
from .reading import Item, read
from .run import Run


@dataclass
class Answer:
    """The stage's outcome."""

    text: str
    citations: list[tuple[str, int]]
    abstained: bool = False
    computed: bool = False


def deliver(
    run: Run, text: str, cites: list[tuple[str, int]], computed: bool = False, abstained: bool = False
) -> Answer:
    """A sentence the program wrote whole: one token event, the answer event, the Answer."""
    run.emit(AnswerTokenEvent(text))
    run.emit(AnswerEvent(text, cites, abstained=abstained))
    return Answer(text, cites, abstained=abstained, computed=computed)


def evidence_notes(run: Run) -> list[Note]:
    """The notes, then the first search's other results as candidates (a small model's relevance call
    ranks reliably but drops answers: what it kept is read first, the rest after)."""
    noted = {(n.block.session_id, n.block.turn) for n in run.notes}
    return run.notes + [
        Note(b, 1, "candidate") for b in run.first_blocks if (b.session_id, b.turn) not in noted
    ]


def distinctive(run: Run) -> set[str]:
    """The stems of the rarer half of the question's content words (fewest turns hold them: the words
    that say what it is about, "Meindl", "boots", not "bought", "realized")."""
    q = run.asked
    words = list(q.subject)
    if not words:
        return set()
    rare = run.session.rarest(words, max(1, (len(words) + 1) // 2)) or words
    return {s for w in rare for s in stems(w, q.lang)}


def naming(evidence: list[Passage], keys: set[str], lang: str) -> list[Passage]:
    """The passages whose hit turns hold one of `keys`."""
    if not keys:
        return []
    return [p for p in evidence if any(keys & set(stems(ln.view.text, lang)) for ln in p.lines if ln.hit)]


def by_wording(evidence: list[Passage], keys: set[str], lang: str) -> tuple[list[Passage], list[Passage]]:
    """(first, aside): the passages whose hit turns hold one of `keys` are read first, and the ones
    found by common words alone are set aside (a small model reads a loosely related passage as an
    answer); when none holds one, all are read first (nothing is ruled out by wording)."""
    first = naming(evidence, keys, lang)
    if not first:
        return evidence, []
    return first, [p for p in evidence if p not in first]


def spoken_of(run: Run, read: list[Passage]) -> Passage | None:
    """The first passage read that shows the chats speak of what is asked, though no reading stated it:
    it holds more than half of the question's content words. None when none does (then the thing asked
    about is not in what was found, as far as its words tell)."""
    q = run.asked
    words = list(dict.fromkeys(q.subject))
    if not words:
        return None
    for passage in read:
        held = {s for ln in passage.lines for s in stems(ln.view.text, q.lang)}
        if 2 * sum(1 for w in words if held & set(stems(w, q.lang))) > len(words):
            return passage
    return None


def closest(run: Run, passage: Passage, done: int) -> Answer:
    """No reading stated the answer, but the chats speak of it: show the turn that does, verbatim and
    cited, instead of saying it is not in the history."""
    q = run.asked
    words = [set(stems(w, q.lang)) for w in dict.fromkeys(q.subject)]

    def holds(ln) -> tuple[int, bool]:
        mine = set(stems(ln.view.text, q.lang))
        return sum(1 for w in words if mine & w), ln.hit

    line = max(passage.lines, key=holds)  # the turn that holds most of the question's words
    text = q.pack.say("closest", read=done, quote=shown(line.shown), tag=run.tags.tag(*line.ref))
    return deliver(run, text, [line.ref])


def of_the_time(evidence: list[Passage], run: Run) -> list[Passage]:
    """A question that names a time ("last Friday") is read from the chats that can tell of it first:
    passages with a hit turn written from the first day that time names to the question's day, then the
    rest, each group in reading order."""
    span = run.asked.time
    if span is None:
        return evidence

    def told(p: Passage) -> bool:
        days = [local_day(p.when(ln.ref), run.tz) for ln in p.lines if ln.hit]
        return any(d is not None and span[0] <= d <= run.today for d in days)

    return sorted(evidence, key=lambda p: not told(p))


def reading(
    run: Run, answerer: Answerer, group: list[Passage], budget: int, done: list[Passage]
) -> list[Item]:
    """The checked items of `group`'s passages, read in order until `budget` passages were read or the
    answerer has `enough`; each passage read is added to `done`."""
    items: list[Item] = []
    stating = 0
    for passage in group[: max(0, budget)]:
        got = read(run, run.asked, passage, passage.order)
        done.append(passage)
        if got:
            items += got
            stating += 1
            if answerer.enough and stating >= answerer.enough:
                break
    return items


def answer(run: Run) -> Answer:
    """Stage 2 for `run` (see the module docstring)."""
    q = run.asked
    evidence = passages(evidence_notes(run), q.subject, first_search_first=not q.aggregates)
    first, aside = (evidence, []) if q.kind == "recommend" else by_wording(evidence, distinctive(run), q.lang)
    first, aside = of_the_time(first, run), of_the_time(aside, run)
    for before in checks.BEFORE:
        refusal = before(q, evidence)
        if refusal:
            return deliver(run, refusal, [], abstained=True)
    answerer = answerer_for(q.kind)
    done: list[Passage] = []
    items = reading(run, answerer, first, answerer.read, done)
    if not items and aside:
        # abstain only when the notes lack it: before saying so, the passages set aside by wording are
        # read too, within what is left of the answerer's reading budget
        items = reading(run, answerer, aside, answerer.read - len(done), done)
    if q.personal and any(it.personal for it in items):
        # a question about the person is answered from what the person said, not from a reply
        items = [it for it in items if it.personal]
    found = Found(q, items, len(done), run.now, run.tz, run.tags)
    for after in checks.AFTER:
        refusal = after(found)
        if refusal:
            near = spoken_of(run, done)
            if near is not None:
                return closest(run, near, len(done))
            return deliver(run, refusal, [], abstained=True)
    composed = answerer.compose(found, run) or _as_read(found)
    if answerer.kind == "recommend":
        run.emit(AnswerEvent(composed.text, composed.citations))
        return Answer(composed.text, composed.citations)
    return deliver(run, composed.text, composed.citations, computed=composed.computed)


def _as_read(found: Found) -> Composed:
    """What was read when the answerer could not compute from it (one event of two, amounts in mixed
    units): the items with their days and tags."""
    shown = found.items[:3]
    return Composed("; ".join(found.dated(it) for it in shown), [it.ref for it in shown])
