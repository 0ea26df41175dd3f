"""Language packs: the words each language needs (function words, question cues, numbers, time words,
answer phrases), one module per language, and the choice of a pack by detected language."""

from __future__ import annotations

from .base import CURRENCIES, Pack
from .detect import detect, detect_many
from .packs import PACKS, SUPPORTED, language_of, pack_for
from .words import WORD, tokens

__all__ = [
    "CURRENCIES",
    "PACKS",
    "SUPPORTED",
    "WORD",
    "Pack",
    "detect",
    "detect_many",
    "language_of",
    "pack_for",
    "tokens",
]
