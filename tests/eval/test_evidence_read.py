"""benchmarks/evidence_read.py: where the answer turn was lost (not found, not read, read), aggregates only."""

from __future__ import annotations

import json

from helpers.scripts import benchmark


def _session(*pairs: tuple[str, bool]) -> list[dict]:
    out = []
    for text, answer in pairs:
        out.append({"role": "user", "content": text, "has_answer": answer})
        out.append({"role": "assistant", "content": "Noted."})
    return out


def _item(qid: str, sessions: dict[str, list[dict]], qtype: str = "single-session-user") -> dict:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": f"secret question {qid}",
        "answer": "secret answer",
        "question_date": "2023/03/01 (Wed) 10:00",
        "haystack_session_ids": list(sessions),
        "haystack_dates": ["2023/01/05 (Thu) 09:00"] * len(sessions),
        "haystack_sessions": list(sessions.values()),
        "answer_session_ids": [sid for sid, s in sessions.items() if any(m.get("has_answer") for m in s)],
    }


def _record(qid: str, reads: list[tuple[str, list[int]]], notes: list[tuple[str, int]], **outcome) -> dict:
    trajectory = [{"type": "note", "saved": [{"session_id": s, "turn": t} for s, t in notes]}]
    trajectory += [{"type": "read", "session_id": s, "turns": turns, "items": []} for s, turns in reads]
    rec = {"qid": qid, "type": "single-session-user", "question": f"secret question {qid}"}
    return rec | {"trajectory": trajectory, "draft_right": 0.0, "right": 0.0, "wrong": 0.0} | outcome


def test_each_question_falls_where_its_answer_turn_was_lost(tmp_path, capsys):
    # the answer is the user's second message of session "a" (turn 1), or of session "c" (turn 0)
    two = _session(("hello there", False), ("the blue bicycle", True))
    items = [
        _item("read", {"a": two, "b": _session(("other", False))}),
        _item("other-turns", {"a": two}),
        _item("unread", {"a": two}),
        _item("lost", {"a": two, "b": _session(("other", False))}),
        _item("pref", {"a": two}, qtype="single-session-preference"),
    ]
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(items), encoding="utf-8")
    recs = [
        _record("read", [("lme:b", [0]), ("lme:a", [0, 1])], [("lme:a", 1)], draft_right=1.0, right=1.0),
        _record("other-turns", [("lme:a", [0])], [("lme:a", 0)], wrong=1.0),  # its session, not its turn
        _record("unread", [("lme:x", [0])], [("lme:x", 0), ("lme:a", 1)]),  # kept, never read
        _record("lost", [("lme:b", [0])], [("lme:b", 0)], wrong=1.0),
        _record("pref", [("lme:a", [1])], [("lme:a", 1)], type="single-session-preference", right=1.0),
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    assert benchmark("evidence_read").main([str(path), "--data", str(data)]) == 0
    out = capsys.readouterr().out
    rows = {
        ln.split(" | ")[0].strip("| "): ln.strip("| ").split(" | ")[1:]
        for ln in out.splitlines()
        if "|" in ln
    }
    assert rows["all"][0] == "4"  # the preference question is left out
    assert rows["read"] == ["1", "0.25", "1", "1", "0"]
    assert rows["noted, not read: session read"] == ["1", "0.25", "0", "0", "1"]
    assert rows["noted, not read: session unread"] == ["1", "0.25", "0", "0", "0"]
    assert rows["not noted"] == ["1", "0.25", "0", "0", "1"]
    assert "secret" not in out and "other-turns" not in out  # aggregates only


def test_records_without_a_trajectory_are_refused(tmp_path, capsys):
    data = tmp_path / "lme.json"
    data.write_text(json.dumps([_item("q", {"a": _session(("the answer", True))})]), encoding="utf-8")
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"qid": "q", "type": "single-session-user", "right": 1.0}), encoding="utf-8")
    assert benchmark("evidence_read").main([str(path), "--data", str(data)]) == 2
    assert "no trajectory" in capsys.readouterr().err
