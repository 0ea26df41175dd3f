"""Which language a text is written in, by lingua-language-detector (its models ship in the wheel).

Only the languages the analyzer can stem are told apart (tantivy's Snowball stemmers), so a short
text is not taken for a language refind cannot read anyway; a text too short or too mixed to tell
gives None and the caller keeps its default.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import cache

STEMMED = {
    "ARABIC": "ar",
    "DANISH": "da",
    "DUTCH": "nl",
    "ENGLISH": "en",
    "FINNISH": "fi",
    "FRENCH": "fr",
    "GERMAN": "de",
    "GREEK": "el",
    "HUNGARIAN": "hu",
    "ITALIAN": "it",
    "NYNORSK": "no",
    "PORTUGUESE": "pt",
    "ROMANIAN": "ro",
    "RUSSIAN": "ru",
    "SPANISH": "es",
    "SWEDISH": "sv",
    "TAMIL": "ta",
    "TURKISH": "tr",
}
"""lingua's language names of the languages tantivy stems, and their ISO 639-1 codes."""
MIN_CONFIDENCE = 0.5
"""The share of the likelihood the best language must have (lingua's confidence values sum to 1)."""
_lock = threading.Lock()


@cache
def _detector(among: tuple[str, ...] = ()):
    """All stemmed languages in lingua's fast mode (for long texts); or only the languages `among`, in
    its high-accuracy mode, which tells short texts apart (its fast mode reads trigrams only and takes
    a short English question naming a German place for German)."""
    from lingua import Language, LanguageDetectorBuilder  # deferred: builds its models on first use

    names = [n for n, code in STEMMED.items() if not among or code in among]
    builder = LanguageDetectorBuilder.from_languages(*(getattr(Language, n) for n in names))
    return builder.build() if among else builder.with_low_accuracy_mode().build()


def detect(text: str, among: tuple[str, ...] = ()) -> str | None:
    """The ISO 639-1 code of `text`'s language, or None when it cannot tell; with `among` (codes), only
    those languages are told apart, with the accuracy a short text needs."""
    text = " ".join(str(text or "").split())[:2000]
    if sum(ch.isalpha() for ch in text) < 8:
        return None
    with _lock:
        ranked = _detector(tuple(sorted(among))).compute_language_confidence_values(text)
    if not ranked or ranked[0].value < MIN_CONFIDENCE:
        return None
    return STEMMED.get(ranked[0].language.name)


def detect_many(texts: Iterable[str], sample_chars: int = 4000) -> str | None:
    """The language of a body of texts (a session, an archive sample): read together, up to
    `sample_chars` characters."""
    parts: list[str] = []
    size = 0
    for t in texts:
        t = " ".join(str(t or "").split())
        if not t:
            continue
        parts.append(t[: sample_chars - size])
        size += len(parts[-1])
        if size >= sample_chars:
            break
    return detect(" ".join(parts)) if parts else None
