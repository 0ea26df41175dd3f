"""Raw-RAG answers (dense-order fallback), four-way RRF, the hybrid engine and the agent over it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from helpers.rag import day, session, words

from refind_desktop.errors import ConfigError
from refind_desktop.llm.scripted import AGREEING, ScriptedBackend, stage_of
from refind_desktop.rag import RAG_RUNNERS
from refind_desktop.rag.hybrid import HybridEngine, rrf4
from refind_desktop.rag.rawrag import FALLBACK, dense_for, hybrid_engine
from refind_desktop.search.engine import RankedTurn, SearchOptions

ARCHIVE = [
    session(
        "s:garden",
        day(1, 5),
        "I planted tomatoes and basil in the garden",
        words("g", 300),
        "the basil needs sun",
    ),
    session("s:car", day(2, 9), "my car needs new winter tyres", "the mechanic quoted 400 euros"),
    session(
        "s:trip",
        day(3, 14),
        words("t", 100),
        "we flew to Lisbon and ate pastel de nata",
        "the hotel was near the river",
    ),
]


@pytest.fixture
def archive(svc):
    svc.ingestor.apply_sessions(ARCHIVE, "src", "generic")
    dense_for(svc).catch_up()
    return svc


def test_rrf4_sums_the_four_reciprocal_ranks():
    bm25 = [RankedTurn(1, 0, 5.0, 5.0), RankedTurn(1, 1, 1.0, 1.0), RankedTurn(2, 0, 3.0, 3.0)]
    dense_turn = {(2, 0): 1, (3, 4): 2}
    dense_session = {2: 1, 3: 2}
    out = {(r.sord, r.turn): r.fused for r in rrf4(bm25, dense_turn, dense_session, k=60)}
    # sessions by BM25 sum: 1 (6.0) then 2 (3.0); turns by BM25: (1,0), (2,0), (1,1)
    assert out[(1, 0)] == pytest.approx(1 / 61 + 1 / 61)
    assert out[(2, 0)] == pytest.approx(1 / 62 + 1 / 62 + 1 / 61 + 1 / 61)
    assert out[(3, 4)] == pytest.approx(1 / 62 + 1 / 62)  # dense only
    assert [(r.sord, r.turn) for r in rrf4(bm25, dense_turn, dense_session)][0] == (2, 0)


def reads(term: str):
    """A reading back end that states `term` from the passage line holding it, and nothing elsewhere."""

    def respond(messages, schema):
        check = AGREEING.get(stage_of(schema))
        if check is not None:  # the check readings of the answer agree
            return dict(check)
        data = messages[-1].content.split("<<<DATA", 1)[-1]
        line = next((ln for ln in data.splitlines() if term in ln and ln.startswith("[T")), None)
        if line is None:
            return {"found": False, "items": []}
        return {"found": True, "items": [{"turn": line[1 : line.index("]")], "words": term}]}

    return respond


def test_rawrag_answers_from_complete_turns_with_the_dense_order_fallback(archive, capsys):
    backend = ScriptedBackend(responder=reads("Lisbon"))
    printed = []
    result = RAG_RUNNERS["rawrag"](
        archive, backend, "rawrag", "where did we fly and what did we eat?", None, printed.append
    )
    assert result.mode == "rawrag" and result.citations == [("s:trip", 1)] and "Lisbon" in result.answer
    data = result.to_json()
    step = data["trajectory"][0]
    assert step["type"] == "retrieve" and step["order"] == FALLBACK and step["reranker"] is None
    assert "no cross-encoder" in step["fallback_reason"]
    reasons = [e.get("reason") for e in data["trajectory"]]
    assert data["retrieval"]["kept"] and f"rawrag ({FALLBACK})" in reasons
    # the answer stage reads after the search stage finished
    assert [e["type"] for e in data["trajectory"]][-1] == "read"
    assert FALLBACK in capsys.readouterr().err  # the CLI output says so
    prompts = "\n".join(c.prompt for c in backend.calls)
    # the kept turns are read verbatim, inside the data section
    assert "user: we flew to Lisbon and ate pastel de nata" in prompts.split("<<<DATA", 1)[1]


def test_rawrag_needs_embeddings_first(svc):
    svc.ingestor.apply_sessions(ARCHIVE, "src", "generic")
    with pytest.raises(ConfigError, match="refind embed"):
        RAG_RUNNERS["rawrag"](svc, ScriptedBackend(), "rawrag", "anything", None, None)


def test_unloadable_cross_encoder_falls_back_with_the_reason():
    from refind_desktop.rag.models import load_reranker

    pytest.importorskip("sentence_transformers")
    reranker, why = load_reranker("/nonexistent/cross-encoder")
    assert reranker is None and "could not be loaded offline" in why
    assert load_reranker("")[0] is None


def test_hybrid_engine_fuses_dense_and_bm25_and_filters_both_sides(archive):
    engine = HybridEngine(archive.index, archive.catalog, dense_for(archive), archive.tz)
    # "tyres" only matches lexically in s:car; dense matches the same words
    top = engine.search("winter tyres mechanic", options=SearchOptions(top_k=2, context_window=0))
    assert top[0].session_id == "s:car"
    # dense-only candidates exist (no lexical match for the made-up word, dense shares the others)
    ranked = engine.candidates("basil sun zzzunknown")
    assert ranked and archive.catalog.get_session_by_ord(ranked[0].sord).sid == "s:garden"
    # seen-session exclusion and the time filter apply to the dense side too
    seen = engine.candidates("basil garden tomatoes", exclude={"s:garden"})
    assert all(archive.catalog.get_session_by_ord(r.sord).sid != "s:garden" for r in seen)
    march = engine.candidates("basil garden tomatoes", date(2024, 3, 1), date(2024, 3, 31))
    assert {archive.catalog.get_session_by_ord(r.sord).sid for r in march} <= {"s:trip"}


def test_hybrid_engine_as_of_bound_hides_later_sessions_on_both_sides(archive):
    """The archive setting's bound (eval harness only) holds for the dense side too: a session dated
    after `as_of` never comes back, neither through BM25 nor as a dense-only candidate."""
    engine = HybridEngine(archive.index, archive.catalog, dense_for(archive), archive.tz)
    sid = archive.catalog.get_session_by_ord
    assert "s:trip" in {sid(r.sord).sid for r in engine.candidates("Lisbon pastel hotel river")}
    before_trip = engine.bounded(datetime(2024, 3, 1, tzinfo=UTC))
    assert before_trip.as_of is not None and before_trip.dense is engine.dense
    # "Lisbon" matches s:trip only; the dense side would still return every window without the bound
    seen = {sid(r.sord).sid for r in before_trip.candidates("Lisbon pastel hotel river zzzunknown")}
    assert seen and "s:trip" not in seen
    assert {sid(r.sord).sid for r in before_trip.candidates("zzzunknown qqqword")} <= {"s:garden", "s:car"}
    # the bound and a date range combine (February: only s:car)
    feb = before_trip.candidates("basil garden tyres", date(2024, 2, 1), date(2024, 12, 31))
    assert {sid(r.sord).sid for r in feb} == {"s:car"}
    assert hybrid_engine_of(archive, datetime(2024, 2, 1, tzinfo=UTC)).as_of == datetime(
        2024, 2, 1, tzinfo=UTC
    )


def test_rawrag_refuses_a_bounded_engine(archive):
    """Raw-RAG's window retrieval has no as-of bound: under one (the archive setting) it refuses."""
    from types import SimpleNamespace

    view = SimpleNamespace(
        **{k: getattr(archive, k) for k in ("index", "catalog", "dense", "tz", "settings")}
    )
    view.engine = archive.engine.bounded(datetime(2024, 3, 1, tzinfo=UTC))
    with pytest.raises(ConfigError, match="archive setting"):
        RAG_RUNNERS["rawrag"](view, ScriptedBackend(), "rawrag", "Lisbon?", None, None)


