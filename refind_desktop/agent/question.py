"""What a question asks, read once by the program: its kind, the words of the thing asked about, the
time it names, its language. Every later stage reads this `Question`, never the raw wording again."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from functools import cached_property

from ..index.schema import stems
from ..lang import CURRENCIES, Pack, language_of, pack_for
from ..search import timewords

KINDS = (
    "lookup",
    "latest",
    "when",
    "count",
    "total",
    "difference",
    "span",
    "order",
    "yesno",
    "recommend",
    "list",
)
"""lookup: a fact; latest: a value that may have changed (the newest statement wins); when: a date;
count: distinct things; total: amounts added in one unit; difference: two amounts compared; span: the
time between two events or since one; order: which came first; yesno; recommend: a suggestion drawn
from what the person said; list: several things of one kind, gathered from every chat that tells of one
("Which books has Emi read?")."""
COMPUTED = ("count", "total", "difference", "span", "order")
"""Kinds whose answer the program computes from items read in several passages."""
_WORD = re.compile(r"\w[\w'&+-]*\w|\w", re.UNICODE)


@dataclass(frozen=True)
class Question:
    """One question as the program understands it."""

    text: str
    kind: str
    lang: str
    subject: tuple[str, ...]
    """The question's content words: neither function words nor words of asking (the pack's)."""
    unit: str = "days"
    """The calendar unit a span is counted in."""
    since_now: bool = False
    """A span from one event to the question's time ("how long ago")."""
    between: bool = False
    """A span between two events ("between", "before", "when"): never measured to now, nor a duration
    one turn writes."""
    time: tuple[date, date] | None = None
    """The dates the question's time words name ("last month"), resolved against its own date."""
    thing: str = ""
    """What a count counts, in the question's words ("ramen bars"); empty for other kinds."""
    personal: bool = False
    """About the person who asks ("my", "I"), not about what the assistant said ("you told me")."""
    options: tuple[str, ...] = ()
    """The two things an order question sets against each other ("the zoo", "the aquarium"), or the two
    events a span question is measured between ("my move", "the party"), as it writes them; empty when
    it names none."""
    money: bool = False
    """Asks for an amount of money ("how much did I spend"): only amounts written as money answer it."""
    adds: bool = False
    """A total that asks to add several amounts up ("in total", the pack's `adds`): one amount read does not
    settle it."""
    expects: str = ""
    """The type of thing the answer must be (the pack's `answer_types`): "number", "date", "person",
    "place", "kind" (a thing of the kind `noun` names), or "" for anything."""
    noun: str = ""
    """For `expects == "kind"`: the kind of thing asked for, in the question's words ("bike")."""

    @property
    def pack(self) -> Pack:
        """The question's language pack."""
        return pack_for(self.lang)

    def window(self, today: date) -> tuple[date, date] | None:
        """The days a turn can tell of the time the question names in: from that time's first day to
        `today`, the day it is asked (a turn written after the time may tell of it); None when it names
        no time."""
        return None if self.time is None else (self.time[0], today)

    @cached_property
    def asked_stems(self) -> frozenset[str]:
        """The stems of all the question's words, as the index's analyzer makes them in its language."""
        return frozenset(stems(self.text, self.lang))

    @property
    def aggregates(self) -> bool:
        """Whether the answer gathers items from several chats (the search looks further for them)."""
        return self.kind in COMPUTED or self.kind in ("latest", "list")

    @property
    def computed(self) -> bool:
        """Whether the program computes the answer from items."""
        return self.kind in COMPUTED


def words(text: str) -> list[str]:
    """The words of a text, in order."""
    return _WORD.findall(text)


def subject_words(text: str, pack: Pack) -> tuple[str, ...]:
    """The content words of `text` in `pack`'s language, in order, each once, case kept."""
    out: dict[str, str] = {}
    skip = pack.plain_words
    for w in words(text):
        low = w.lower().removesuffix("'s")
        if len(low) < 2 and not low.isdigit():
            continue
        if low in skip or low in pack.units or pack.numbers.get(low) is not None:
            continue
        out.setdefault(low, w.removesuffix("'s"))
    return tuple(out.values())


def kind_of(text: str, pack: Pack) -> str:
    """The first kind whose cue the question holds (lookup when none)."""
    flat = " ".join(text.split())
    for kind, pattern in pack.kind_cues:
        if pattern.search(flat):
            return kind
    return "lookup"


NUMBER_KINDS = ("count", "total", "difference", "span")
"""Kinds whose answer is a number, whatever the question's asking words."""


