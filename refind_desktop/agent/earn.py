"""What an answer must pass before it is stated as one: it is the type of thing the question asks for, it
says something the question does not, a single fact is of the time the question names (and, for a
question about the person, in the person's own words in that chat), a person, a place or a thing of a
named kind is named by the answer's words as one short reading of those words alone says, and one short
reading of the turn it cites says that turn tells of the thing asked about and answers it (for a single
fact; each thing of a list is read so too, and the ones it rejects are left out). Each check is general
(no benchmark in it); a failed one makes the outcome "unsure", with the passages shown verbatim instead
of a claimed answer. (Reading each turn of a computed answer so was measured on the check halves: it
changed no outcome and cost a call per turn, so a computed answer rests on the program's arithmetic.)"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..index.said import person_words
from ..lang import PACKS, tokens
from . import prompts
from .answerers import Composed, Found
from .dates import local_day
from .reading import Item, copied, news
from .render import neutralise
from .run import Run
from .schemas import booleans

SINGLE = ("lookup", "yesno", "when", "latest")
"""Kinds whose answer is one item read from one turn (the confirming reading reads that turn)."""
PARTS = 4
"""Things of a list read by the confirming reading at most (the first ones it cites)."""
_DIGITS = re.compile(r"\d")


@dataclass
class Verdicts:
    """What each check said of one answer (kept in the trace, so every check can be weighed alone)."""

    typed: bool = True
    news: bool = True
    timely: bool = True
    """For a single fact of a question that names a time: the answer is of that time."""
    own: bool = True
    """For a single fact of a question about the person: the person's own words in that chat say it."""
    named: bool | None = None
    """For a single fact that must be a person, a place or a thing of a named kind: do the answer's words,
    read alone with the question (not the turn), name one (None: not asked)."""
    about: bool | None = None
    """The confirming reading: does the cited turn tell of the thing asked about (None: not asked)."""
    answers: bool | None = None
    """The confirming reading: does it say the answer is these words (of the asked type)."""
    parts: list[list[bool | None]] = field(default_factory=list)
    """For a list: [about, answers] of each thing's turn, as one reading of that turn alone says ("about":
    the turn tells of what is asked; "answers": the thing is one of the things asked for)."""
    failed: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """Plain dict."""
        return {
            "typed": self.typed,
            "news": self.news,
            "timely": self.timely,
            "own": self.own,
            "named": self.named,
            "about": self.about,
            "answers": self.answers,
            "parts": [list(p) for p in self.parts],
            "failed": list(self.failed),
        }


def cited_items(found: Found, composed: Composed) -> list[Item]:
    """The items whose turns the answer cites, in reading order."""
    refs = set(composed.citations)
    return [it for it in found.items if it.ref in refs] or found.items[:1]


def has_number(words: str) -> bool:
    """Whether words write a number: digits, or a number word of any pack's language."""
    if _DIGITS.search(words):
        return True
    return any(p.number(t) is not None for t in tokens(words.lower()) for p in PACKS.values())


def typed(found: Found, composed: Composed, items: list[Item]) -> bool:
    """The answer is the type of thing asked for, as far as the program can tell without a model: a number
    (computed, or written in the words read) for how many / how much / how long; a day for when. A person,
    a place or a thing of a named kind is left to the confirming reading."""
    q = found.question
    if q.expects == "number":
        return composed.computed or any(it.value is not None or has_number(it.words) for it in items)
    if q.expects == "date":
        return composed.computed or any(found.day(it) is not None for it in items)
    return True


def timely(found: Found, items: list[Item]) -> bool:
    """For a single fact of a question that names a time ("last Friday", "in March"): the answer's turn
    was written, or its words date it, from the first day that time names up to the question's day (an
    answer from before that time is of another time). True when the question names none."""
    q = found.question
    span = q.window(local_day(found.now, found.tz))
    if span is None or q.kind not in SINGLE or not items:
        return True
    day = found.day(items[0])
    if day is None:
        return True
    first, last = day.bounds()
    return last >= span[0] and first <= span[1]


def in_own_words(run: Run, found: Found, items: list[Item]) -> bool:
    """For a single fact of a question about the person ("Which laptop did I buy?"): the answer's
    words are the person's own (`person_words`), in the turn it cites or in another turn of that chat,
    read from the index. Words only an assistant's reply holds tell what the reply proposed, not what
    the person does. True for any other question."""
    q = found.question
    if not q.personal or q.kind not in SINGLE or not items:
        return True
    item = items[0]
    if item.personal:
        return True
    chat = run.session.turns_of(item.ref[0])
    return any(copied(item.words, person_words(v.text, v.speaker)) for v in chat)


def tells_news(found: Found, items: list[Item]) -> bool:
    """Some cited item says something the question does not (words that only repeat it answer nothing)."""
    q = found.question
    return any(it.value is not None or news(it.words, q) for it in items)


CONFIRM_SCHEMA = booleans("about", "answers")


def expected(found: Found) -> str:
    """The type asked for as the confirming reading names it in English ("a person", "a bike"), or ""."""
    q = found.question
    if q.expects == "kind":
        return (
            f"a {neutralise(q.noun, 30, one_line=True)} (or kind of {neutralise(q.noun, 30, one_line=True)})"
        )
    return {"number": "a number", "date": "a date or time", "person": "a person", "place": "a place"}.get(
        q.expects, ""
    )


