"""The answerer of a list question ("Which books has Emi read?"): every distinct thing the passages state,
each cited, gathered from as many chats as were read."""

from __future__ import annotations

from .base import Answerer, Composed, Found, distinct


def listed(found: Found, run: object) -> Composed | None:
    """The distinct things read, in reading order, each with its tag."""
    items = distinct(found.items)
    if not items:
        return None
    text = found.pack.say("list", items="; ".join(found.cite(it) for it in items))
    return Composed(text, [it.ref for it in items])


ANSWERERS = (Answerer("list", listed, read=8),)
