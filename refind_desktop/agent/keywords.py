"""Deterministic search keywords from a question in its language (the pack's words): its content words,
the names in it, words that recur in what was found; no model call."""

from __future__ import annotations

import re

from ..lang import Pack, pack_for
from ..search import querywords

_WORD = re.compile(r"\w[\w'&.+-]*\w|\w", re.UNICODE)


def _pack(pack: Pack | None) -> Pack:
    return pack or pack_for("en")


def content_words(text: str, pack: Pack | None = None) -> list[str]:
    """The text's words that are neither function words nor words of asking (`pack`'s lists, English by
    default), in order, each once (case kept for names)."""
    p = _pack(pack)
    skip = p.plain_words | frozenset(p.units)
    out: dict[str, str] = {}
    for m in _WORD.finditer(text):
        w = m.group(0).strip(".'")
        low = w.lower()
        if len(low) < 2 and not low.isdigit():
            continue
        if low in skip or low.removesuffix("'s") in skip:
            continue
        out.setdefault(low, w.removesuffix("'s"))
    return list(out.values())


def habit_words(question: str, pack: Pack | None = None) -> list[str]:
    """The question's habit and present-state words (`Pack.habit_words`), in order, each once."""
    habits = _pack(pack).habit_words
    found = [m.group(0).lower() for m in _WORD.finditer(question) if m.group(0).lower() in habits]
    return list(dict.fromkeys(found))


def question_keywords(question: str, limit: int = 8, pack: Pack | None = None) -> list[str]:
    """Keywords for one search: quoted phrases and names first, then the other content words."""
    quoted = [q.strip() for q in re.findall(r"['\"“‘„]([^'\"”’“]{3,60})['\"”’“]", question)]
    words = content_words(question, pack)
    names = [w for w in words if w[:1].isupper()]
    rest = [w for w in words if w not in names]
    ordered = list(dict.fromkeys([*quoted, *names, *rest]))
    return ordered[:limit] or [question.strip()[:60]]


_TOKEN = re.compile(r"\w+", re.UNICODE)


def search_words(question: str, pack: Pack | None = None) -> list[str]:
    """The words of a program-made search for the question: every word of it but the language's
    generic function words (`Pack.function_words`, as the engine drops them), in order, each once,
    names keeping their case; the whole question's words when nothing else is left.

    Unlike `content_words` it keeps time, habit and chat words ("time", "Saturday", "currently"): a
    person writes many of them when stating the fact ("I wake up at 7:30 am on Saturdays")."""
    out: dict[str, str] = {}
    for token in _TOKEN.findall(question):
        out.setdefault(token.lower(), token)
    kept = querywords.content_words(list(out), _pack(pack).function_words)
    return [out[low] for low in kept]


def query_key(keywords: list[str]) -> frozenset[str]:
    """What makes two searches the same: their lower-cased words, order ignored."""
    return frozenset(w.lower() for k in keywords for w in _WORD.findall(k))


ROLE_WORDS = frozenset({"user", "assistant", "system", "human", "tool", "model", "chatgpt", "claude", "bot"})
"""Speaker labels that every turn's text carries ("User: ... Assistant: ..."): never feedback words."""


def feedback_keywords(question: str, texts: list[str], extra: int = 3, pack: Pack | None = None) -> list[str]:
    """A follow-up search without a model call: the question's content words plus the `extra` words
    that recur most in the texts found relevant so far (pseudo-relevance feedback)."""
    p = _pack(pack)
    skip = p.plain_words | ROLE_WORDS
    base = content_words(question, p)
    have = {w.lower() for w in base}
    counts: dict[str, int] = {}
    for text in texts:
        seen: set[str] = set()
        for m in _WORD.finditer(text):
            w = m.group(0).lower().strip(".'")
            if len(w) < 4 or w in skip or w in have or w.isdigit() or w in seen:
                continue
            seen.add(w)
            counts[w] = counts.get(w, 0) + 1
    best = sorted(counts, key=lambda w: (-counts[w], w))[:extra]
    return base + best
