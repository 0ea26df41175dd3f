"""benchmarks/checks_table.py: the outcome of a set of checks, from one run's records, aggregates only."""

from __future__ import annotations

import json

from helpers.scripts import benchmark


def record(qid: str, outcome: str, verdicts: dict, right: float = 0.0, draft_right: float = 0.0, **more):
    calls = [{"stage": "answer", "seconds": 3.0}, {"stage": "confirm", "seconds": 2.0}]
    return {
        "qid": qid,
        "question": f"secret question {qid}",
        "outcome": outcome,
        "verdicts": verdicts,
        "right": right,
        "wrong": float(outcome == "answer" and not right),
        "draft_right": draft_right,
        "draft_wrong": 1.0 - draft_right,
        "usage": {"total_seconds": 10.0, "llm_calls": 2, "per_call": calls},
        **more,
    }


def test_a_variant_ends_each_record_as_its_switched_off_checks_let_it(tmp_path, capsys):
    recs = [
        record("q1", "unsure", {"failed": ["about"], "about": False}, draft_right=1.0),  # rejected, was right
        record("q2", "answer", {"failed": []}, right=1.0),
        record("q3", "unsure", {"failed": [], "spoken": False, "names": True}),  # a turn named it
        record("q4", "unsure", {"failed": ["type", "about"]}, draft_right=0.0),
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    assert (
        benchmark("checks_table").main([str(path), "now=", "no-confirm=-about,-answers", "before=-names"])
        == 0
    )
    out = capsys.readouterr().out
    rows = {ln.split(" | ")[0].strip("| "): ln.split(" | ")[1:] for ln in out.splitlines()[2:]}
    n, right, wrong, unsure, nf, fnf, _gold, p50, _p90, calls = rows["now"]
    assert (n, right, wrong, unsure, nf, fnf) == ("4", "0.25", "0.00", "0.75", "0.00", "0")
    # the confirming reading off: q1 is stated as its draft was (right); q4 still fails its type; the
    # confirming reading's seconds and call are taken off every record
    n, right, wrong, unsure, nf, fnf, _gold, p50, _p90, calls = rows["no-confirm"]
    assert (right, unsure, p50, calls.strip(" |")) == ("0.50", "0.50", "8.00", "1")
    # the rule before: q3 would have been "not in your history", falsely
    n, right, wrong, unsure, nf, fnf, *_ = rows["before"]
    assert (nf, fnf) == ("0.25", "1")
    assert "secret" not in out and "q1" not in out  # aggregates only


def test_switching_off_the_typed_reading_takes_off_its_call_and_states_what_only_it_failed(tmp_path, capsys):
    typed = [{"stage": "answer", "seconds": 3.0}, {"stage": "named", "seconds": 1.0}]
    recs = [
        record("q1", "unsure", {"failed": ["named"], "named": False}, draft_right=1.0),
        record("q2", "unsure", {"failed": ["named", "about"], "named": False, "about": False}),
    ]
    for r in recs:
        r["usage"] = {
            "total_seconds": 10.0,
            "llm_calls": 3,
            "per_call": typed + [{"stage": "confirm", "seconds": 2.0}],
        }
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    assert benchmark("checks_table").main([str(path), "now=", "untyped=-named"]) == 0
    rows = {
        ln.split(" | ")[0].strip("| "): ln.split(" | ")[1:] for ln in capsys.readouterr().out.splitlines()[2:]
    }
    n, right, wrong, unsure, nf, fnf, _gold, p50, _p90, calls = rows["now"]
    assert (right, unsure, p50, calls.strip(" |")) == ("0.00", "1.00", "10.00", "3")
    n, right, wrong, unsure, nf, fnf, _gold, p50, _p90, calls = rows["untyped"]
    assert (right, unsure, p50, calls.strip(" |")) == ("0.50", "0.50", "9.00", "2")
