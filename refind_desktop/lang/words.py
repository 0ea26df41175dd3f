"""Helpers that build a pack's patterns from its word maps (alternations longest first)."""

from __future__ import annotations

import re
from collections.abc import Iterable


def alternation(words: Iterable[str]) -> str:
    """`a|bb|ccc` as a regex alternation, longest first, each word escaped."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def cues(*pairs: tuple[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, compiled case-insensitive pattern) pairs."""
    return tuple((kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in pairs)