def answer_type(text: str, kind: str, pack: Pack) -> tuple[str, str]:
    """(type, noun): what the answer must be, by the question's kind and the pack's `answer_types`."""
    if kind in NUMBER_KINDS:
        return "number", ""
    if kind == "when":
        return "date", ""
    if kind in ("order", "yesno", "recommend"):
        return "", ""
    flat = " ".join(text.split())
    for kind_of_answer, pattern in pack.answer_types:
        m = pattern.search(flat)
        if m:
            noun = m.groupdict().get("noun") or ""
            if kind_of_answer == "kind" and (not noun or noun.lower() in pack.plain_words):
                return "", ""
            return kind_of_answer, noun
    return "", ""


def head_noun(text: str, noun: str, pack: Pack) -> str:
    """The last word of the noun phrase that starts at `noun`, up to the first function word ("countries"
    in "What European countries has Maria been to?")."""
    ws = words(text)
    at = next((i for i, w in enumerate(ws) if w == noun), None)
    if at is None:
        return noun
    phrase = [ws[at]]
    for w in ws[at + 1 :]:
        if w.lower() in pack.plain_words:
            break
        phrase.append(w)
    return phrase[-1]


def plural(noun: str, pack: Pack) -> bool:
    """Whether a question's noun names several things: it has a plural ending of its language and the
    index's stemmer shortens it ("books", "activities"; not "class" or "bus")."""
    low = noun.lower()
    if not any(low.endswith(e) for e in pack.plural_endings):
        return False
    stemmed = stems(noun, pack.code)
    return bool(stemmed) and stemmed[0] != low


def span_unit(text: str, pack: Pack) -> str:
    """The unit a span question counts in: the first unit word it holds (days when none)."""
    for w in words(text.lower()):
        if w in pack.units:
            return pack.units[w]
    return "days"


def understand(text: str, now: datetime, tz: tzinfo, default_lang: str | None = None) -> Question:
    """The `Question` of `text`, asked at `now` (in zone `tz`); its language is the pack language
    whose grammar words it uses (`language_of`), else `default_lang` (the archive's), else English."""
    text = " ".join(text.split())
    pack = pack_for(language_of(text, default_lang))
    kind = kind_of(text, pack)
    lowered = {w.lower() for w in words(text)}
    between = kind == "span" and bool(pack.between.search(text))
    since = kind == "span" and bool(pack.since_now.search(text)) and not between
    expects, noun = answer_type(text, kind, pack)
    if kind == "lookup" and expects == "kind" and plural(head_noun(text, noun, pack), pack):
        kind = "list"
    return Question(
        text=text,
        kind=kind,
        lang=pack.code,
        subject=subject_words(text, pack),
        unit=span_unit(text, pack) if kind == "span" else "days",
        since_now=since,
        between=between,
        time=timewords.resolve(text, now, tz, pack),
        thing=counted(text, pack) if kind in ("count", "latest") else "",
        personal=bool(lowered & pack.first_person) and not lowered & pack.second_person,
        options=options(text, pack) if kind == "order" else events(text, pack) if kind == "span" else (),
        money=bool(lowered & pack.money_words) or any(c in text for c in CURRENCIES),
        adds=kind == "total" and pack.adds is not None and bool(pack.adds.search(text)),
        expects=expects,
        noun=noun,
    )


_CLAUSE = re.compile(r"[,:;?!]")


def options(text: str, pack: Pack) -> tuple[str, ...]:
    """The two things a question sets against each other with its one \"or\" (\"Which came first, the zoo
    or the aquarium?\"): the clause's words on each side of it, less the function words that open them;
    empty when there is no single \"or\" or a side holds no content word."""
    return two_sides(text, pack.alternative, pack)


def events(text: str, pack: Pack) -> tuple[str, ...]:
    """The two events a span question is measured between, on each side of its one joining word, the
    first from its "between" or "since" on (\"How many days passed between my move and the party?\");
    empty when there is no single joining word."""
    start = pack.span_from.search(text) if pack.span_from is not None else None
    return two_sides(text[start.end() :] if start else text, pack.joins, pack)


def two_sides(text: str, word: re.Pattern[str] | None, pack: Pack) -> tuple[str, ...]:
    """The clause's words on each side of the one match of `word` in `text`, less the function words that
    open them; empty when `word` is not there exactly once or a side holds no content word."""
    found = list(word.finditer(text)) if word is not None else []
    if len(found) != 1:
        return ()
    before = _CLAUSE.split(text[: found[0].start()])[-1]
    after = _CLAUSE.split(text[found[0].end() :])[0]
    out = []
    for side in (before, after):
        kept = words(side)
        while kept and kept[0].lower() in pack.plain_words:
            kept = kept[1:]
        if not subject_words(" ".join(kept), pack):
            return ()
        out.append(side[side.find(kept[0]) :].strip(" '\"\u2018\u2019\u201c\u201d"))
    return tuple(out)


def counted(text: str, pack: Pack) -> str:
    """What a "how many" question counts (`Pack.counted`), or ""."""
    m = pack.counted.search(text) if pack.counted is not None else None
    return " ".join(m.group("thing").split()) if m else ""
