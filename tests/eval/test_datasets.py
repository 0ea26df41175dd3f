"""Benchmark loaders on small files in the official LongMemEval and LoCoMo formats."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from refind_desktop.errors import ConfigError, ParseError
from refind_desktop.eval.datasets import load_units

EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "eval"


def test_longmemeval_units_labels_and_skips():
    units = list(load_units("longmemeval", EVAL / "longmemeval_tiny.json"))
    assert [u.unit_id for u in units] == ["ku001", "ssu002_abs", "ssu003"]
    ku = units[0].questions[0]
    # duplicate answer_session_ids collapse, in gold order, into the index's id space
    assert ku.answer_sessions == ["lme:ans_ku_1", "lme:ans_ku_2"]
    # has_answer on a user message and on a second assistant reply both map to their turn
    assert ku.evidence_turns == ["lme:ans_ku_1:2", "lme:ans_ku_2:2"]
    assert ku.date is not None and ku.date.isoformat() == "2023-10-22T15:38:00+00:00"
    assert ku.answer == "four" and not ku.abstention
    # each question gets its own haystack only
    assert [s.session_id for s in units[1].sessions] == ["lme:filler_a", "lme:ans_abs"]
    assert units[1].questions[0].abstention
    tel = units[2].questions[0]
    assert tel.unresolved == ["lme:ans_missing"] and tel.answer_sessions == ["lme:ans_tel"]
    # a session that opens with an assistant message: the labelled user message starts turn 1
    assert tel.evidence_turns == ["lme:ans_tel:1"]


def test_locomo_unit_evidence_resolution():
    (unit,) = list(load_units("locomo", EVAL / "locomo_tiny.json"))
    assert unit.unit_id == "conv-t1"
    assert [s.session_id for s in unit.sessions] == ["locomo:conv-t1:session_1", "locomo:conv-t1:session_2"]
    q0, q1, q2, q3 = unit.questions
    assert q0.qtype == "4-single-hop" and q0.evidence_turns == ["D1:2"]
    # "D1:1; D2:2" in one string is two evidence ids in two sessions
    assert q1.evidence_turns == ["D1:1", "D2:2"]
    assert q1.answer_sessions == ["locomo:conv-t1:session_1", "locomo:conv-t1:session_2"]
    assert q2.unresolved == ["D9:9"] and q2.answer == "2023"
    # adversarial questions carry their reference in adversarial_answer
    assert q3.category == 5 and q3.answer == "self-care is important"
    # the image caption is part of the indexed text
    assert "[image: a photo of an acoustic guitar]" in unit.sessions[0].turns[2].text


def test_limit_and_gzip(tmp_path: Path):
    gz = tmp_path / "lme.json.gz"
    with open(EVAL / "longmemeval_tiny.json", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    assert [u.unit_id for u in load_units("longmemeval", gz, limit=2)] == ["ku001", "ssu002_abs"]
    (unit,) = list(load_units("locomo", EVAL / "locomo_tiny.json", limit=2))
    assert len(unit.questions) == 2


def test_bad_inputs(tmp_path: Path):
    with pytest.raises(ConfigError):
        list(load_units("msc", EVAL / "locomo_tiny.json"))
    with pytest.raises(ConfigError):
        list(load_units("locomo", tmp_path / "missing.json"))
    wrong = tmp_path / "wrong.json"
    wrong.write_text('[{"hello": 1}]')
    with pytest.raises(ParseError):
        list(load_units("locomo", wrong))
    with pytest.raises(ParseError):
        list(load_units("longmemeval", wrong))


def test_a_sample_of_one_question_type():
    units = list(load_units("longmemeval", EVAL / "longmemeval_tiny.json", sample="type:single-session-user"))
    assert [u.unit_id for u in units] == ["ssu002_abs", "ssu003"]
    units = list(load_units("longmemeval", EVAL / "longmemeval_tiny.json", sample="type:knowledge-update"))
    assert [u.unit_id for u in units] == ["ku001"]
    assert list(load_units("longmemeval", EVAL / "longmemeval_tiny.json", sample="type:no-such-type")) == []
