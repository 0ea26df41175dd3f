"""Stage 2, the answer from the notes: the question's kind chooses an answerer (agent/answerers); the model
reads the notes one passage at a time (agent/reading.py) and the program computes the answer from the items
it checked, with every item cited. The outcome is one of three: "answer" (it passed every check of
agent/earn.py), "unsure" (no claimed answer: the closest passages, verbatim and cited, and what could
not be settled) or "not_found" (nothing read speaks of it; agent/checks.py)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..index.said import ASSISTANT_STYLE
from ..index.schema import stems
from ..lang import tokens
from . import checks, earn
from .answerers import Answerer, Composed, Found, answerer_for
from .dates import local_day
from .events import AnswerEvent, AnswerTokenEvent, Note
from .evidence import Line, Passage, passages
from .reading import Item, read, read_many
from .render import neutralise
from .run import Run

OUTCOMES = ("answer", "unsure", "not_found")
QUOTES = 3
"""Passages an unsure outcome shows at most."""
QUOTE_CHARS = 400
"""Characters of one quoted turn."""


@dataclass
class Answer:
    """The stage's outcome."""

    text: str
    citations: list[tuple[str, int]]
    outcome: str = "answer"
    computed: bool = False
    draft: str = ""
    """What the answerer composed before the checks (the same as `text` when it passed them)."""
    verdicts: dict = field(default_factory=dict)
    """What each check said (agent/earn.py `Verdicts.to_json`), empty when none ran."""
    evidence: list[dict] = field(default_factory=list)
    """For "unsure": the turns shown, verbatim ({session_id, turn, speaker, text})."""

    @property
    def abstained(self) -> bool:
        """The outcome is "not in your history"."""
        return self.outcome == "not_found"


def deliver(run: Run, answer: Answer) -> Answer:
    """An answer the program wrote whole: one token event, the answer event, the Answer."""
    run.emit(AnswerTokenEvent(answer.text))
    run.emit(AnswerEvent(answer.text, answer.citations, abstained=answer.abstained, outcome=answer.outcome))
    return answer


def not_found(run: Run, text: str) -> Answer:
    """The outcome "not in your history"."""
    return deliver(run, Answer(text, [], outcome="not_found", draft=text))


def quoted(run: Run, lines: list[Line]) -> tuple[str, list[dict]]:
    """Turns shown verbatim (neutralised, cut at `QUOTE_CHARS`), one a line with its tag and speaker."""
    rows, shown_lines = [], []
    for ln in lines:
        text = neutralise(ln.view.text, QUOTE_CHARS)
        rows.append(
            {"session_id": ln.view.session_id, "turn": ln.view.turn, "speaker": ln.view.speaker, "text": text}
        )
        shown_lines.append(
            f"{run.tags.tag(*ln.ref)} {neutralise(ln.view.speaker, 20, one_line=True)}: {text}"
        )
    return "\n".join(shown_lines), rows


def unsure(run: Run, why: str, lines: list[Line], draft: str = "", verdicts: dict | None = None) -> Answer:
    """The outcome "unsure": one sentence saying what could not be settled, then up to `QUOTES` turns
    verbatim and cited. No answer is claimed."""
    q = run.asked
    lines = list(dict.fromkeys(lines))[:QUOTES]
    body, rows = quoted(run, lines)
    text = q.pack.say("unsure", why=why) + ("\n" + body if body else "")
    cites = [ln.ref for ln in lines]
    return deliver(
        run,
        Answer(text, cites, outcome="unsure", draft=draft or text, verdicts=verdicts or {}, evidence=rows),
    )


def evidence_notes(run: Run) -> list[Note]:
    """The notes, then the first search's other results as candidates (a small model's relevance call
    ranks reliably but drops answers: what it kept is read first, the rest after)."""
    noted = {(n.block.session_id, n.block.turn) for n in run.notes}
    return run.notes + [
        Note(b, 1, "candidate") for b in run.first_blocks if (b.session_id, b.turn) not in noted
    ]


def distinctive(run: Run) -> set[str]:
    """The stems of the rarer half of the question's content words (fewest turns hold them: the words
    that say what it is about, "Meindl", "boots", not "bought", "realized"); a word no turn holds is
    left out."""
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


def asked_words(run: Run) -> list[set[str]]:
    """The question's content words, each once, as the index stems them in its language."""
    q = run.asked
    return [set(stems(w, q.lang)) for w in dict.fromkeys(q.subject)]


def held(words: list[set[str]], text: str, lang: str) -> int:
    """How many of `words` (`asked_words`) `text` holds, by the index's stems."""
    mine = set(stems(text, lang))
    return sum(1 for w in words if mine & w)


