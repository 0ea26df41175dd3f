"""CJK words inside unspaced sentences are found (bigram field); English BM25 is unchanged by it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import tantivy

from refind_desktop.index.cjk import bigrams, cjk_field_text, cjk_runs
from refind_desktop.search.engine import SearchOptions
from refind_desktop.services import build_services
from refind_desktop.types import Session, Turn

WHEN = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
SESSIONS = [
    ("s:ja", "昨日は東京タワーに行って、夜景がとてもきれいでした。"),
    ("s:zh", "我们上周在北京吃了烤鸭，味道非常好。"),
    ("s:ko", "주말에친구와부산에서회를먹었어요"),
    ("s:en", "We walked along the river and ate ramen near the station."),
    ("s:mixed", "The meeting about 予算案 moved to Friday; bring the laptop."),
]


@pytest.fixture
def svc():
    s = build_services()
    sessions = [Session(sid, sid, WHEN, turns=[Turn(0, text, "alice", WHEN)]) for sid, text in SESSIONS]
    s.ingestor.apply_sessions(sessions, "hand", "generic")
    yield s
    s.close()


def _found(svc, query: str) -> list[str]:
    ranked = svc.engine.candidates(query, options=SearchOptions(context_window=0))
    recs = svc.catalog.ords_to_sessions(sorted({r.sord for r in ranked}))
    return [recs[r.sord].sid for r in ranked]


def test_bigrams_of_runs():
    assert cjk_runs("昨日は東京タワー ok 서울") == ["昨日は東京タワー", "서울"]
    assert bigrams("東京タ") == ["東京", "京タ"]
    assert bigrams("猫") == ["猫"]
    assert cjk_field_text("plain English only") == ""


@pytest.mark.parametrize(
    ("word", "sid"),
    [
        ("東京タワー", "s:ja"),
        ("夜景", "s:ja"),
        ("北京", "s:zh"),
        ("烤鸭", "s:zh"),
        ("부산", "s:ko"),
        ("予算", "s:mixed"),
    ],
)
def test_a_cjk_word_inside_a_sentence_is_found(svc, word: str, sid: str):
    assert _found(svc, word)[0] == sid
    # the word tokenizer alone keeps each unspaced run as one token: the word is not findable there
    q = svc.index.raw.parse_query(word, ["text"])
    assert svc.index.searcher().search(q, 10).hits == []


def test_a_cjk_word_in_an_english_question(svc):
    assert _found(svc, "when did I go to 東京タワー?")[0] == "s:ja"


def test_english_bm25_is_unchanged(svc):
    # an English query is exactly the word query: same turns, same BM25 scores
    ranked = svc.engine.candidates(
        "ramen river meeting laptop", options=SearchOptions(rrf=False, own_words=False, question_words=False)
    )
    q = svc.index.raw.parse_query("ramen river meeting laptop", ["text"])
    direct = svc.index.searcher().search(q, 10).hits
    assert [r.bm25 for r in ranked] == pytest.approx([s for s, _ in direct])
    assert isinstance(svc.index.text_query("ramen"), tantivy.Query)
    assert _found(svc, "ramen") == ["s:en"]


def test_an_index_of_the_previous_schema_asks_for_reindex(tmp_path):
    from refind_desktop.errors import IndexSchemaError
    from refind_desktop.index.store import META_FILE, TurnIndex

    path = tmp_path / "index"
    TurnIndex(path)
    (path / META_FILE).write_text('{"schema_version": 1}')  # before the cjk and said fields
    with pytest.raises(IndexSchemaError, match="refind reindex"):
        TurnIndex(path)
