"""End-to-end `refind eval retrieval` and `refind eval qa` runs on tiny benchmark files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refind_desktop.cli import main
from refind_desktop.cli.evalcmd import services_factory
from refind_desktop.eval import modes
from refind_desktop.eval.retrieval import run_retrieval

EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "eval"
LME = EVAL / "longmemeval_tiny.json"
LOCOMO = EVAL / "locomo_tiny.json"


def _run_json(capsys: pytest.CaptureFixture, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_retrieval_longmemeval_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture):
    out = tmp_path / "out"
    argv = [
        "eval",
        "retrieval",
        "--dataset",
        "longmemeval",
        "--data",
        str(LME),
        "--k",
        "1,3",
        "--out",
        str(out),
        "--json",
        "--workers",
        "1",
    ]
    summary = _run_json(capsys, argv)
    assert summary["dataset"] == "longmemeval" and summary["questions"] == 3 and summary["scored"] == 2
    assert summary["skipped"]["abstention"] == 1
    assert summary["skipped"]["unresolved_evidence_ids"] == 1
    assert set(summary["modes"]) == {
        "bm25",
        "refind",
        "no-rrf",
        "no-context",
        "no-dedup",
        "no-temporal",
        "bm25s",
    }
    for name in ("bm25", "refind", "bm25s"):
        overall = summary["modes"][name]["overall"]
        assert overall["recall_any@1"] == 1.0, name
        assert overall["recall_all@3"] == 1.0, name
        assert 0.0 < overall["turn_recall@3"] <= 1.0
    assert "no-op" in summary["modes"]["no-dedup"]["note"]
    assert summary["modes"]["refind"]["context_window"] == 2
    assert set(summary["modes"]["refind"]["by_type"]) == {"knowledge-update", "single-session-user"}
    for suffix in (".json", ".md", ".png", ".jsonl"):
        assert (out / f"retrieval-longmemeval{suffix}").exists()
    lines = (out / "retrieval-longmemeval.jsonl").read_text().splitlines()
    assert len(lines) == 3
    # a rerun resumes: nothing is recomputed, the summary is identical
    assert _run_json(capsys, argv) == summary
    assert len((out / "retrieval-longmemeval.jsonl").read_text().splitlines()) == 3
    assert "| refind |" in (out / "retrieval-longmemeval.md").read_text()


def test_eval_retrieval_locomo_process_pool(tmp_path: Path, capsys: pytest.CaptureFixture):
    summary = _run_json(
        capsys,
        [
            "eval",
            "retrieval",
            "--dataset",
            "locomo",
            "--data",
            str(LOCOMO),
            "--mode",
            "bm25",
            "--mode",
            "refind",
            "--json",
            "--quiet",
        ],
    )
    assert set(summary["modes"]) == {"bm25", "refind", "bm25s"}
    assert summary["scored"] == 4
    assert summary["skipped"]["unresolved_evidence_ids"] == 1
    assert summary["modes"]["bm25"]["by_type"]["4-single-hop"]["recall_any@1"] == 1.0


def test_registered_mode_is_scored(capsys: pytest.CaptureFixture):
    def reverse_catalog(services, question: str, k: int):
        sessions = services.eval_sessions
        return [(s.session_id, t.index) for s in reversed(sessions) for t in s.turns]

    modes.register_mode("test-reverse", reverse_catalog, note="test mode")
    try:
        summary = run_retrieval(
            "longmemeval", LME, ["test-reverse"], (1,), workers=1, quiet=True, factory=services_factory()
        )
    finally:
        modes.MODES.pop("test-reverse")
    # the last haystack session is an answer session in both scored questions
    assert summary["modes"]["test-reverse"]["overall"]["recall_any@1"] == 1.0
    assert summary["modes"]["test-reverse"]["note"] == "test mode"


def test_unknown_mode_is_a_config_error(capsys: pytest.CaptureFixture):
    code = main(["eval", "retrieval", "--dataset", "locomo", "--data", str(LOCOMO), "--mode", "nope"])
    assert code == 2
    assert "unknown retrieval mode" in capsys.readouterr().err


def test_eval_qa_scripted_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture):
    out = tmp_path / "qa"
    argv = [
        "eval",
        "qa",
        "--dataset",
        "longmemeval",
        "--data",
        str(LME),
        "--backend",
        "scripted",
        "--judge",
        "scripted",
        "--out",
        str(out),
        "--json",
    ]
    summary = _run_json(capsys, argv)
    assert summary["questions"] == 3 and summary["mode"] == "refind"
    overall = summary["overall"]
    for key in (
        "judge_correct",
        "det_correct",
        "det_f1",
        "evidence_recall",
        "searches",
        "llm_calls",
        "prompt_tokens",
        "search_seconds",
        "model_seconds",
    ):
        assert key in overall, key
    # false abstentions are counted overall and by type (0 or more, an integer)
    assert isinstance(overall["false_abstentions"], int)
    assert all(isinstance(v["false_abstentions"], int) for v in summary["by_type"].values())
    # aggregation questions (counts, sums, dates) may take a follow-up search
    assert 1.0 <= overall["searches"] <= 3.0 and overall["judge_calls"] == 3
    records = {r["qid"]: r for r in map(json.loads, next(out.glob("qa-*.jsonl")).read_text().splitlines())}
    tel = records["ssu003"]
    assert tel["det_correct"] == 1.0 and "Dobsonian" in tel["answer"]
    assert tel["evidence_recall"] == 1.0
    assert tel["judge"]["scripted-default"]["correct"] is True
    assert records["ku001"]["usage"]["llm_calls"] >= 2
    # the notes come from the judge step (the scripted double answers its schema) or, for a question
    # about one fact, are its results kept unjudged for the reading; never from the fallback that keeps
    # the first results when the judge fails
    notes = [e for r in records.values() for e in r["trajectory"] if e["type"] == "note"]
    assert {e["how"] for e in notes} == {"judged", "kept"}
    assert {r["qid"] for r in records.values() if r["noted_sessions"]} == {"ku001", "ssu003"}
    assert {p.suffix for p in out.iterdir()} >= {".json", ".md", ".jsonl"}
    # resumable and deterministic: a rerun answers nothing new and reports the same figures
    before = next(out.glob("qa-*.jsonl")).read_text()
    again = _run_json(capsys, argv)
    assert next(out.glob("qa-*.jsonl")).read_text() == before
    strip = ("search_seconds", "model_seconds", "total_seconds", "judge_seconds")
    assert {k: v for k, v in again["overall"].items() if k not in strip} == {
        k: v for k, v in overall.items() if k not in strip
    }


def test_eval_qa_locomo_exact_judge(capsys: pytest.CaptureFixture):
    summary = _run_json(
        capsys,
        [
            "eval",
            "qa",
            "--dataset",
            "locomo",
            "--data",
            str(LOCOMO),
            "--backend",
            "scripted",
            "--mode",
            "one-search",
            "--json",
            "--quiet",
        ],
    )
    assert summary["judge"] == "exact" and "judge_correct" not in summary["overall"]
    assert set(summary["by_type"]) == {"1-multi-hop", "2-temporal", "4-single-hop", "5-adversarial"}
    assert "LoCoMo" in summary["scorers"]["det_f1"]


@pytest.mark.parametrize("mode", ["oracle", "refind+1call", "one-search+1call"])
def test_eval_qa_references_run_beside_the_modes_and_score_outcomes(mode: str, capsys: pytest.CaptureFixture):
    argv = ["eval", "qa", "--dataset", "longmemeval", "--data", str(LME), "--backend", "scripted"]
    summary = _run_json(capsys, [*argv, "--mode", mode, "--json"])
    assert summary["mode"] == mode and summary["questions"] == 3
    overall = summary["overall"]
    # every outcome share is reported, with the checks and of the draft before them
    for key in ("right", "wrong", "unsure", "not_found", "false_not_found", "draft_right", "draft_wrong"):
        assert 0.0 <= overall[key] <= 1.0, key
    assert overall["right"] + overall["wrong"] + overall["unsure"] <= 1.0 + 1e-9
    if mode == "oracle":  # the gold evidence is the notes: no search runs, the answer session is read
        assert overall["searches"] == 0 and overall["evidence_recall"] == 1.0
    else:  # one answer call over the notes: the references claim no "unsure"
        assert overall["unsure"] == 0.0 and overall["searches"] >= 1
