"""The tantivy schema of the turn index, its analyzer and its version."""

from __future__ import annotations

from datetime import datetime, timezone

import tantivy

SCHEMA_VERSION = 3
"""2: the `cjk` bigram field (index/cjk.py) and the `said` field (the person's own words, index/said.py).
3: the `who` field (a multi-party message's author, tokenized, so a search can match who spoke); messenger
chats are stored as conversations (ingest/conversations.py), so `refind reindex` re-splits old chats."""
ANALYZER = "refind_en"
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
    return sb.build()


def analyzer() -> tantivy.TextAnalyzer:
    """Lowercase, split on non-alphanumerics, English stop-words, Snowball English stemming."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
