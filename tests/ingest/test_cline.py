"""Cline / Roo Code reader: task folders from ui_messages.json, or the API history when that is all."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import cline
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "cline"
GLOBAL = ROOT / "Code" / "User" / "globalStorage"
TASK = GLOBAL / "saoudrizwan.claude-dev" / "tasks" / "1730451234567"
ROO = GLOBAL / "rooveterinaryinc.roo-cline" / "tasks" / "0f4b7c2e-91d3-4a5e-b6f7-c8d9e0a1b2c3"
BROKEN = GLOBAL / "saoudrizwan.claude-dev" / "tasks" / "1730999999999" / "ui_messages.json"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(cline.parse(path, ctx)), ctx


def test_ui_messages_make_turns_with_tool_use_marked() -> None:
    [s], ctx = parse(TASK / "ui_messages.json")
    assert s.session_id == "cline:1730451234567"
    assert s.title == "Add a --dry-run flag to the watering CLI"
    assert s.started_at == datetime(2024, 11, 1, 8, 53, 54, 567000, tzinfo=UTC)
    task, readme, section = s.turns
    assert task.text.startswith(
        "User: Add a --dry-run flag to the watering CLI\n\nAssistant: I'll start by reading the CLI module."
    )
    assert "[tool: readFile] path=watering/cli.py" in task.text
    assert "[tool: editedExistingFile] path=watering/cli.py\n[tool output]\n@@ -12,3 +12,4 @@" in task.text
    assert "[tool: command] python -m pytest -q tests/test_cli.py" in task.text
    assert "[tool: command output]\n[tool output]\n....\n4 passed in 0.31s\n[end tool output]" in task.text
    assert task.text.endswith("Added `--dry-run`: it prints the schedule without opening any valve.")
    for noise in ("tokensIn", "I need to see how", "partial fragment"):
        assert noise not in task.text  # api requests, reasoning and streaming fragments are not chat
    assert readme.text == (
        "User: also mention it in the README\n\n"
        "Assistant: Which README section should it go in?\n(options: Usage, Options)"
    )
    assert readme.timestamp == datetime(2024, 11, 1, 8, 55, 1, tzinfo=UTC)
    assert section.text == "User: Usage\n\nAssistant: Documented `--dry-run` under Usage."
    assert ctx.warnings == [f"{TASK / 'ui_messages.json'}: entry 16 is not an object; skipped"]


def test_roo_task_with_only_the_api_history() -> None:
    [s], ctx = parse(ROO / "api_conversation_history.json")
    assert s.session_id == "roo:0f4b7c2e-91d3-4a5e-b6f7-c8d9e0a1b2c3"
    assert s.title == "why is the humidity sensor reading 0 at boot?"
    first, second = s.turns
    assert first.text.startswith(
        "User: why is the humidity sensor reading 0 at boot?\n\nAssistant: Let me search for the sensor init."
    )
    assert "<environment_details>" not in first.text and "check the init order" not in first.text
    assert (
        "[tool: search_files for 'sensor.begin']\n[tool output]\nsrc/main.cpp:14: sensor.begin();"
        in first.text
    )
    # a tool result answers the call before it, so it closes the earlier turn
    assert first.text.endswith("Swap the two lines.\n\n[tool: attempt_completion]")
    assert second.text == "User: swap them for me\n\nAssistant: Swapped: `Wire.begin()` now runs first."
    assert first.timestamp == datetime(2025, 1, 14, 7, 2, 11, tzinfo=UTC)
    assert any("message 6 has no user/assistant role" in w for w in ctx.warnings)


def test_walk_reads_one_file_per_task_and_reports_broken_ones() -> None:
    sources, skipped = discover([ROOT])
    assert sorted((s.path.relative_to(GLOBAL).as_posix(), s.format) for s in sources) == [
        (
            "rooveterinaryinc.roo-cline/tasks/0f4b7c2e-91d3-4a5e-b6f7-c8d9e0a1b2c3/api_conversation_history.json",
            "cline",
        ),
        ("saoudrizwan.claude-dev/tasks/1723000000000/claude_messages.json", "cline"),
        ("saoudrizwan.claude-dev/tasks/1730451234567/ui_messages.json", "cline"),
        ("saoudrizwan.claude-dev/tasks/1730999999999/ui_messages.json", "cline"),
    ]
    assert skipped == []  # the api history next to ui_messages.json and task_metadata.json are not chats
    with pytest.raises(UndetectedError, match="ui_messages.json is read instead"):
        detect_file(TASK / "api_conversation_history.json")


def test_malformed_task_file_is_a_clear_error() -> None:
    with pytest.raises(ParseError, match="holds a JSON array, found dict"):
        parse(BROKEN)


def test_ui_messages_detected_by_content_outside_a_task_folder(tmp_path: Path) -> None:
    copy = tmp_path / "ui.json"
    copy.write_bytes((TASK / "ui_messages.json").read_bytes())
    assert detect_file(copy) == "cline"


def test_claude_dev_era_task_uses_claude_messages_json() -> None:
    task = GLOBAL / "saoudrizwan.claude-dev" / "tasks" / "1723000000000"
    [s], _ = parse(task / "claude_messages.json")
    assert s.session_id == "cline:1723000000000"
    assert s.turns[0].text.startswith(
        "User: list the TODO comments in the watering module\n\nAssistant: There are two"
    )
    assert list(cline.parse(task / "api_conversation_history.json", ParseContext())) == []