def spoken_of(run: Run, read: list[Passage]) -> Passage | None:
    """The first passage read that shows the chats speak of what is asked, though no reading stated it:
    it holds more than half of the question's content words. None when none does (then the thing asked
    about is not in what was found, as far as its words tell)."""
    words = asked_words(run)
    if not words:
        return None
    for passage in read:
        if 2 * held(words, " ".join(ln.view.text for ln in passage.lines), run.asked.lang) > len(words):
            return passage
    return None


def closest_lines(run: Run, read: list[Passage], n: int = QUOTES) -> list[Line]:
    """The `n` turns of the passages read that hold most of the question's words (hit turns first on a
    tie, then reading order), each holding at least half as many as the closest one: what an unsure
    outcome shows."""
    words = asked_words(run)
    lines = [ln for p in read for ln in p.lines]
    count = [held(words, ln.view.text, run.asked.lang) for ln in lines]
    ranked = sorted(range(len(lines)), key=lambda i: (-count[i], not lines[i].hit, i))
    best = count[ranked[0]] if ranked else 0
    return [lines[i] for i in ranked[:n] if count[i] and 2 * count[i] >= best] or [
        ln for ln in lines if ln.hit
    ][:1]


def spread(evidence: list[Passage]) -> list[Passage]:
    """The passages one chat at a time: the first passage of each chat in reading order, then the second
    of each, and so on (a list question gathers from every chat that tells of one of its things, not from
    the first chat's many hits)."""
    rank: dict[str, int] = {}
    place = []
    for p in evidence:
        place.append(rank.get(p.session_id, 0))
        rank[p.session_id] = place[-1] + 1
    return [p for _, _, p in sorted(zip(place, range(len(evidence)), evidence, strict=True))]


def of_the_time(evidence: list[Passage], run: Run) -> list[Passage]:
    """A question that names a time ("last Friday") is read from the chats that can tell of it first:
    passages with a hit turn written from the first day that time names to the question's day, then the
    rest, each group in reading order."""
    span = run.asked.window(run.today)
    if span is None:
        return evidence

    def told(p: Passage) -> bool:
        days = [local_day(p.when(ln.ref), run.tz) for ln in p.lines if ln.hit]
        return any(d is not None and span[0] <= d <= span[1] for d in days)

    return sorted(evidence, key=lambda p: not told(p))


def named_people(q, evidence: list[Passage]) -> set[str]:
    """The speakers of a messenger chat whom the question names ("What did Emi say about the trip?"):
    a speaker (a person's name, not a role of an assistant chat) one of whose name's words is a word
    of the question."""
    asked = {w.lower() for w in q.subject}
    people = {ln.view.speaker for p in evidence for ln in p.lines if ln.view.speaker not in ASSISTANT_STYLE}
    return {who for who in people if asked & {w.lower() for w in tokens(who)}}


def reading(
    run: Run,
    answerer: Answerer,
    group: list[Passage],
    budget: int,
    done: list[Passage],
    people: set[str] = frozenset(),
    known: dict[int, list[Item]] | None = None,
) -> list[Item]:
    """The checked items of `group`'s passages, read in order until `budget` passages were read or the
    answerer has `enough`; each passage read is added to `done`. A question that names people of the
    chat (`people`) is answered from their own messages: another speaker's turn states nothing for it.
    `known`: the items of passages read already (by `id`), as `read_ahead` gives them."""
    items: list[Item] = []
    stating = 0
    for passage in group[: max(0, budget)]:
        if known is not None and id(passage) in known:
            got = known[id(passage)]
        else:
            got = read(run, run.asked, passage)
        if people:
            got = [it for it in got if (ln := passage.line(it.ref)) is not None and ln.view.speaker in people]
        done.append(passage)
        if got:
            items += got
            stating += 1
            if answerer.enough and stating >= answerer.enough:
                break
    return items


def read_ahead(
    run: Run, answerer: Answerer, first: list[Passage], aside: list[Passage]
) -> dict[int, list[Item]]:
    """For a kind that reads its whole budget, every passage it will read (the first group's, then the
    set-aside ones within what is left of the budget) read at once: one batch on the embedded model
    (`Run.ask_many`). Their items by passage `id`; empty for a kind that stops at the first answer."""
    if answerer.enough:
        return {}
    plan = first[: answerer.read]
    plan = plan + aside[: max(0, answerer.read - len(plan))]
    return {id(p): got for p, got in zip(plan, read_many(run, run.asked, plan), strict=True)}


