"""OpenHands reader: 1.x conversation folders, the pre-1.0 file-store layout, half-written events."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import agent_paths, openhands
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "openhands" / ".openhands"
CONV = ROOT / "conversations" / "4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99"
V0 = ROOT / "sessions" / "7f3e9a1c2b4d"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(openhands.parse(path, ctx)), ctx


def test_conversation_folder_messages_tools_finish_and_times() -> None:
    [s], ctx = parse(CONV)
    # the last event file is half-written: skipped with a warning that names it, not its contents
    [warning] = ctx.warnings
    assert "event-00009" in warning and "MessageEv" not in warning
    assert s.session_id == "openhands:4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99"
    assert s.title == "make the compost bin sensor report in Celsius"
    first, second = s.turns
    assert first.text.startswith(
        "User: make the compost bin sensor report in Celsius\n\nAssistant: First I will find where the unit is set."
    )
    assert "[tool: terminal] command=grep -rn fahrenheit sensors/compost.py" in first.text
    assert "[tool output]\n12:    UNIT = 'fahrenheit'\n[end tool output]" in first.text
    assert first.text.endswith(
        "The compost bin sensor now reports Celsius: UNIT is 'celsius' in sensors/compost.py."
    )
    assert first.timestamp == datetime(2026, 5, 6, 10, 0, 1, tzinfo=UTC)
    assert second.text == (
        "User: does the dashboard convert it again?\n\n"
        "Assistant: No, the dashboard shows the raw value, so it now shows Celsius too."
    )
    text = first.text + second.text
    for absent in ("pangolinguard", "capybaraunits", "probably in config", "execution_status"):
        assert absent not in text  # system prompt, skill text, thinking blocks, state updates


def test_file_store_layout_before_1_0() -> None:
    [s], ctx = parse(V0)
    assert ctx.warnings == []
    assert s.session_id == "openhands:7f3e9a1c2b4d" and s.title == "Hedge trimmer schedule"
    [t] = s.turns
    assert t.text.startswith(
        "User: move the hedge trimming job to Saturday mornings\n\nAssistant: I need to see the current cron table."
    )
    assert "[tool: run] command=crontab -l" in t.text and "0 7 * * 3 /usr/local/bin/trim-hedges" in t.text
    assert t.text.endswith("The hedge trimming job now runs at 07:00 on Saturdays (cron 0 7 * * 6).")
    assert "pangolinguard" not in t.text and "Retrieving content" not in t.text and "All done!" not in t.text


def test_app_server_folder_of_events_named_by_id_is_read_in_time_order() -> None:
    [s], ctx = parse(ROOT / "v1_conversations" / "9f8e7d6c5b4a39281706f5e4d3c2b1a0")
    assert ctx.warnings == [] and s.session_id == "openhands:9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    [t] = s.turns
    assert t.text == (
        "User: why does the greenhouse door sensor flap at dawn?\n\n"
        "Assistant: Condensation on the reed switch: add a 30 second debounce."
    )
    event = next((ROOT / "v1_conversations" / "9f8e7d6c5b4a39281706f5e4d3c2b1a0").glob("*.json"))
    with pytest.raises(UndetectedError, match="read with its conversation folder"):
        detect_file(event)


def test_the_folder_is_the_source_and_its_files_are_not(tmp_path: Path) -> None:
    sources, skipped = discover([ROOT])
    assert sorted((s.path.name, s.format) for s in sources) == [
        ("4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99", "openhands"),
        ("7f3e9a1c2b4d", "openhands"),
        ("9f8e7d6c5b4a39281706f5e4d3c2b1a0", "openhands"),
    ]
    assert skipped == []  # settings.json and the folder's own files are passed over
    assert detect_file(CONV) == "openhands"
    event = next((CONV / "events").glob("event-00001-*.json"))
    with pytest.raises(UndetectedError, match="read with its conversation folder"):
        detect_file(event)
    # an SDK persistence folder anywhere (base_state.json + events/) is one too
    sdk = tmp_path / ".conversations" / "abc"
    (sdk / "events").mkdir(parents=True)
    (sdk / "base_state.json").write_text(json.dumps({"id": "abc"}))
    assert agent_paths.folder_source(sdk) == "openhands"
    assert agent_paths.folder_source(tmp_path / ".conversations") is None


def test_folder_without_events_is_a_clear_skip(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="'events' folder"):
        parse(tmp_path)


def test_event_times_without_a_zone_are_read_in_the_configured_zone() -> None:
    from zoneinfo import ZoneInfo

    ctx = ParseContext(tz=ZoneInfo("Europe/Berlin"))
    [s] = list(openhands.parse(CONV, ctx))
    assert s.turns[0].timestamp == datetime(2026, 5, 6, 8, 0, 1, tzinfo=UTC)  # 10:00:01 in Berlin (CEST)
