"""The generic words of a question (pronouns, interrogatives, auxiliaries, ...) that must not decide a search.

The index keeps Lucene's short English stop list (so phrases and exact text stay searchable); at
query time a question like "How many times did I ... my ...?" would otherwise rank turns by "how",
"many", "did", "i" and "my", which at archive scale match thousands of turns. The list is the
standard NLTK English stop list (function words only: no noun, verb or adjective with content).
"""

from __future__ import annotations

from ..index.store import clean_query

FUNCTION_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
    her hers herself it its itself they them their theirs themselves what which who whom this that
    these those am is are was were be been being have has had having do does did doing a an the and
    but if or because as until while of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once here
    there when where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn
    doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn many much
    """.split()
)
"""NLTK's English stop words (apostrophes split off, as the query cleaner does) plus the quantifiers
"many" and "much" of "how many" / "how much"."""


def content_words(words: list[str]) -> list[str]:
    """The words that are not generic function words; all of them when nothing else is left."""
    kept = [w for w in words if w not in FUNCTION_WORDS]
    return kept or words


FIRST_PERSON = frozenset("i me my mine myself".split())
"""The words that make a question about the person who asks it ("when did I ...", "my flight")."""


def about_person(text: str) -> bool:
    """Whether `text` speaks in the first person (one of `FIRST_PERSON` among its words as the index
    reads a query, `clean_query`)."""
    return not FIRST_PERSON.isdisjoint(clean_query(text).split())
