"""Gemini CLI reader: auto-saved sessions, `/chat save` checkpoints, the old prompt log, bad files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import gemini_cli
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "gemini_cli"
TMP = ROOT / ".gemini" / "tmp"
PROJECT = TMP / "3b5c0e9a7f1d2c4e6a8b0d2f4e6a8c0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c"
SESSION = PROJECT / "chats" / "session-2025-09-18T10-03-5e1f0c2a.json"
SAVED = (
    TMP / "7c1d9e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f2a4b6c8d" / "checkpoint-release-notes.json"
)
OLD_LOG = TMP / "0aa1bb2cc3dd4ee5ff60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6" / "logs.json"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(gemini_cli.parse(path, ctx)), ctx


def test_session_file_turns_titles_times_and_tool_output() -> None:
    [s], ctx = parse(SESSION)
    assert ctx.warnings == []
    assert s.session_id == "gemini-cli:5e1f0c2a-7b3d-4e9a-b1c2-3d4e5f6a7b8c"
    assert s.title == "why does the greenhouse sensor test fail on leap days?"
    assert s.started_at == datetime(2025, 9, 18, 10, 3, 12, 441000, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: why does the greenhouse sensor test fail on leap days?\n\nAssistant: "
    )
    # the tool call and its output stay in the turn, marked; the thoughts do not
    assert "[tool: Shell] command=pytest tests/test_sensor.py -q" in first.text
    assert "[tool output]\nCommand: pytest tests/test_sensor.py -q" in first.text
    assert "assert 366 == 365\n[end tool output]" in first.text
    assert "returns 366 on 29 February" in first.text
    assert "I should run pytest" not in first.text
    assert "Switched to model" not in first.text + second.text  # info lines are UI notices
    assert first.timestamp == datetime(2025, 9, 18, 10, 3, 12, 450000, tzinfo=UTC)
    assert first.turn_id == "a1f3e0c2-0001-4c1e-9a55-6d7c8b9a0e11"
    assert second.text == (
        "User: use calendar.isleap in the test then\n\n"
        "Assistant: Done: the test now expects `366 if calendar.isleap(year) else 365`."
    )


def test_saved_chat_drops_setup_context_and_keeps_tool_use() -> None:
    [s], ctx = parse(SAVED)
    assert s.title == "release-notes"
    assert s.session_id.startswith("gemini-cli:saved:")
    [t] = s.turns
    assert t.text.startswith(
        "User: draft release notes for v1.4 from the git log\n\nAssistant: I will read the log."
    )
    assert "[tool: run_shell_command] command=git log --oneline v1.3..HEAD" in t.text
    assert "a1b2c3d fix leap-day watering" in t.text
    assert t.text.endswith("## v1.4\n- Fixed: watering on leap days\n- New: humidity alarm")
    assert "planning the sections" not in t.text and "setting up the context" not in t.text
    assert s.started_at is None and t.timestamp is None  # saved chats carry no times


def test_old_prompt_log_without_chats_folder() -> None:
    [s], ctx = parse(OLD_LOG)
    assert s.session_id == "gemini-cli:11111111-2222-4333-8444-555555555555"
    assert [t.text for t in s.turns] == ["User: explain the humidity alarm threshold"]
    assert s.started_at == datetime(2025, 6, 30, 7, 15, tzinfo=UTC)
    assert any("row 2 has no message" in w for w in ctx.warnings)


def test_detection_by_path_and_content(tmp_path: Path) -> None:
    assert detect_file(SESSION) == "gemini_cli"
    assert detect_file(SAVED) == "gemini_cli"
    copy = tmp_path / "exported.json"  # outside ~/.gemini: recognised by its keys
    copy.write_bytes(SESSION.read_bytes())
    assert detect_file(copy) == "gemini_cli"
    with pytest.raises(UndetectedError, match="prompt log"):
        detect_file(PROJECT / "logs.json")  # the chats folder next to it is read instead


def test_folder_walk_reads_chats_and_skips_the_rest_with_reasons() -> None:
    sources, skipped = discover([ROOT])
    found = {(s.path.relative_to(ROOT).as_posix(), s.format) for s in sources}
    assert found == {
        (SESSION.relative_to(ROOT).as_posix(), "gemini_cli"),
        (SAVED.relative_to(ROOT).as_posix(), "gemini_cli"),
        (OLD_LOG.relative_to(ROOT).as_posix(), "gemini_cli"),
        ("malformed/.gemini/tmp/badhash/chats/session-2025-09-19T08-00-deadbeef.json", "gemini_cli"),
    }
    assert skipped == []  # the duplicate prompt log and the tool checkpoints are not chats


def test_malformed_session_is_a_clear_parse_error() -> None:
    bad = ROOT / "malformed/.gemini/tmp/badhash/chats/session-2025-09-19T08-00-deadbeef.json"
    with pytest.raises(ParseError, match="not valid JSON.*Gemini CLI chat"):
        parse(bad)
