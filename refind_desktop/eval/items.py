"""Gold-item scoring: a gold answer split into items, each looked for in the answer after normalisation.

A gold answer such as "a bowl, the tapas place" or "7 May 2023" is found in an answer when every one
of its items is; the share of items found rewards a partly right list. Normalisation makes the ways a
person writes the same thing equal: number words become digits (text2num, in the text's language),
dates written as "7 May 2023", "May 7th, 2023", "2023-05-07", "07.05.2023" or "7. Mai 2023" become
one date, amounts drop their thousands separators and read a decimal comma ("12,50 €" = "12.50 EUR"),
and articles and punctuation go. A date matches when every part the gold gives (year, month, day)
is the answer's; a year alone is found in any date of that year.

The few words each language needs here (months, articles, "and", the phrases that say an answer is
not in the chats) are this scorer's own, one pack per language: a measuring tool keeps its own
vocabulary so that it cannot share a blind spot with the pipeline it measures.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from ..errors import MissingDependencyError
from .scoring import abstains as english_abstains
from .scoring import strip_citations


@dataclass(frozen=True)
class Words:
    """One language's words for the scorer."""

    months: tuple[tuple[str, ...], ...]
    """For each month, its names (full and short), lower case."""
    articles: frozenset[str]
    conjunctions: tuple[str, ...]
    """Words that join two items of a list ("and")."""
    abstain: re.Pattern[str] | None = None
    """Phrases saying the chats do not hold the answer (English: `scoring.abstains`)."""


