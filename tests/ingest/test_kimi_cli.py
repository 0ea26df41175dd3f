"""Kimi CLI reader: rotated contexts kept once, wire-log times, the flat layout, bookkeeping dropped."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import agent_paths, kimi_cli
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "kimi_cli" / ".kimi" / "sessions"
FOLDER = SESSIONS / "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c" / "8e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b"
FLAT = SESSIONS / "a1b2c3d4e5f60718293a4b5c6d7e8f90" / "0d9c8b7a-6e5f-4a3b-9c2d-1e0f9a8b7c6d.jsonl"
BROKEN = (
    SESSIONS / "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c" / "44444444-4444-4444-8444-444444444444" / "context.jsonl"
)


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(kimi_cli.parse(path, ctx)), ctx


def test_rotated_and_compacted_contexts_give_each_turn_once_with_wire_times() -> None:
    [s], ctx = parse(FOLDER / "context.jsonl")
    assert ctx.warnings == []
    assert s.session_id == "kimi-cli:8e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b"
    assert s.title == "list the sensors that report humidity"
    first, second, third = s.turns
    assert first.text.startswith("User: list the sensors that report humidity\n\nAssistant: I'll search")
    assert "[tool: Shell] command=grep -rl humidity sensors/\n[tool output]\nsensors/h1.yaml" in first.text
    assert first.text.endswith("Three sensors report humidity: H1, H3 and H7.")
    assert second.text.startswith("User: now show their calibration dates\n\nAssistant: H1 was calibrated")
    assert (
        third.text
        == "User: update the oldest one to today\n\nAssistant: Updated the H3 calibration date to 2026-04-14."
    )
    # times come from the wire log's TurnBegin records (context lines have none)
    assert first.timestamp == datetime.fromtimestamp(1776160800.25, tz=UTC)
    assert third.timestamp == datetime.fromtimestamp(1776161000.75, tz=UTC)
    text = "".join(t.text for t in s.turns)
    for absent in (
        "marmotline",
        "CHECKPOINT",
        "compacted",
        "Command executed successfully",
        "grep the sensor",
    ):
        assert absent not in text  # system prompt, checkpoint notes, the compaction summary, thinking


def test_flat_layout_without_wire_log_takes_the_file_time() -> None:
    [s], _ = parse(FLAT)
    assert s.session_id == "kimi-cli:0d9c8b7a-6e5f-4a3b-9c2d-1e0f9a8b7c6d"
    [t] = s.turns
    assert t.text.startswith("User: which branch deploys the greenhouse dashboard?")
    assert t.timestamp == datetime.fromtimestamp(os.stat(FLAT).st_mtime, tz=UTC)


def test_broken_context_is_a_clear_skip() -> None:
    with pytest.raises(ParseError, match="not a Kimi CLI context file"):
        parse(BROKEN)


def test_appended_messages_extend_the_session(tmp_path: Path) -> None:
    folder = tmp_path / "s1"
    folder.mkdir()
    ctx_file = folder / "context.jsonl"
    rows = [{"role": "_checkpoint", "id": 0}, {"role": "user", "content": "how deep is the well?"}]
    ctx_file.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"role": "assistant", "cont')
    [s], ctx = parse(ctx_file)
    assert [t.text for t in s.turns] == ["User: how deep is the well?"]
    assert any("incomplete" in w for w in ctx.warnings)
    with ctx_file.open("a") as f:
        f.write('ent": "About 30 metres."}\n')
    [s], _ = parse(ctx_file)
    assert s.turns[0].text == "User: how deep is the well?\n\nAssistant: About 30 metres."


def test_detection_side_files_and_walk_rules(tmp_path: Path) -> None:
    assert detect_file(FOLDER / "context.jsonl") == "kimi_cli"
    assert detect_file(FLAT) == "kimi_cli"
    for side in ("context_1.jsonl", "wire.jsonl"):
        with pytest.raises(UndetectedError, match="read with context.jsonl|read with"):
            detect_file(FOLDER / side)
        assert agent_paths.ignored(FOLDER / side)
    assert agent_paths.ignored(FOLDER / "state.json")
    moved = tmp_path / "share" / "context.jsonl"  # KIMI_SHARE_DIR elsewhere: the bookkeeping lines tell
    moved.parent.mkdir()
    moved.write_bytes((FOLDER / "context_1.jsonl").read_bytes())
    assert detect_file(moved) == "kimi_cli"


def test_failed_tool_call_keeps_its_error_and_drops_status_notes(tmp_path: Path) -> None:
    path = tmp_path / "s2" / "context.jsonl"
    path.parent.mkdir()
    call = {
        "type": "function",
        "id": "Shell:1",
        "function": {"name": "Shell", "arguments": '{"command": "ls /root"}'},
    }
    rows = [
        {"role": "user", "content": "list the root folder"},
        {"role": "assistant", "content": "Listing it.", "tool_calls": [call]},
        {
            "role": "tool",
            "tool_call_id": "Shell:1",
            "content": [
                {"type": "text", "text": "<system>ERROR</system>"},
                {"type": "text", "text": "<system>Command failed with exit code: 2.</system>"},
                {"type": "text", "text": "ls: cannot open directory '/root': Permission denied"},
            ],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    [s], _ = parse(path)
    assert (
        "[tool: Shell] command=ls /root\n[tool output]\n[error] Command failed with exit code: 2.\nls: cannot"
        in (s.turns[0].text)
    )


CODE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "kimi_cli"
    / ".kimi-code"
    / "sessions"
    / "wd_orchard_5e6f7a8b9c0d"
)
MAIN = CODE / "session_2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f" / "agents" / "main" / "wire.jsonl"
RESUMED = CODE / "session_3d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a" / "agents" / "main" / "wire.jsonl"


def test_kimi_code_main_agent_log_keeps_prompts_replies_tools_and_times() -> None:
    [s], ctx = parse(MAIN)
    assert ctx.warnings == []
    assert s.session_id == "kimi-cli:session_2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f"
    assert s.title == "Dry tomato bed on Mondays"  # state.json
    first, second = s.turns
    assert first.text == (
        "User: why is the tomato bed soil so dry on Mondays?\n\nAssistant: I'll check the watering schedule."
        "\n\n[tool: Bash] command=crontab -l\n[tool output]\n0 6 * * 2-7 water-beds --zone tomato\n"
        "[end tool output]\n\nThe cron line runs on days 2-7 only, so Monday is skipped; use * for the day of week."
    )
    assert first.timestamp == datetime.fromtimestamp(1781251200.011, tz=UTC)  # the record's own time
    assert second.text == (
        "User: change it and water at 5 instead\n\nAssistant: Done: the line is now 0 5 * * * water-beds --zone tomato."
    )
    text = first.text + second.text
    for absent in ("ibexledger", "ocelotrule", "probably the cron day range", "subagent"):
        assert absent not in text  # injected reminders, the system prompt, thinking, a sub-agent's log


def test_kimi_code_log_folded_into_a_snapshot_on_resume_keeps_its_turns() -> None:
    [s], _ = parse(RESUMED)
    assert [t.text.split("\n")[0] for t in s.turns] == [
        "User: list the beds that need mulch",
        "User: order straw for those beds",
    ]
    assert s.turns[0].text.endswith("Beds 2, 5 and 9 need mulch before the heat wave.")


def test_kimi_code_paths_main_agent_read_sub_agents_not(tmp_path: Path) -> None:
    assert detect_file(MAIN) == "kimi_cli"
    sub = MAIN.parents[1] / "agent-1" / "wire.jsonl"
    with pytest.raises(UndetectedError, match="sub-agent log"):
        detect_file(sub)
    assert agent_paths.ignored(sub) and agent_paths.ignored(MAIN.parents[2] / "state.json")
    moved = tmp_path / "home" / "sessions" / "wd" / "s1" / "agents" / "main" / "wire.jsonl"  # KIMI_CODE_HOME
    moved.parent.mkdir(parents=True)
    moved.write_bytes(MAIN.read_bytes())
    (moved.parents[2] / "state.json").write_text("{}")
    assert detect_file(moved) == "kimi_cli"
