"""The registered packs and the choice of one by language code (English when a language has none)."""

from __future__ import annotations

from . import de, en
from .base import Pack

PACKS: dict[str, Pack] = {p.code: p for p in (en.PACK, de.PACK)}
SUPPORTED = tuple(PACKS)
"""Languages with a pack, the first the default."""


def pack_for(code: str | None) -> Pack:
    """The pack of `code`, else the English one."""
    return PACKS.get(code or "", en.PACK)
