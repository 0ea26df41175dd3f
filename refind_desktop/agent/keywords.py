"""Deterministic search keywords from a question: its content words (and the names in it), no model call."""

from __future__ import annotations

import re

from ..search import querywords

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&.+-]*[A-Za-z0-9]|[A-Za-z0-9]")
STOP_WORDS = frozenset(
    """
    a about above after again against ago all also am an and any are aren't as at be because been before
    being below between both but by can can't could couldn't did didn't do does doesn't doing don't down
    during each else ever few for from further get got had hadn't has hasn't have haven't having he her
    here hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just
    let's like me mine more most much my myself no nor not now of off on once only or other ought our ours
    ourselves out over own same she should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they this those through to too under until up upon us very was
    wasn't we were weren't what what's when when's where where's which while who who's whom why why's will
    with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
    many long often total number times time recently currently current previously usually last first
    tell remind remember recall know think wondering wanted want wonder looking look back mentioned
    mention said say says told ask asked previous conversation conversations chat chats talked talk
    discussed discuss earlier again please could can you me kind sort thing things something anything
    one ones lot lots day days week weeks month months year years since passed take took taken
    did does do done go went going get getting make made
    """.split()
)
"""English stop-words plus question words and chat filler ("remind me", "our previous conversation")."""


def content_words(text: str) -> list[str]:
    """The question's words that are not stop-words, in order, each once (case kept for names)."""
    out: dict[str, str] = {}
    for m in _WORD.finditer(text):
        w = m.group(0).strip(".'")
        low = w.lower()
        if len(low) < 2 and not low.isdigit():
            continue
        if low in STOP_WORDS or low.removesuffix("'s") in STOP_WORDS:
            continue
        out.setdefault(low, w.removesuffix("'s"))
    return list(out.values())


HABIT_WORDS = frozenset(
    "usually currently often always normally typically regularly nowadays now still time times".split()
)
"""Words of a question about a habit or a present state ("What time do I usually ...", "What do I
currently use") that the person tends to write when stating it ("the gym, which is usually at 6 pm";
"I'm currently using ..."): stop-words for the first search, kept for the turn-ranked second look."""


def habit_words(question: str) -> list[str]:
    """The question's `HABIT_WORDS`, in order, each once."""
    found = [m.group(0).lower() for m in _WORD.finditer(question) if m.group(0).lower() in HABIT_WORDS]
    return list(dict.fromkeys(found))


def question_keywords(question: str, limit: int = 8) -> list[str]:
    """Keywords for the first search: names and quoted phrases first, then the other content words."""
    quoted = [q.strip() for q in re.findall(r"['\"“‘]([^'\"”’]{3,60})['\"”’]", question)]
    words = content_words(question)
    names = [w for w in words if w[:1].isupper()]
    rest = [w for w in words if w not in names]
    ordered = list(dict.fromkeys([*quoted, *names, *rest]))
    return ordered[:limit] or [question.strip()[:60]]


_TOKEN = re.compile(r"\w+", re.UNICODE)


def search_words(question: str) -> list[str]:
    """The words of a program-made search for the question: every word of it but the generic function
    words the engine drops from a question (`search/querywords.py`), in order, each once, names keeping
    their case; the whole question's words when nothing else is left.

    Unlike `content_words` it keeps time, habit and chat words ("time", "Saturday", "currently",
    "first", "take"): the person writes many of them when stating the fact ("I wake up at 7:30 am on
    Saturdays", "I take classes at Serenity Yoga"). Measured single-shot in the LongMemEval dev
    archive (93 questions, the engine's defaults): recall_any/all@5 0.839/0.559 with these words
    against 0.785/0.527 with `question_keywords` (identical in the per-question haystacks,
    0.989/0.925)."""
    out: dict[str, str] = {}
    for token in _TOKEN.findall(question):
        out.setdefault(token.lower(), token)
    return [out[low] for low in querywords.content_words(list(out))]


def query_key(keywords: list[str]) -> frozenset[str]:
    """What makes two searches the same: their lower-cased words, order ignored."""
    return frozenset(w.lower() for k in keywords for w in _WORD.findall(k))


ROLE_WORDS = frozenset({"user", "assistant", "system", "human", "tool", "model", "chatgpt", "claude", "bot"})
"""Speaker labels that every turn's text carries ("User: ... Assistant: ..."): never feedback words."""


def feedback_keywords(question: str, texts: list[str], extra: int = 3) -> list[str]:
    """A follow-up search without a model call: the question's content words plus the `extra` words
    that recur most in the texts found relevant so far (pseudo-relevance feedback)."""
    base = content_words(question)
    have = {w.lower() for w in base}
    counts: dict[str, int] = {}
    for text in texts:
        seen: set[str] = set()
        for m in _WORD.finditer(text):
            w = m.group(0).lower().strip(".'")
            if len(w) < 4 or w in STOP_WORDS or w in ROLE_WORDS or w in have or w.isdigit() or w in seen:
                continue
            seen.add(w)
            counts[w] = counts.get(w, 0) + 1
    best = sorted(counts, key=lambda w: (-counts[w], w))[:extra]
    return base + best