def hybrid_engine_of(svc, as_of):
    """`rawrag.hybrid_engine` over services whose engine is bounded (as the eval harness makes them)."""
    from types import SimpleNamespace

    view = SimpleNamespace(**{k: getattr(svc, k) for k in ("index", "catalog", "dense", "tz")})
    view.engine = svc.engine.bounded(as_of)
    return hybrid_engine(view)


def test_agent_over_the_hybrid_engine(archive):
    read = reads("winter tyres")

    def respond(messages, schema):
        props = (schema or {}).get("properties", {})
        if "found" in props:
            return read(messages, schema)
        if "answer" in props:
            return {"answer": "yes" if "tyres" in messages[-1].content else "no"}
        if "action" in props:
            return {"action": "finish_search", "keywords": []}
        return {"keywords": ["winter", "tyres"]}

    result = RAG_RUNNERS["hybrid"](
        archive, ScriptedBackend(responder=respond), "hybrid", "what does my car need?", None, None
    )
    assert result.mode == "hybrid" and ("s:car", 0) in result.citations
    assert result.to_json()["trajectory"][0]["type"] == "search"


def test_missing_sentence_transformers_names_the_extra(monkeypatch):
    import sys

    from refind_desktop.errors import MissingDependencyError
    from refind_desktop.rag.models import Embedder

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import fail
    with pytest.raises(MissingDependencyError, match=r"refind-desktop\[rag\]"):
        Embedder("")


def test_cli_offers_the_rag_modes_and_the_embed_command():
    from refind_desktop.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["ask", "--mode", "rawrag", "q"]).mode == "rawrag"
    assert parser.parse_args(["ask", "--mode", "hybrid", "q"]).mode == "hybrid"
    assert parser.parse_args(["embed", "--rebuild"]).rebuild


def test_hybrid_stays_lexical_while_nothing_is_embedded(svc, fake):
    svc.ingestor.apply_sessions(ARCHIVE, "src", "generic")
    engine = HybridEngine(svc.index, svc.catalog, dense_for(svc), svc.tz)
    top = engine.search("winter tyres", options=SearchOptions(top_k=1))
    assert top[0].session_id == "s:car" and fake.encoded == []  # no model call without vectors
