"""The generic words of a question (pronouns, interrogatives, auxiliaries, ...) that must not decide a search.

The index keeps Lucene's short English stop list (so phrases and exact text stay searchable); at
query time a question like "How many times did I ... my ...?" would otherwise rank turns by "how",
"many", "did", "i" and "my", which at archive scale match thousands of turns. The words come from the
language pack (refind_desktop/lang: the NLTK stop lists, function words only); English by default.
"""

from __future__ import annotations

from collections.abc import Collection

from ..index.store import clean_query
from ..lang import pack_for

FUNCTION_WORDS = pack_for("en").function_words
"""The English function words (the default)."""


def content_words(words: list[str], function_words: Collection[str] = FUNCTION_WORDS) -> list[str]:
    """The words that are not generic function words; all of them when nothing else is left."""
    kept = [w for w in words if w not in function_words]
    return kept or words


FIRST_PERSON = pack_for("en").first_person
"""The words that make a question about the person who asks it ("when did I ...", "my flight")."""


def about_person(text: str, first_person: Collection[str] = FIRST_PERSON) -> bool:
    """Whether `text` speaks in the first person (one of `first_person` among its words as the index
    reads a query, `clean_query`)."""
    return not set(first_person).isdisjoint(clean_query(text).split())
