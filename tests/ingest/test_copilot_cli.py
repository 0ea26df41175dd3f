"""Copilot CLI reader: session folders, the older flat event logs and history-session-state files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import agent_paths, copilot_cli
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "copilot_cli" / ".copilot"
SESSION = ROOT / "session-state" / "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f" / "events.jsonl"
FLAT = ROOT / "session-state" / "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901.jsonl"
LEGACY = ROOT / "history-session-state" / "session_9d8c7b6a_1751300000000.json"
BROKEN = ROOT / "session-state" / "7a7a7a7a-0000-4000-8000-000000000001" / "events.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(copilot_cli.parse(path, ctx)), ctx


def test_session_folder_keeps_user_and_assistant_text_tools_and_times() -> None:
    [s], ctx = parse(SESSION)
    assert ctx.warnings == []
    assert s.session_id == "copilot-cli:6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
    assert s.title == "Irrigation timer skips Sundays"  # workspace.yaml summary
    assert s.started_at == datetime(2026, 2, 11, 8, 30, 0, 120000, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: why does the irrigation timer skip Sundays?\n\nAssistant: Let me look"
    )
    assert "[tool: bash] command=grep -n weekday src/timer.py\n[tool output]\n41:" in first.text
    assert first.text.endswith("remove that early return.")
    assert first.timestamp == datetime(2026, 2, 11, 8, 30, 5, tzinfo=UTC)
    assert first.turn_id == "e004-6f1c2d3e"
    assert second.text == (
        "User: remove it and run the tests\n[attached: timer.py]\n\n"
        "Assistant: Removed the early return; all 12 timer tests pass."
    )
    text = first.text + second.text
    # the system prompt, the model-facing rewrite of the prompt, reasoning, streaming deltas and
    # sub-agent events stay out of the searchable text
    for absent in ("quokkaframe", "current_datetime", "off by one", "subagent task", "subagent report"):
        assert absent not in text
    assert text.count("Line 41 treats weekday 6") == 1


def test_flat_event_log_of_older_versions() -> None:
    [s], _ = parse(FLAT)
    assert s.session_id == "copilot-cli:2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901"
    [t] = s.turns
    assert t.text.startswith("User: what does the --dry-run flag of the seed importer do?")
    assert t.timestamp == datetime(2025, 11, 3, 17, 2, 10, tzinfo=UTC)


def test_history_session_state_file_drops_the_system_row_and_keeps_tool_output() -> None:
    [s], _ = parse(LEGACY)
    assert s.session_id == "copilot-cli:9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
    [t] = s.turns
    assert t.text.startswith("User: rename the pumpkin model to squash everywhere\n\nAssistant: I'll search")
    assert "[tool: bash] command=grep -rl Pumpkin models/\n[tool output]\nmodels/pumpkin.py" in t.text
    assert "interactive CLI tool" not in t.text
    assert t.timestamp == datetime(2025, 6, 30, 16, 53, 20, tzinfo=UTC)


def test_broken_log_is_a_clear_skip_without_its_contents() -> None:
    with pytest.raises(ParseError) as err:
        parse(BROKEN)
    assert "not a Copilot CLI event log" in str(err.value) and "garbage" not in str(err.value)


def test_torn_last_line_waits_and_unknown_events_are_tolerated(tmp_path: Path) -> None:
    log = tmp_path / ".copilot" / "session-state" / "abc" / "events.jsonl"
    log.parent.mkdir(parents=True)
    lines = [
        {"type": "session.start", "data": {"sessionId": "abc", "producer": "copilot-agent"}, "id": "1"},
        {"type": "brand.new_event", "data": {"x": [1, 2]}, "id": "2"},
        {"type": "user.message", "data": {"content": "is the pond pump on a timer?"}, "id": "3"},
    ]
    torn = '{"type": "assistant.message", "data": {"content": "Yes, every'
    log.write_text("".join(json.dumps(r) + "\n" for r in lines) + torn)
    [s], ctx = parse(log)
    assert [t.text for t in s.turns] == ["User: is the pond pump on a timer?"]
    assert any("incomplete" in w for w in ctx.warnings)
    with log.open("a") as f:
        f.write(' two hours."}}\n')
    [s], _ = parse(log)
    assert s.turns[0].text.endswith("Assistant: Yes, every two hours.")


def test_detection_by_path_and_by_first_line(tmp_path: Path) -> None:
    assert detect_file(SESSION) == "copilot_cli"
    assert detect_file(LEGACY) == "copilot_cli"
    moved = tmp_path / "elsewhere" / "events.jsonl"  # COPILOT_HOME somewhere else
    moved.parent.mkdir()
    moved.write_bytes(SESSION.read_bytes())
    assert detect_file(moved) == "copilot_cli"
    # workspace.yaml, checkpoints and logs are passed over by the walk without a skip line
    assert agent_paths.ignored(SESSION.parent / "workspace.yaml")
    assert agent_paths.pruned(SESSION.parent / "checkpoints") and agent_paths.pruned(ROOT / "logs")
    assert not agent_paths.ignored(SESSION)
    with pytest.raises(UndetectedError):
        detect_file(tmp_path / "missing.jsonl")


def test_title_from_a_yaml_block_summary(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "events.jsonl").write_bytes(SESSION.read_bytes())
    (folder / "workspace.yaml").write_text(
        "id: s\nsummary: |-\n  Fix the Sunday watering gap\nsummary_count: 2\n"
    )
    [s], _ = parse(folder / "events.jsonl")
    assert s.title == "Fix the Sunday watering gap"
