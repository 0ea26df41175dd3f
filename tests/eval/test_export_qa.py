"""The export-set harness end to end: exports of a synthetic LoCoMo-shaped chat, ingested and asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.scripts import benchmark

from refind_desktop.cli.evalcmd import services_factory
from refind_desktop.config import Settings
from refind_desktop.errors import ConfigError
from refind_desktop.eval.exportqa import run_export
from refind_desktop.eval.exportset import SetQuestion, load_set, stratified
from refind_desktop.eval.items import covered, items_share

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "eval" / "locomo_messenger.json"


exporter = benchmark("messenger_export")
export_qa = benchmark("export_qa")


@pytest.fixture
def whatsapp(tmp_path: Path) -> Path:
    exporter.export(FIXTURE, tmp_path / "sets", seed=3, formats=("whatsapp",))
    return tmp_path / "sets" / "whatsapp"


def test_scripted_run_scores_every_question_and_resumes(whatsapp, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [str(whatsapp), "--backend", "scripted", "--out", str(out), "--json", "--quiet"]
    assert export_qa.main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ingest"]["files"] == 1 and summary["ingest"]["turns"] == 7
    assert summary["evidence"] == {"messages": 7, "not_found_in_index": 0, "unresolved_in_set": 1}
    ret = summary["retrieval"]["overall"]
    assert ret["n"] == 6 and 0 <= ret["recall_all@5"] <= ret["recall_any@5"] <= ret["recall_any@10"] <= 1
    (cache,) = out.glob("export-whatsapp-refind-scripted-*.jsonl")
    records = [json.loads(line) for line in cache.read_text().splitlines()]
    assert len(records) == 6 and not any("error" in r for r in records)
    for r in records:
        # each figure follows from the answer and the notes the product gave
        evidence = [tuple(e) for e in r["evidence_turns"]]
        notes = [{"session_id": s, "hit_turn": h, "turns": t} for s, h, t in r["noted"]]
        assert r["evidence_recall"] == len(covered(evidence, notes)) / len(evidence)
        if not r["abstain"]:  # an unsure outcome claims no item, whatever its quoted turns hold
            stated = items_share(r["answer"], r["gold"])[0] if r["outcome"] == "answer" else 0.0
            assert r["gold_items"] == round(stated, 4)
        assert r["llm_calls"] >= 1 and r["prompt_tokens"] > 0 and r["seconds"] >= 0
    qa = summary["qa"]["overall"]
    assert qa["n"] == 6 and qa["gold_items"] == round(sum(r["gold_items"] for r in records) / 6, 4)
    assert set(summary["qa"]["by_category"]) == {"1-multi-hop", "2-temporal", "4-single-hop", "5-adversarial"}
    assert qa["p50_seconds"] <= qa["p90_seconds"] and qa["median_prompt_tokens"] > 0
    md = next(out.glob("export-whatsapp-refind-*.md")).read_text(encoding="utf-8")
    assert "## Single-shot retrieval" in md and "## Per question" in md and "\\[S1 T" in md
    # resumable: a second run asks nothing again
    before = cache.read_text()
    assert export_qa.main(argv) == 0
    capsys.readouterr()
    assert cache.read_text() == before


def test_the_oracle_reads_each_questions_evidence_turns_and_searches_nothing(whatsapp, tmp_path, capsys):
    argv = [str(whatsapp), "--backend", "scripted", "--mode", "oracle", "--out", str(tmp_path / "o")]
    assert export_qa.main([*argv, "--json", "--quiet"]) == 0
    capsys.readouterr()
    (cache,) = (tmp_path / "o").glob("export-whatsapp-oracle-scripted-*.jsonl")
    records = [json.loads(line) for line in cache.read_text().splitlines()]
    assert len(records) == 6 and not any("error" in r for r in records)
    for r in records:
        assert r["searches"] == 0  # the notes are the gold evidence, not what a search found
        if r["evidence_turns"]:
            assert r["evidence_recall"] == 1.0
        else:  # no evidence resolved: nothing to read, so nothing is claimed
            assert r["outcome"] == "not_found" and r["llm_calls"] == 0


def test_a_cache_a_mode_builds_on_one_questions_view_is_kept_for_the_next():
    from types import SimpleNamespace

    from refind_desktop.eval.exportqa import WithGold

    shared = SimpleNamespace(engine="the engine")
    view = WithGold(shared, [("s1", 2)])
    view.dense = "built once"  # a mode's per-set cache belongs to the shared services
    assert shared.dense == "built once" and WithGold(shared, []).dense == "built once"
    assert view.engine == "the engine" and view.gold.evidence_refs == [("s1", 2)]
    assert not hasattr(shared, "gold")  # the gold labels stay the question's own


class Scripted:
    """A runner whose answers and notes are given per question (the harness is what is tested)."""

    def __init__(self, answers: dict[str, tuple[str, bool, list[dict]]]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, object]] = []

    def __call__(self, svc, backend, mode, question, now, on_event):
        self.asked.append((question, now))
        answer, abstained, notes = self.answers[question]
        usage = {"prompt_tokens": 100, "llm_calls": 2, "searches": 1}
        return type(
            "R",
            (),
            {
                "to_json": lambda _s: {
                    "answer": answer,
                    "abstained": abstained,
                    "notes": notes,
                    "usage": usage,
                }
            },
        )()


def test_false_abstentions_evidence_and_items_are_counted(whatsapp, tmp_path):
    s = load_set(whatsapp)
    run0 = run_export(whatsapp, Settings(), None, factory=services_factory(), retrieval_only=True)
    assert run0.summary["backend"] is None and "qa" not in run0.summary
    svc = services_factory()(tmp_path / "peek")
    svc.ingestor.ingest(s.files())
    sid = next(iter(svc.catalog.iter_sessions())).sid
    svc.close()
    near_bike = [{"session_id": sid, "hit_turn": 2, "turns": [0, 1, 2, 3, 4]}]
    far = [{"session_id": sid, "hit_turn": 6, "turns": [4, 5, 6]}]
    by_q = {q.question: q for q in s.questions}
    answers = {q.question: ("No idea.", False, []) for q in s.questions}
    answers["What did Rafael fix?"] = ("Nothing in your chats mentions it.", True, near_bike)
    answers["When did Ines sign up for the pottery course?"] = ("On March 2nd, 2024 [S1 T0]", False, far)
    answers["What did Ines make and where will they celebrate?"] = ("At the tapas place.", False, near_bike)
    answers["What did Ines fix at the market?"] = ("That is not mentioned in your chats.", True, near_bike)
    runner = Scripted(answers)
    run = run_export(whatsapp, Settings(), runner, factory=services_factory(), out=tmp_path / "o", quiet=True)
    recs = {r["question"]: r for r in run.answers}
    assert recs["What did Rafael fix?"]["false_abstention"] is True
    assert recs["What did Ines fix at the market?"]["false_abstention"] is False  # abstaining is right
    assert recs["What did Ines fix at the market?"]["det_correct"] == 1.0
    assert recs["When did Ines sign up for the pottery course?"]["gold_items"] == 1.0
    assert recs["When did Ines sign up for the pottery course?"]["evidence_recall"] == 0.0
    assert recs["What did Ines make and where will they celebrate?"]["gold_items"] == 0.5
    assert recs["What did Ines make and where will they celebrate?"]["evidence_recall"] == 0.5
    overall = run.summary["qa"]["overall"]
    assert overall["false_abstentions"] == 1 and overall["abstained"] == 2
    assert overall["median_prompt_tokens"] == 100 and overall["mean_llm_calls"] == 2.0
    # each question is asked at its own `now`, after the chat's last message
    (asked_now,) = {now for _, now in runner.asked}
    assert asked_now.tzinfo is not None and asked_now.isoformat().startswith("2024-04-18T09:00")
    assert by_q["What did Rafael fix?"].now is not None


def _q(qid: str, category: str, file: str) -> SetQuestion:
    return SetQuestion(qid, "?", "", category, None, file=file)


def test_stratified_sample_spans_categories_and_chats():
    qs = [_q(f"a{i}", "count", "chat-a") for i in range(4)]
    qs += [_q(f"b{i}", "count", "chat-b") for i in range(2)] + [_q("a-when", "when", "chat-a")]
    assert [q.qid for q in stratified(qs, 4)] == ["a0", "a-when", "b0", "a1"]
    assert len(stratified(qs, None)) == 7


def test_a_set_without_a_questions_file_or_of_another_format_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="no questions.json"):
        load_set(tmp_path)
    (tmp_path / "questions.json").write_text('{"secret chat text": 1}', encoding="utf-8")
    with pytest.raises(ConfigError, match="format") as info:
        load_set(tmp_path)
    assert "secret" not in info.value.message