PACKS: dict[str, Words] = {
    "en": Words(
        months=(
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        articles=frozenset({"a", "an", "the"}),
        conjunctions=("and",),
    ),
    "de": Words(
        months=(
            ("januar", "jänner", "jan"),
            ("februar", "feb"),
            ("märz", "maerz", "mär"),
            ("april", "apr"),
            ("mai",),
            ("juni", "jun"),
            ("juli", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("oktober", "okt"),
            ("november", "nov"),
            ("dezember", "dez"),
        ),
        articles=frozenset(
            {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines"}
        ),
        conjunctions=("und",),
        abstain=re.compile(
            r"\b(nicht (erwähnt|genannt|bekannt|angegeben|gefunden|zu finden|(in|aus) (deinen|den|ihren) "
            r"(chats|nachrichten|verlauf))|(keine|kein) (informationen?|angaben?|hinweise?|erwähnung|"
            r"eintrag)|nichts (gefunden|dazu|darüber|erwähnt)|(weiß|wissen) (ich|wir) nicht|"
            r"(ich (finde|fand|habe|hab)|(finde|fand|habe|hab) ich) (dazu |darüber |hierzu )?(nichts|keine)|"
            r"(kann|konnte) (ich )?(das |dazu |darüber )?(nicht|nichts) (finden|sagen|beantworten|feststellen))",
            re.IGNORECASE,
        ),
    ),
}


def pack(lang: str) -> Words:
    """The words of `lang` (its first two letters); English for a language without a pack."""
    return PACKS.get((lang or "en")[:2].lower(), PACKS["en"])


def _alpha2digit(text: str, lang: str) -> str:
    try:
        from text_to_num import alpha2digit
    except ImportError as exc:  # pragma: no cover - the bench extra is part of dev
        raise MissingDependencyError(
            'scoring number words needs text2num: pip install "refind-desktop[bench]"'
        ) from exc
    code = lang[:2].lower() if lang[:2].lower() in ("en", "de", "fr", "es", "pt", "it", "nl", "da") else "en"
    try:
        return alpha2digit(text, code, threshold=0)
    except (ValueError, RuntimeError):  # a text the converter cannot read keeps its words
        return text


_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*(?![\d]|[.,]\d)")
_DECIMAL_COMMA = re.compile(r"(?<![\d,])(\d+),(\d{1,2})(?![\d,])")
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
_CURRENCY = (
    (re.compile(r"€|\beur(?:o|os)?\b", re.IGNORECASE), " eur "),
    (re.compile(r"\$|\busd\b|\bdollars?\b", re.IGNORECASE), " usd "),
)
_PUNCT = str.maketrans({c: " " for c in string.punctuation + "„“”‚‘’«»–—…"})


def _numbers(text: str) -> str:
    """Thousands separators dropped, a decimal comma read as a point."""
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(m.group(1), ""), text)
    return _DECIMAL_COMMA.sub(r"\1.\2", text)


def _month_numbers(lang: str) -> dict[str, int]:
    """Month name → number in the language's pack and in English (answers mix them)."""
    out = {n: i + 1 for i, month in enumerate(PACKS["en"].months) for n in month}
    out.update({n: i + 1 for i, month in enumerate(pack(lang).months) for n in month})
    return out


def _date_pattern(months: dict[str, int]) -> re.Pattern[str]:
    names = sorted(months, key=len, reverse=True)
    mon = r"(?P<{}>" + "|".join(re.escape(n) for n in names) + r")\.?"
    day = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th|\.)?"
    year = r"(?P<{}>(?:19|20)\d\d)"
    shapes = [
        r"\b" + year.format("y1") + r"-(?P<m1>[01]?\d)-(?P<d1>[0-3]?\d)\b",
        r"\b(?P<d2>[0-3]?\d)\.(?P<m2>[01]?\d)\.(?P<y2>(?:19|20)\d\d)\b",
        r"\b"
        + day.format("d3")
        + r"\s+(?:of\s+)?"
        + mon.format("m3")
        + r"(?:,?\s+"
        + year.format("y3")
        + ")?",
        r"\b" + mon.format("m4") + r"\s+" + day.format("d4") + r"(?:,?\s+" + year.format("y4") + r")?(?!\d)",
        r"\b" + mon.format("m5") + r",?\s+" + year.format("y5") + r"\b",
    ]
    return re.compile("|".join(f"(?:{s})" for s in shapes), re.IGNORECASE)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _dates(text: str, lang: str) -> tuple[str, list[tuple[int | None, int | None, int | None]]]:
    """The text with each date replaced by a placeholder token, and the dates (year, month, day)."""
    month_of = _month_numbers(lang)
    pattern = _PATTERNS.get(lang) or _PATTERNS.setdefault(lang, _date_pattern(month_of))
    found: list[tuple[int | None, int | None, int | None]] = []

    def swap(m: re.Match[str]) -> str:
        g = {k[0]: v for k, v in m.groupdict().items() if v}
        month = int(g["m"]) if g.get("m", "").isdigit() else month_of.get(g.get("m", "").lower().rstrip("."))
        day = int(g["d"]) if "d" in g else None
        if not month or not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
            return m.group(0)
        found.append((int(g["y"]) if "y" in g else None, month, day))
        return f" \x00{len(found) - 1}\x00 "

    return pattern.sub(swap, text), found


Date = tuple[int | None, int | None, int | None]


@dataclass(frozen=True)
class Normalized:
    """A text as the scorer compares it: its words and its dates."""

    words: tuple[str, ...]
    dates: tuple[Date, ...]


def _number(word: str) -> str:
    """A decimal without its trailing zeros ("12.50" → "12.5", "3.0" → "3"); other words unchanged."""
    if re.fullmatch(r"\d+\.\d+", word):
        return word.rstrip("0").rstrip(".")
    return word


def _tokens(text: str, dates: list[Date], words: Words) -> Normalized:
    for pattern, name in _CURRENCY:
        text = pattern.sub(name, text)
    text = _ORDINAL.sub(r"\1", text)
    mine: list[Date] = []
    out: list[str] = []
    for i, part in enumerate(re.split(r"\x00(\d+)\x00", text)):
        if i % 2:  # the split's captured group: a date's number
            mine.append(dates[int(part)])
            continue
        # a point inside a number stays (12.50), every other punctuation mark is a space
        part = re.sub(r"(?<=\d)\.(?=\d)", "\x01", part.casefold()).translate(_PUNCT).replace("\x01", ".")
        out += [_number(w) for w in part.split() if w not in words.articles]
    return Normalized(tuple(out), tuple(mine))


_TAGS = re.compile(r"\[(?:S\d+\s*T\d+[,;\s]*)+\]")
"""The answer's citation tags ("[S1 T4]", "[S2 T7, S2 T9]"): their numbers are not answer content."""


def _prepare(text: str, lang: str) -> tuple[str, list[Date]]:
    text = _numbers(_alpha2digit(_TAGS.sub(" ", strip_citations(text)), lang))
    return _dates(text, lang)


def normalize(text: str, lang: str = "en") -> Normalized:
    """The words and dates of a text (see the module docstring)."""
    body, dates = _prepare(text, lang)
    return _tokens(body, dates, pack(lang))


def gold_items(gold: str, lang: str = "en") -> list[Normalized]:
    """The gold split into items at commas, semicolons and "and" (dates and amounts stay whole)."""
    words = pack(lang)
    body, dates = _prepare(gold, lang)
    joins = "|".join(rf"\s{re.escape(c)}\s" for c in words.conjunctions)
    parts = re.split(rf"[;,]|{joins}" if joins else r"[;,]", body, flags=re.IGNORECASE)
    items = [_tokens(p, dates, words) for p in parts]
    return [i for i in items if i.words or i.dates]


def _date_in(want: Date, have: tuple[Date, ...]) -> bool:
    return any(all(w is None or w == h for w, h in zip(want, got, strict=True)) for got in have)


def item_found(item: Normalized, answer: Normalized) -> bool:
    """Every word of the item is among the answer's words (a year also among its dates' years), and
    every date of the item matches one of the answer's."""
    years = {str(y) for y, _, _ in answer.dates if y}
    have = set(answer.words) | years
    return all(w in have for w in item.words) and all(_date_in(d, answer.dates) for d in item.dates)


def items_share(answer: str, gold: str, lang: str = "en") -> tuple[float, int, int]:
    """(share of the gold's items found in the answer, items found, items)."""
    items = gold_items(gold, lang)
    if not items:
        return 0.0, 0, 0
    said = normalize(answer, lang)
    found = sum(1 for i in items if item_found(i, said))
    return found / len(items), found, len(items)


def abstains(answer: str, lang: str = "en") -> bool:
    """The answer says the chats do not hold it (English phrases always; the language's own too)."""
    words = pack(lang)
    text = strip_citations(answer)
    return english_abstains(text) or bool(words.abstain and words.abstain.search(text))


Turn = tuple[str, int]


def covered(evidence: list[Turn], notes: list[dict], window: int = 2) -> list[Turn]:
    """The evidence turns the notes hold: shown in a note's block, or within `window` turns of its hit
    turn (notes as `AgentResult.to_json()` gives them: session_id, hit_turn, turns)."""
    near: dict[str, set[int]] = {}
    for n in notes:
        seen = near.setdefault(str(n.get("session_id")), set())
        seen.update(int(t) for t in n.get("turns") or [])
        hit = n.get("hit_turn")
        if isinstance(hit, int):
            seen.update(range(hit - window, hit + window + 1))
    return [(s, t) for s, t in evidence if t in near.get(s, ())]


def false_abstention(abstained: bool, should_abstain: bool, evidence_noted: bool) -> bool:
    """The worst answer a memory tool gives: it says the chats do not hold the answer although the
    question has one and the notes held its evidence."""
    return abstained and not should_abstain and evidence_noted
