"""Aider reader: `.aider.chat.history.md` sessions, multi-line prompts, tool output, local times."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import aider
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "aider"
HISTORY = ROOT / "greenhouse" / ".aider.chat.history.md"


def parse(path: Path, tz: object = UTC) -> tuple[list, ParseContext]:
    ctx = ParseContext(tz=tz)  # type: ignore[arg-type]
    return list(aider.parse(path, ctx)), ctx


def test_one_session_per_header_with_turns_and_tool_output() -> None:
    first, second = parse(HISTORY)[0]
    assert first.session_id.startswith("aider:") and first.session_id != second.session_id
    assert first.title == "make next_watering skip the 29th of February"  # /add is a command, not a title
    add, fix, run = first.turns
    assert add.text == (
        "User: /add watering.py\n\nAssistant: [tool output]\nAdded watering.py to the chat\n[end tool output]"
    )
    assert fix.text.startswith(
        "User: make next_watering skip the 29th of February\nand keep the interval for every other day\n\n"
        "Assistant: I'll add a leap-day check to `next_watering`."
    )
    assert "    if is_leap_day(day):" in fix.text  # the edit block is verbatim
    assert "[tool output]\nTokens: 6.1k sent" in fix.text and "Commit 3c9e2d1 fix: skip leap day" in fix.text
    assert run.text.startswith("User: /run pytest -q\n\nAssistant: [tool output]\n..F\nFAILED")
    assert run.text.endswith("I'll update the expectation.")
    assert "Aider v0.79.2" not in "".join(t.text for t in first.turns)  # the start-up banner is not chat
    assert [t.text for t in second.turns] == [
        "User: what does the humidity alarm do?\n\n"
        "Assistant: It sounds the buzzer when humidity stays above 85% for ten minutes."
    ]


def test_header_time_is_local_and_read_in_the_configured_zone() -> None:
    first, second = parse(HISTORY, ZoneInfo("Europe/Berlin"))[0]
    assert first.started_at == datetime(2025, 3, 29, 20, 14, 5, tzinfo=UTC)  # CET, before the DST switch
    assert second.started_at == datetime(2025, 4, 2, 6, 0, 41, tzinfo=UTC)  # CEST
    assert all(t.timestamp == first.started_at for t in first.turns)


def test_detection_by_name_and_by_content(tmp_path: Path) -> None:
    assert detect_file(HISTORY) == "aider"
    renamed = tmp_path / "chat-history.md"  # --chat-history-file lets users pick the name
    renamed.write_bytes(HISTORY.read_bytes())
    assert detect_file(renamed) == "aider"


def test_banner_only_session_has_no_turns_and_other_markdown_is_refused() -> None:
    assert parse(ROOT / "empty" / ".aider.chat.history.md")[0] == []
    with pytest.raises(ParseError, match="no '# aider chat started at' header"):
        parse(ROOT / "notaider" / ".aider.chat.history.md")
