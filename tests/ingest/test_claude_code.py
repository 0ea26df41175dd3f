"""Claude Code transcript parser: prompts, merged API responses, skipped harness lines, torn tails."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import claude_code
from refind_desktop.ingest.base import ParseContext

MAIN = "-home-dana-src-garden-app/5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(claude_code.parse(path, ctx)), ctx


def test_spec_fixture_one_turn_with_custom_title(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "claude_code" / MAIN)
    assert ctx.warnings == []
    [s] = sessions
    assert s.session_id == "claude-code:5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11"
    assert s.title == "Leap-year watering bug"  # custom-title wins over summary
    assert s.started_at == datetime(2025, 6, 11, 8, 59, 58, tzinfo=UTC)  # first line's timestamp
    assert s.participants == ["user", "assistant"]
    [t] = s.turns
    assert t.text == (
        "User: Why does the watering schedule test fail on leap years?\n\n"
        "Assistant: Let me look at the scheduler.\n\n"
        "`DAYS_PER_YEAR` is hard-coded to 365, so day 366 wraps to 0. "
        "Use `calendar.isleap(year)` to pick 365 or 366."
    )
    assert "hard-coded 365." not in t.text  # thinking dropped
    assert "DAYS_PER_YEAR = 365" not in t.text  # tool_result dropped
    assert t.turn_id == "u-0001"
    assert t.timestamp == datetime(2025, 6, 11, 9, 0, tzinfo=UTC)
    assert t.speaker == "user+assistant"


def test_edge_cases_and_torn_last_line(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "claude_code" / "edge" / "torn.jsonl")
    [s] = sessions
    assert s.session_id == "claude-code:aa11bb22-0000-4000-8000-000000000001"
    assert s.title == "Grocery list cleanup"  # summary whose leafUuid is in the session
    assert s.started_at == datetime(2026, 2, 18, 11, 30, tzinfo=UTC)
    assert [t.text for t in s.turns] == [
        # system-reminder stripped, base64 image dropped, split response merged once (duplicate uuid),
        # sidechain/interrupt/compact-summary/command-stdout lines skipped
        "User: Sort my grocery list by aisle.\n\n"
        "Assistant: Here it is, by aisle:\n\nProduce: apples. Dairy: milk.",
        "User: Now add eggs.\n\nAssistant: Dairy: milk, eggs.",
    ]
    assert [t.turn_id for t in s.turns] == ["u-11", "u-12"]
    assert [t.index for t in s.turns] == [0, 1]
    assert s.turns[0].timestamp == datetime(2026, 2, 18, 11, 30, 21, 796000, tzinfo=UTC)
    assert "iVBORw0KGgo" not in s.turns[0].text
    assert len(ctx.warnings) == 2
    assert "line 8 is not valid JSON" in ctx.warnings[0]
    assert "last line 16 is incomplete" in ctx.warnings[1]


def test_two_sessions_in_one_file(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "claude_code" / "edge" / "two_sessions.jsonl")
    assert ctx.warnings == []
    assert [(s.session_id, s.title) for s in sessions] == [
        ("claude-code:aa11bb22-0000-4000-8000-000000000001", "Renamed first"),  # last custom-title
        ("claude-code:cc33dd44-0000-4000-8000-000000000002", "Second session title"),
    ]
    assert [s.turns[0].text for s in sessions] == [
        "User: First session question\n\nAssistant: First session answer",
        "User: Second session question\n\nAssistant: Second session answer",
    ]
    assert sessions[1].started_at == datetime(2026, 3, 2, 9, tzinfo=UTC)


@pytest.mark.parametrize("name", ["empty.jsonl", "summary_only.jsonl"])
def test_files_without_turns_yield_nothing(fixtures: Path, name: str) -> None:
    sessions, ctx = parse(fixtures / "claude_code" / "edge" / name)
    assert sessions == []
    assert ctx.warnings == []


def test_not_jsonl_raises_parse_error(fixtures: Path) -> None:
    with pytest.raises(ParseError, match="garbage.jsonl"):
        parse(fixtures / "claude_code" / "edge" / "garbage.jsonl")


def test_only_a_torn_line_never_raises(tmp_path: Path) -> None:
    p = tmp_path / "live.jsonl"
    p.write_text('{"type":"user","sessionId":"s","message":{"role":"user","content":"hel')
    sessions, ctx = parse(p)
    assert sessions == []
    assert len(ctx.warnings) == 1


def test_title_falls_back_to_first_prompt_and_session_to_file_stem(tmp_path: Path) -> None:
    p = tmp_path / "f00d.jsonl"
    p.write_text(
        '{"type":"user","uuid":"u1",'
        '"message":{"role":"user","content":"Plan my week\\nin detail"}}\n'
        '{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant",'
        '"content":"Sure."}}\n'
    )
    [s], _ = parse(p)
    assert (s.session_id, s.title, s.started_at) == ("claude-code:f00d", "Plan my week", None)
    assert s.turns[0].text == "User: Plan my week\nin detail\n\nAssistant: Sure."
