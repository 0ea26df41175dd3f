"""What every answerer gets (the checked items the reading found) and gives (a sentence with citations)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, tzinfo

from ...lang import CURRENCIES, Pack, tokens
from ..dates import Day, local_day, written_day
from ..question import Question
from ..reading import Item
from ..render import Tags, neutralise


@dataclass(frozen=True)
class Found:
    """The items read for one question, in reading order, and how many passages were read."""

    question: Question
    items: list[Item]
    read: int
    now: datetime
    tz: tzinfo
    tags: Tags

    @property
    def pack(self) -> Pack:
        """The question's language pack (the answer is written in the question's language)."""
        return self.question.pack

    def day(self, item: Item) -> Day | None:
        """When an item happened: the day its turn's words give, else the day the turn was written."""
        if item.day is not None:
            return item.day
        day = local_day(item.said, self.tz)
        return Day(day) if day is not None else None

    def cite(self, item: Item) -> str:
        """An item's words as the answer shows them, with its citation tag."""
        return f"{shown(item.words)} {self.tags.tag(*item.ref)}"

    def dated(self, item: Item) -> str:
        """An item's words, its day and its tag."""
        day = self.day(item)
        when = f" ({written_day(day, self.pack)})" if day is not None else ""
        return f"{shown(item.words)}{when} {self.tags.tag(*item.ref)}"


@dataclass(frozen=True)
class Composed:
    """An answerer's answer: the sentence, the turns it cites, whether the program computed it."""

    text: str
    citations: list[tuple[str, int]]
    computed: bool = False
    unsettled: str = ""
    """What the program cannot settle about this answer, named as a failed check is ("whole": a count of
    several things read, which may not be all of them, nor each one of them; "sum": amounts of several chats
    added up, the same; "one": one amount read for a question that adds several up; "pair": a span between
    two events the question names, not both read; "unnamed": a span between the first two events read, the
    question naming none); "" when nothing. An unsettled answer ends as "unsure", with its turns shown."""


Compose = Callable[[Found, object], Composed | None]
"""compose(found, run) -> the answer, or None when the items do not give one."""


@dataclass(frozen=True)
class Answerer:
    """How one kind of question is answered: how much is read, and what the program does with it."""

    kind: str
    compose: Compose
    read: int = 6
    """Passages read at most."""
    enough: int = 0
    """Stop reading once this many passages stated something (0: read up to `read`)."""


def shown(words: str) -> str:
    """Words copied from a chat as an answer shows them: one line, neutralised, short."""
    return neutralise(words, 120, one_line=True)


def same_thing(a: str, b: str) -> bool:
    """Whether two items name one thing: the word stems of one are all among the other's."""
    sa = {t[:5] for t in tokens(a.lower()) if len(t) > 2 or t.isdigit()}
    sb = {t[:5] for t in tokens(b.lower()) if len(t) > 2 or t.isdigit()}
    if not sa or not sb:
        return a.strip().lower() == b.strip().lower()
    return sa <= sb or sb <= sa


def distinct(items: list[Item]) -> list[Item]:
    """The items naming different things, the first of each kept."""
    out: list[Item] = []
    for it in items:
        if not any(same_thing(it.words, o.words) for o in out):
            out.append(it)
    return out


def number(value: float) -> str:
    """A number as an answer writes it (no trailing .0; two decimals at most)."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def amount(value: float, unit: str) -> str:
    """An amount with its unit as the chat wrote it ("$1,200", "12 hours")."""
    if unit in CURRENCIES:
        return f"{unit}{number(value)}"
    return f"{number(value)} {unit}".strip()
