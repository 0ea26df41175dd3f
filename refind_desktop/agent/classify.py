"""A deterministic question classifier: which computation (if any) the program does for the answer."""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("count", "sum", "difference", "date_diff", "order", "latest", "lookup")
"""count / sum (aggregate items), difference (how much more one amount is than another), date_diff (days/weeks/months/years between events or since one),
order (which came first), latest (a value that may have changed: newest session wins), lookup."""

_UNITS = r"(days?|weeks?|months?|years?)"
_DIFF = re.compile(
    rf"\bhow many {_UNITS}\b.*\b(ago|since|passed|between|before|after|elapsed|went by|had it been|"
    rf"apart|until|till|earlier|later)\b|\bhow long (ago|since|before|after|had it been|was it|"
    rf"has it been|did it take)\b|\bhow many {_UNITS} (ago|had passed|have passed|passed)\b",
    re.IGNORECASE,
)
_ORDER = re.compile(
    r"\b(which|what|who)\b.*\b(first|earlier|before|last|later|more recently|most recently|sooner)\b.*\bor\b"
    r"|\b(first|earlier)\b.*,.*\bor\b|\bin what order\b|\border of\b",
    re.IGNORECASE,
)
_SUM = re.compile(
    r"\bhow much\b.*\b(spend|spent|cost|pay|paid|raise|raised|earn|earned|save|saved|donate|donated|"
    r"total|in total|altogether|combined|all)\b|\b(total|combined|altogether|in total)\b.*\b(amount|"
    r"money|cost|spent|hours|distance|number)\b|\bhow many (hours|minutes|miles|kilometers|km|pages)\b.*"
    r"\b(total|in all|altogether|combined|spend|spent)\b",
    re.IGNORECASE,
)
_DIFFERENCE = re.compile(
    r"\bhow (much|many)(\s+\w+)?\s+(more|less|fewer|longer|shorter|older|younger|bigger|higher|lower|"
    r"cheaper|faster|slower|further|farther)\b|\bwhat( i|'| wa)s the difference (between|in)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b", re.IGNORECASE)
_LATEST = re.compile(
    r"\b(current|currently|now|still|these days|nowadays|most recent|latest|at the moment|right now|"
    r"usually|anymore)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class QuestionKind:
    """What the question asks the program to compute; `unit` for date_diff (days, weeks, months, years)."""

    kind: str
    unit: str = "days"
    since_now: bool = False
    """date_diff measured from one event to the question's current time ("how long ago")."""

    @property
    def aggregates(self) -> bool:
        """True for the kinds whose answer the program computes from extracted items."""
        return self.kind in ("count", "sum", "difference", "date_diff", "order")


def classify(question: str) -> QuestionKind:
    """The kind of `question` (rules over its wording; lookup when nothing matches)."""
    q = " ".join(question.split())
    if _DIFF.search(q):
        unit = re.search(_UNITS, q, re.IGNORECASE)
        name = (unit.group(1).lower().rstrip("s") + "s") if unit else "days"
        since = bool(
            re.search(r"\bago\b|\bsince\b.*\?$|\bhas it been\b", q, re.IGNORECASE)
        ) and not re.search(r"\bwhen\b|\bbetween\b|\bbefore\b|\bafter\b", q, re.IGNORECASE)
        return QuestionKind("date_diff", name, since)
    if _ORDER.search(q):
        return QuestionKind("order")
    if _DIFFERENCE.search(q):
        return QuestionKind("difference")
    if _SUM.search(q):
        return QuestionKind("sum")
    if _COUNT.search(q):
        return QuestionKind("latest" if _LATEST.search(q) else "count")
    if _LATEST.search(q):
        return QuestionKind("latest")
    return QuestionKind("lookup")
