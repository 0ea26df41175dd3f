"""Continue reader: `~/.continue/sessions/*.json` with times from the sessions.json index."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import continue_dev
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "continue_dev" / ".continue" / "sessions"
FROST = SESSIONS / "c0ffee00-1111-4222-8333-444455556666.json"
UNTITLED = SESSIONS / "bead0000-aaaa-4bbb-8ccc-ddddeeeeffff.json"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(continue_dev.parse(path, ctx)), ctx


def test_history_turns_tool_calls_context_items_and_index_time() -> None:
    [s], ctx = parse(FROST)
    assert s.session_id == "continue:c0ffee00-1111-4222-8333-444455556666"
    assert s.title == "Frost guard threshold"
    assert s.started_at == datetime(2025, 1, 15, 9, 0, tzinfo=UTC)  # dateCreated in the index (ms string)
    first, second = s.turns
    assert first.text == (
        "User: should the frost guard trigger at 2 °C or 0 °C?\n\n[attached context: frost.py]\n\n"
        "Assistant: Use 2 °C: leaves reach freezing before the air sensor does.\n\n"
        "[tool: read_file] filepath=src/frost.py\n\n"
        "[tool: tool result]\n[tool output]\nTHRESHOLD_C = 0\nHYSTERESIS_C = 0.5\n[end tool output]\n\n"
        "The file sets `THRESHOLD_C = 0`; change it to 2."
    )  # the thinking message is dropped; the attached file is named, not copied
    assert first.timestamp == s.started_at
    assert second.text == "User: thanks, done"
    assert ctx.warnings == [f"{FROST}: history item 5 has no message; skipped"]


def test_default_title_is_replaced_by_the_first_prompt() -> None:
    [s], _ = parse(UNTITLED)
    assert s.title == "convert 18 °C to Fahrenheit"
    assert s.started_at == datetime(2025, 2, 10, 18, 30, tzinfo=UTC)


def test_detection_walk_and_bad_files(tmp_path: Path) -> None:
    assert detect_file(FROST) == "continue_dev"
    with pytest.raises(UndetectedError, match="Continue session index"):
        detect_file(SESSIONS / "sessions.json")
    copy = tmp_path / "s.json"
    copy.write_bytes(FROST.read_bytes())
    assert detect_file(copy) == "continue_dev"
    sources, skipped = discover([SESSIONS.parent])
    assert len(sources) == 3 and {s.format for s in sources} == {"continue_dev"}
    assert skipped == []  # the index is part of the folder, not a chat
    named = discover([SESSIONS / "sessions.json"])  # named by the user: never dropped silently
    assert named[0] == [] and "Continue session index" in named[1][0].reason
    with pytest.raises(ParseError, match="object with a 'history' list"):
        parse(SESSIONS / "0badf00d-0000-4000-8000-000000000000.json")
