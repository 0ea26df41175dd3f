"""The registered packs and the choice of one by language code (English when a language has none)."""

from __future__ import annotations

from . import de, en
from .base import Pack
from .detect import detect
from .words import tokens

PACKS: dict[str, Pack] = {p.code: p for p in (en.PACK, de.PACK)}
SUPPORTED = tuple(PACKS)
"""Languages with a pack, the first the default."""


def pack_for(code: str | None) -> Pack:
    """The pack of `code`, else the English one."""
    return PACKS.get(code or "", en.PACK)


def language_of(text: str, default: str | None = None) -> str:
    """The pack language a short text (a question) is written in. Its grammar decides first: names and
    nouns travel between languages (\"the Volkswagen\", \"in München\") while the words that hold a
    sentence together do not, so the pack whose function and asking words the text uses most wins.
    When no pack leads, lingua decides among the packs' languages, then `default` (the archive's), then
    English."""
    words = [w.lower() for w in tokens(text)]
    uses = sorted(((sum(w in p.plain_words for w in words), c) for c, p in PACKS.items()), reverse=True)
    if uses and uses[0][0] > (uses[1][0] if len(uses) > 1 else 0):
        return uses[0][1]
    return detect(text, among=SUPPORTED) or (default if default in PACKS else None) or SUPPORTED[0]