def proposed(item: Item) -> str:
    """The answer's words as the confirming reading sees them: only the words its turn holds (a reading's
    words are the model's copy of the turn, and nothing else of a reply goes back into a prompt)."""
    low = item.text.lower()
    kept = [t for t in tokens(item.words) if t.lower() in low]
    return neutralise(" ".join(kept), 100, one_line=True)


NAMED_SCHEMA = booleans("names")


def named_prompt(found: Found, item: Item) -> str:
    """The typed reading: the question and the answer's words, without the turn they come from (read with
    its turn, the small model takes a sentence that only talks of the topic for the thing asked)."""
    return (
        f"Question: {neutralise(found.question.text, 400, one_line=True)}\n\n"
        f'<<<DATA\nProposed answer: "{proposed(item)}"\nDATA>>>\n\n'
        f"Does the proposed answer name {expected(found)}? Answer false when it names none, or only "
        "something of another kind.\n"
        'Reply as JSON: {"names": true or false}.'
    )


def names_asked(run: Run, found: Found, item: Item) -> bool | None:
    """For a single fact that must be a person, a place or a thing of a named kind: whether the answer's
    words name one, by one short reading of the words alone; None when not asked or no valid reply."""
    if found.question.expects not in ("person", "place", "kind"):
        return None
    data = run.ask("named", named_prompt(found, item), NAMED_SCHEMA, 16, usage_stage="named")
    return bool(data.get("names")) if isinstance(data, dict) else None


def judging(found: Found, item: Item, speaker: str, what: str, task: str) -> str:
    """A confirming reading's prompt: the question, then the turn and the proposed words (`what`: "answer"
    or "item"), both inside the data section (they are chat text), then `task`."""
    turn = prompts.turn_text(speaker, neutralise(item.text, 900))
    return (
        f"Question: {neutralise(found.question.text, 400, one_line=True)}\n\n"
        f'<<<DATA\nChat turn: {turn}\n\nProposed {what}: "{proposed(item)}"\nDATA>>>\n\n'
        f"{task}\n"
        'Reply as JSON: {"about": true or false, "answers": true or false}.'
    )


def confirm_prompt(found: Found, item: Item, speaker: str) -> str:
    """The confirming reading of the one turn an answer comes from."""
    kind = expected(found)
    of_type = f", and is the proposed answer {kind}" if kind else ""
    return judging(
        found,
        item,
        speaker,
        "answer",
        'Judge the proposed answer by this chat turn alone. "about": does the turn tell of the very thing '
        "the question asks about (not merely something of the same kind)? "
        f'"answers": does the turn say that the proposed answer answers the question{of_type}?',
    )


def part_prompt(found: Found, item: Item, speaker: str) -> str:
    """The confirming reading of one thing of a list."""
    return judging(
        found,
        item,
        speaker,
        "item",
        "The answer lists several things from several chat turns; this is one of them. Judge the proposed "
        'item by this chat turn alone. "about": does the turn tell of the very thing (or one of the things) '
        'the question asks about (not merely something of the same kind)? "answers": is the proposed item '
        "itself one of the things the question asks for?",
    )


def confirm(
    run: Run, found: Found, item: Item, speaker: str, prompt=confirm_prompt
) -> tuple[bool | None, bool | None]:
    """(about, answers) from one short constrained reading; (None, None) when it gave no valid reply."""
    data = run.ask("confirm", prompt(found, item, speaker), CONFIRM_SCHEMA, 24, usage_stage="confirm")
    if not isinstance(data, dict):
        return None, None
    return bool(data.get("about")), bool(data.get("answers"))


Speaker = Callable[[Item], str]


def judge(run: Run, found: Found, composed: Composed, speaker: Speaker) -> Verdicts:
    """Every check on one composed answer (see the module docstring). A single fact's answer is confirmed
    by one short reading of its cited turn; a computed answer rests on the program's arithmetic. (A cited
    turn holding none of the question's rarer words, by the index's stems, was a check too: on the check
    halves it turned right answers into unsure where this reading did not, so it is gone.)"""
    q = found.question
    items = cited_items(found, composed)
    v = Verdicts()
    v.typed = typed(found, composed, items)
    v.news = q.kind == "recommend" or q.kind == "yesno" or tells_news(found, items)
    v.timely = timely(found, items)
    v.own = in_own_words(run, found, items)
    if q.kind in SINGLE and items:
        v.named = names_asked(run, found, items[0])
        v.about, v.answers = confirm(run, found, items[0], speaker(items[0]))
    elif q.kind == "list":
        v.parts = [list(confirm(run, found, it, speaker(it), part_prompt)) for it in items[:PARTS]]
    if not v.typed:
        v.failed.append("type")
    if v.named is False:
        v.failed.append("named")
    if not v.news:
        v.failed.append("echo")
    if not v.timely:
        v.failed.append("time")
    if not v.own:
        v.failed.append("own")
    if v.about is False:
        v.failed.append("about")
    if v.answers is False:
        v.failed.append("answers")
    if v.parts and all(about is False for about, _ in v.parts):
        v.failed.append("part")
    return v


def without_off_parts(found: Found, composed: Composed, verdicts: Verdicts) -> Found:
    """`found` less the items of the turns the confirming reading said are not about what is asked (a
    list keeps its other things); `found` itself when there are none."""
    off = {
        it.ref
        for it, (about, _) in zip(cited_items(found, composed), verdicts.parts, strict=False)
        if about is False
    }
    if not off:
        return found
    return replace(found, items=[it for it in found.items if it.ref not in off])
