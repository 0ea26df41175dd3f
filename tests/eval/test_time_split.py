"""benchmarks/time_split.py: a run's model seconds by stage, and the machine's rates fitted from its calls."""

from __future__ import annotations

import json

import pytest
from helpers.scripts import benchmark


def call(stage: str, new: int, generated: int) -> dict:
    # a machine that reads 50 new prompt tokens a second and writes 20 tokens a second
    seconds = new * 0.02 + generated * 0.05
    return {
        "stage": stage,
        "prompt_tokens": new + 100,
        "reprocessed_prompt_tokens": new,
        "completion_tokens": generated,
        "seconds": seconds,
    }


def records() -> list[dict]:
    return [
        {
            "qid": "q1",
            "question": "secret question one",
            "type": "multi-session",
            "usage": {
                "per_call": [call("controller", 300, 10), call("answer", 400, 40), call("answer", 350, 30)]
            },
        },
        {
            "qid": "q2",
            "question": "secret question two",
            "type": "single-session-preference",
            "usage": {"per_call": [call("answer", 900, 90)]},
        },
        {  # an export_qa.py record keeps its calls at the top
            "qid": "q3",
            "question": "secret question three",
            "per_call": [call("controller", 200, 12), call("answer", 250, 50), call("confirm", 280, 10)],
        },
    ]


def test_stages_split_the_seconds_and_the_fit_finds_the_machine_rates(tmp_path, capsys):
    ts = benchmark("time_split")
    recs = records()
    kept = [recs[0], recs[2]]
    rows = {r["stage"]: r for r in ts.stages(kept)}
    assert list(rows) == ["controller", "answer", "confirm"]
    assert rows["answer"]["calls_per_q"] == pytest.approx(1.5)  # three readings over two questions
    assert rows["answer"]["new_prompt"] == pytest.approx((400 + 350 + 250) / 3)
    assert rows["answer"]["s_per_q"] == pytest.approx((10.0 + 8.5 + 7.5) / 2)
    assert sum(r["share"] for r in rows.values()) == pytest.approx(1.0)
    assert ts.rates(kept) == pytest.approx((0.02, 0.05))

    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    assert ts.main([f"run={path}"]) == 0
    out = capsys.readouterr().out
    assert "| run (2) | answer | 1.50 | 333 | 40.0 | 8.67 | 13.0 |" in out  # the preference question left out
    assert "run: 0.0200 s a new prompt token (50 tokens/s), 0.0500 s a generated token (20.0 tokens/s)" in out
    assert "secret" not in out and "q1" not in out  # aggregates only
    assert ts.main([f"run={path}", "--all"]) == 0
    assert "| run (3) | answer |" in capsys.readouterr().out


def test_rates_need_calls_that_differ():
    ts = benchmark("time_split")
    same = [{"usage": {"per_call": [call("answer", 100, 10), call("answer", 100, 10)]}}]
    assert ts.rates(same) is None  # one kind of call cannot tell the two rates apart