def line_of(done: list[Passage], ref: tuple[str, int]) -> Line | None:
    """The passage line of a turn that was read."""
    return next((ln for p in done if (ln := p.line(ref)) is not None), None)


def answer(run: Run) -> Answer:
    """Stage 2 for `run` (see the module docstring)."""
    q = run.asked
    evidence = passages(evidence_notes(run), q.subject, first_search_first=not q.aggregates)
    keys = set() if q.kind == "recommend" else distinctive(run)
    first, aside = (evidence, []) if q.kind == "recommend" else by_wording(evidence, keys, q.lang)
    first, aside = of_the_time(first, run), of_the_time(aside, run)
    if q.kind == "list":
        first, aside = spread(first), spread(aside)
    for before in checks.BEFORE:
        refusal = before(q, evidence)
        if refusal:
            return not_found(run, refusal)
    answerer = answerer_for(q.kind)
    done: list[Passage] = []
    people = set() if q.personal else named_people(q, evidence)
    known = read_ahead(run, answerer, first, aside)
    items = reading(run, answerer, first, answerer.read, done, people, known)
    if aside and (not items or not answerer.enough):
        # the passages set aside by wording are read too, within what is left of the answerer's reading
        # budget: before abstaining (the notes may lack it), and always for a kind that reads its whole
        # budget (the newest value, a count, a list: a passage left unread may hold a newer or another one)
        items += reading(run, answerer, aside, answerer.read - len(done), done, people, known)
    if q.personal and any(it.personal for it in items):
        # a question about the person is answered from what the person said, not from a reply (reading
        # on past a reply for the person's own words lost a right answer on the check halves: not done)
        items = [it for it in items if it.personal]
    found = Found(q, items, len(done), run.now, run.tz, run.tags)
    for after in checks.AFTER:
        refusal = after(found)
        if refusal:
            near = spoken_of(run, done)
            named = naming(done, keys, q.lang)  # a suggestion is never refused, so its keys are not needed
            told = {"failed": [], "spoken": near is not None, "names": bool(named)}
            if near is not None or named:
                return unsure(
                    run,
                    q.pack.say("why_closest", read=len(done)),
                    closest_lines(run, [near, *done] if near is not None else named + done),
                    verdicts=told,
                )
            return replace(not_found(run, refusal), verdicts=told)
    composed = answerer.compose(found, run)
    if composed is None:
        lines = [ln for it in items[:QUOTES] if (ln := line_of(done, it.ref)) is not None]
        return unsure(
            run,
            q.pack.say("why_compute"),
            lines,
            draft=_as_read(found).text,
            verdicts={"failed": ["compute"]},
        )
    if answerer.kind == "recommend":
        run.emit(AnswerEvent(composed.text, composed.citations))
        return Answer(composed.text, composed.citations, draft=composed.text)
    speaker = lambda it: ln.view.speaker if (ln := line_of(done, it.ref)) is not None else ""  # noqa: E731
    verdicts = earn.judge(run, found, composed, speaker)
    if composed.unsettled:  # what the program cannot settle fails as a check does
        verdicts.failed.append(composed.unsettled)
    if answerer.kind == "list" and not verdicts.failed:
        kept = earn.without_off_parts(found, composed, verdicts)
        if kept is not found:  # the things the reading rejected are left out of the list
            composed = answerer.compose(kept, run) or composed
    if verdicts.failed:
        why = _why(found, verdicts.failed[0], len(composed.citations))
        # the cited turns when they tell of the thing asked, then the turns closest to the question
        cited = [ln for ref in composed.citations if (ln := line_of(done, ref)) is not None]
        shown = (cited if verdicts.about is not False else []) + closest_lines(run, done)
        return unsure(run, why, shown, draft=composed.text, verdicts=verdicts.to_json())
    return deliver(
        run,
        Answer(
            composed.text,
            composed.citations,
            computed=composed.computed,
            draft=composed.text,
            verdicts=verdicts.to_json(),
        ),
    )


def _why(found: Found, failed: str, n: int = 0) -> str:
    """The sentence that says which check an answer failed (`n`: the things it counted), in the question's
    language."""
    pack, q = found.pack, found.question
    if failed in ("type", "named"):
        expected = pack.say(f"type_{q.expects}", noun=q.noun) if q.expects else ""
        return pack.say("why_type", expected=expected)
    return pack.say(f"why_{failed}", n=n)


def _as_read(found: Found) -> Composed:
    """What was read when the answerer could not compute from it (one event of two, amounts in mixed
    units): the items with their days and tags."""
    shown_items = found.items[:3]
    return Composed("; ".join(found.dated(it) for it in shown_items), [it.ref for it in shown_items])
