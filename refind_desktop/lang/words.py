"""Helpers that build a pack's patterns from its word maps (alternations longest first)."""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD = re.compile(r"\w+", re.UNICODE)
"""What the answer path calls a word: a run of letters, digits or underscores (every language's)."""


def tokens(text: str) -> list[str]:
    """The words of `text` in order, as `WORD` finds them."""
    return WORD.findall(text)


def alternation(words: Iterable[str]) -> str:
    """`a|bb|ccc` as a regex alternation, longest first, each word escaped."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def cues(*pairs: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, compiled case-insensitive pattern) pairs."""
    return tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in pairs)
