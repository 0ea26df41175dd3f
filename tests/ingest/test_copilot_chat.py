"""GitHub Copilot Chat reader: VS Code chatSessions as JSON documents and as JSONL mutation logs."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import copilot_chat
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "copilot_chat"
CHATS = ROOT / "Code" / "User" / "workspaceStorage" / "a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3" / "chatSessions"
JSON = CHATS / "3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607.json"
JSONL = CHATS / "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(copilot_chat.parse(path, ctx)), ctx


def test_json_session_requests_are_turns() -> None:
    [s], ctx = parse(JSON)
    assert s.session_id == "copilot-chat:3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607"
    assert s.title == "Debounce the rain sensor"
    assert s.participants == ["dana", "GitHub Copilot"]
    assert s.started_at == datetime(2025, 4, 30, 9, 0, tzinfo=UTC)
    ask, apply, cancelled, failed = s.turns
    assert ask.text == (
        "User: how do I debounce the rain sensor input in #file:sensors.py?\n\n"
        "Assistant: Read the pin twice, 50 ms apart, in `sensors.py` and only report rain when both reads agree:"
        "\n\n```python\nif read_pin() and (sleep(0.05) or read_pin()):\n    report_rain()\n```"
    )
    assert ask.timestamp == datetime(2025, 4, 30, 9, 0, 1, tzinfo=UTC)
    assert ask.turn_id == "request_7a6b5c4d-0001"
    assert apply.text == (
        "User: apply it and run the tests\n\n"
        "Assistant: [tool: copilot_runInTerminal] Ran `pytest -q` (12 passed)\n\n"
        "[tool: edit] sensors.py\n\nApplied the debounce; all 12 tests pass."
    )
    assert cancelled.text.endswith("Add a `logger.info\n\n[cancelled]")
    assert failed.text == (
        "User: summarise the sensor log\n\nAssistant: [error] Sorry, your request failed. Please try again."
    )
    assert ctx.warnings == [f"{JSON}: request 4 is not an object; skipped"]


def test_jsonl_mutation_log_is_replayed() -> None:
    [s], ctx = parse(JSONL)
    assert s.session_id == "copilot-chat:9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
    assert s.title == "Pump wiring"  # set by a later kind-1 line
    assert [t.text for t in s.turns] == [
        "User: which GPIO pin drives the pump relay?\n\nAssistant: GPIO 17, through the relay board's IN1.",
        "User: and the valve?\n\nAssistant: GPIO 27 (IN2).",  # the splice at index 0 replaced the draft
    ]
    assert s.turns[1].timestamp == datetime(2025, 12, 1, 9, 1, 40, tzinfo=UTC)
    assert any("path ['requests', 7, 'response'] that does not exist" in w for w in ctx.warnings)
    assert any("incomplete" in w for w in ctx.warnings)  # the torn last line of a live file


def test_detection_and_walk_of_a_workspace_storage_folder(tmp_path: Path) -> None:
    assert detect_file(JSON) == "copilot_chat" and detect_file(JSONL) == "copilot_chat"
    copy = tmp_path / "chat.json"  # "Chat: Export Session..." writes the same document
    copy.write_bytes(JSON.read_bytes())
    assert detect_file(copy) == "copilot_chat"
    sources, skipped = discover([ROOT / "Code" / "User" / "workspaceStorage"])
    assert sorted(s.path.name for s in sources) == [JSON.name, JSONL.name]
    assert skipped == []  # workspace.json, editing sessions and extension caches are not chats


def test_malformed_session_is_a_clear_error() -> None:
    with pytest.raises(ParseError, match="object with 'requests'"):
        parse(ROOT / "broken" / "chatSessions" / "00000000-0000-4000-8000-000000000000.json")
