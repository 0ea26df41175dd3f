"""Stratified sampling of LongMemEval questions covers every question type."""

from __future__ import annotations

import json
from pathlib import Path

from refind_desktop.eval.datasets import load_units, stratified_picks


def _item(qid: str, qtype: str) -> dict:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": f"q {qid}?",
        "answer": "a",
        "question_date": "2023/05/20 (Sat) 02:21",
        "haystack_session_ids": ["s1"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00"],
        "answer_session_ids": ["s1"],
        "haystack_sessions": [
            [{"role": "user", "content": f"hello {qid}"}, {"role": "assistant", "content": "hi"}]
        ],
    }


def test_stratified_picks_round_robin_across_types(tmp_path: Path):
    items = [
        _item("a1", "A"),
        _item("a2", "A"),
        _item("a3", "A"),
        _item("b1", "B"),
        _item("c1", "C"),
        _item("b2", "B"),
    ]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(items))
    assert stratified_picks(path, 4) == [1, 4, 5, 2]  # A, B, C, then A again
    got = [q.qid for u in load_units("longmemeval", path, 4, sample="stratified") for q in u.questions]
    assert got == ["a1", "b1", "c1", "a2"]  # round-robin order
    first = [q.qid for u in load_units("longmemeval", path, 4) for q in u.questions]
    assert first == ["a1", "a2", "a3", "b1"]


def test_abstention_sample_takes_only_the_abs_questions(tmp_path: Path):
    items = [_item("a1", "A"), _item("a2_abs", "A"), _item("b1", "B"), _item("b2_abs", "B")]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(items))
    got = [q.qid for u in load_units("longmemeval", path, None, sample="abstention") for q in u.questions]
    assert got == ["a2_abs", "b2_abs"]
    assert all(
        q.abstention for u in load_units("longmemeval", path, 1, sample="abstention") for q in u.questions
    )
