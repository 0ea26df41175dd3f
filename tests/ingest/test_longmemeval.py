"""LongMemEval parser: distinct haystack sessions, dates, turn ids that map `has_answer` labels."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import longmemeval
from refind_desktop.ingest.base import ParseContext


def parse(path: Path, ctx: ParseContext | None = None) -> tuple[list, ParseContext]:
    ctx = ctx or ParseContext()
    return list(longmemeval.parse(path, ctx)), ctx


def test_mini_fixture_dedupes_shared_filler_session(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "longmemeval" / "longmemeval_mini.json")
    assert ctx.warnings == []
    assert [s.session_id for s in sessions] == [
        "lme:sharegpt_Qx7Lm2a_0",
        "lme:answer_e7a1c2d3_1",
        "lme:ultrachat_512233",
        "lme:answer_e7a1c2d3_2",
    ]
    s = sessions[1]
    assert s.started_at == datetime(2023, 5, 14, 21, 40, tzinfo=UTC)
    assert s.title == ""
    [t] = s.turns
    assert t.text == (
        "User: I just signed up at FitLoop downtown. What should a beginner leg day look like?\n\n"
        "Assistant: Start with goblet squats, Romanian deadlifts and walking lunges, 3 sets each."
    )
    assert t.turn_id == "lme:answer_e7a1c2d3_1:0"
    assert t.timestamp == s.started_at


@pytest.mark.parametrize("name", ["longmemeval_edge.json", "longmemeval_edge.json.gz"])
def test_edge_file_plain_and_gzipped(fixtures: Path, name: str) -> None:
    sessions, ctx = parse(fixtures / "longmemeval" / name)
    assert [s.session_id for s in sessions] == ["lme:s_a", "lme:s_b", "lme:s_c"]
    s_a = sessions[0]
    assert [t.text for t in s_a.turns] == [
        "Assistant: Hi! How can I help today?",
        "User: I'm back from Lisbon.\n\nAssistant: Welcome back!",
        "User: I also visited Porto.\n\nAssistant: Porto is lovely.\n\nDid you try the francesinha?",
    ]
    # turn_id = index of the turn's first message in the session's message list
    assert [t.turn_id for t in s_a.turns] == ["lme:s_a:0", "lme:s_a:1", "lme:s_a:3"]
    assert s_a.started_at == datetime(2024, 1, 2, 23, 5, tzinfo=UTC)  # first copy's date wins
    assert sessions[1].turns[0].text == "User: Plan a week of dinners.\n\nAssistant: Mon: soup; Tue: pasta."
    assert sessions[2].started_at is None
    assert len(ctx.warnings) == 3
    assert "session s_a appears again (question q2) with different content" in ctx.warnings[0]
    assert "s_c: unreadable date (a 10-character text)" in ctx.warnings[1]
    assert "element 3 is not a LongMemEval question" in ctx.warnings[2]
    assert not ctx.incomplete


def test_has_answer_labels_map_to_turn_ids(fixtures: Path) -> None:
    raw = json.loads((fixtures / "longmemeval" / "longmemeval_edge.json").read_text())
    sessions, _ = parse(fixtures / "longmemeval" / "longmemeval_edge.json")
    turn_ids = {t.turn_id for s in sessions for t in s.turns}
    sid = raw[0]["haystack_session_ids"][0]
    labelled = [i for i, m in enumerate(raw[0]["haystack_sessions"][0]) if m.get("has_answer")]
    assert labelled == [3]
    assert f"lme:{sid}:{labelled[0]}" in turn_ids


def test_naive_dates_are_read_in_the_context_zone(fixtures: Path) -> None:
    ctx = ParseContext(tz=timezone(timedelta(hours=2)))
    sessions, _ = parse(fixtures / "longmemeval" / "longmemeval_mini.json", ctx)
    assert sessions[0].started_at == datetime(2023, 5, 11, 6, 14, tzinfo=UTC)


def test_truncated_file_keeps_what_was_read(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "longmemeval" / "longmemeval_truncated.json")
    assert [s.session_id for s in sessions] == ["lme:s_a", "lme:s_b"]
    assert ctx.incomplete
    assert "truncated or corrupt" in ctx.warnings[-1]
    assert "\n" not in ctx.warnings[-1]


def test_not_a_question_array_raises(fixtures: Path, tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no LongMemEval questions"):
        parse(fixtures / "longmemeval" / "not_a_list.json")
    empty = tmp_path / "longmemeval_s.json"
    empty.write_text("")
    with pytest.raises(ParseError, match="not readable as LongMemEval JSON"):
        parse(empty)


def test_parse_date() -> None:
    assert longmemeval.parse_date("2023/05/20 (Sat) 02:21", UTC) == datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    assert longmemeval.parse_date("2023/5/2 14:00", UTC) == datetime(2023, 5, 2, 14, 0, tzinfo=UTC)
    assert longmemeval.parse_date("yesterday", UTC) is None
    assert longmemeval.parse_date(None, UTC) is None


def test_many_questions_stream_from_gzip(tmp_path: Path) -> None:
    """A benchmark-sized file: questions whose haystacks share sessions, gzipped; each session once."""
    pool = [f"pool_{n}" for n in range(900)]

    def session(sid: str) -> list[dict]:
        return [
            {"role": "user", "content": f"note {sid}: the spare key is under pot {sid[-2:]}"},
            {"role": "assistant", "content": f"Noted for {sid}."},
        ]

    questions, used = [], set()
    for q in range(120):
        ids = [pool[(q * 37 + k * 11) % len(pool)] for k in range(40)] + [f"answer_{q}"]
        used.update(ids)
        questions.append(
            {
                "question_id": f"q{q}",
                "question": "Where is the spare key?",
                "answer": "under a pot",
                "question_date": "2023/06/02 (Fri) 19:05",
                "haystack_session_ids": ids,
                "haystack_dates": [
                    f"2023/05/{1 + k % 28:02d} (Mon) 10:{k % 60:02d}" for k in range(len(ids))
                ],
                "haystack_sessions": [session(sid) for sid in ids],
            }
        )
    path = tmp_path / "longmemeval_many.json.gz"
    path.write_bytes(gzip.compress(json.dumps(questions).encode()))
    sessions, ctx = parse(path)
    assert ctx.warnings == [] and not ctx.incomplete
    assert len(sessions) == len({s.session_id for s in sessions}) == len(used)
    assert all(s.started_at is not None and len(s.turns) == 1 for s in sessions)
