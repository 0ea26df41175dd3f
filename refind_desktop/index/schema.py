"""The tantivy schema of the turn index, its analyzer and its version."""

from __future__ import annotations

from datetime import datetime, timezone
from functools import cache

import tantivy

from ..lang import SUPPORTED, pack_for

SCHEMA_VERSION = 4
"""2: the `cjk` bigram field (index/cjk.py) and the `said` field (the person's own words, index/said.py).
3: the `who` field (a multi-party message's author, tokenized, so a search can match who spoke); messenger
chats are stored as conversations (ingest/conversations.py), so `refind reindex` re-splits old chats.
4: the `text_<lang>`/`said_<lang>` fields stem a session written in another language with its own stemmer."""
ANALYZER = "refind_en"
LANGUAGES = tuple(code for code in SUPPORTED if code != "en")
"""Languages (besides English, which `text` and `said` stem) whose sessions are also indexed in fields of
their own, stemmed with their own stemmer: a German chat's "Fahrräder" matches "Fahrrad"."""


def text_field(lang: str) -> str:
    """The text field of a language (`text` for English and every language without a pack)."""
    return f"text_{lang}" if lang in LANGUAGES else "text"


def said_field(lang: str) -> str:
    """The person's-own-words field of a language (`said` for English and the rest)."""
    return f"said_{lang}" if lang in LANGUAGES else "said"


def analyzer_name(lang: str) -> str:
    """The tokenizer name a language's fields are registered under."""
    return f"refind_{lang}" if lang in LANGUAGES else ANALYZER


CJK_TOKENIZER = "whitespace"
"""The `cjk` field holds space-separated character bigrams (index/cjk.py), one token each."""
# tantivy stores dates as nanoseconds in an i64 (1677-09-21 .. 2262-04-11): the `ts` field holds
# moments of this (slightly narrower) span only; a turn stamped outside it is indexed without a time.
TS_MIN = datetime(1678, 1, 1, tzinfo=timezone.utc)
TS_MAX = datetime(2262, 1, 1, tzinfo=timezone.utc)


def build_schema() -> tantivy.Schema:
    """One document per turn; session ordinal and turn index are fast fields for aggregation."""
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("key", stored=False, tokenizer_name="raw")
    sb.add_text_field("session", stored=True, tokenizer_name="raw")
    sb.add_text_field("source", stored=False, tokenizer_name="raw")
    # sord = session ordinal: the catalog's small integer for the session (Catalog.next_ord), never reused
    sb.add_unsigned_field("sord", stored=True, indexed=True, fast=True)
    sb.add_unsigned_field("turn", stored=True, indexed=True, fast=True)
    sb.add_text_field("text", stored=True, tokenizer_name=ANALYZER)
    sb.add_text_field("said", stored=False, tokenizer_name=ANALYZER)
    sb.add_text_field("cjk", stored=False, tokenizer_name=CJK_TOKENIZER)
    sb.add_text_field("speaker", stored=True, tokenizer_name="raw")
    # who spoke, as words: the author of a multi-party message (empty for assistant-style turns)
    sb.add_text_field("who", stored=False, tokenizer_name=ANALYZER)
    sb.add_date_field("ts", stored=True, indexed=True, fast=True)
    for lang in LANGUAGES:
        sb.add_text_field(text_field(lang), stored=False, tokenizer_name=analyzer_name(lang))
        sb.add_text_field(said_field(lang), stored=False, tokenizer_name=analyzer_name(lang))
    return sb.build()


@cache
def _shared(lang: str) -> tantivy.TextAnalyzer:
    return analyzer(lang)


def stems(text: str, lang: str = "en") -> list[str]:
    """The words of `text` as the index reads them in `lang` (lower-cased, stemmed, stop words left
    out): how the program tells that two texts name the same thing ("bikes", "bike")."""
    return list(_shared(pack_for(lang).code).analyze(text))


def analyzer(lang: str = "en") -> tantivy.TextAnalyzer:
    """Lowercase, split on non-alphanumerics, the language's stop-words, its Snowball stemmer (tantivy's
    own, named by the language pack)."""
    name = pack_for(lang).stemmer
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword(name))
        .filter(tantivy.Filter.stemmer(name))
        .build()
    )
