"""Factory Droid reader: session JSONL with system reminders, tool blocks, other line types; detection,
the folder walk and the real pipeline."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import factory_droid
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = FIXTURES / "factory_droid"
FOLDER = ROOT / ".factory/sessions/-home-dana-src-greenhouse"
SESSION = FOLDER / "3c9d2e1f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.jsonl"
SETTINGS = FOLDER / "3c9d2e1f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.settings.json"
BAD = ROOT / "malformed/.factory/sessions/-home-dana-broken/9a8b7c6d-0000-4000-8000-000000000000.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(factory_droid.parse(path, ctx)), ctx


def test_session_keeps_prompts_replies_and_marked_tool_output() -> None:
    [s], ctx = parse(SESSION)
    assert ctx.warnings == []
    assert s.session_id == "factory-droid:3c9d2e1f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"
    assert s.title == "Humidity alarm threshold"
    assert s.started_at == datetime(2025, 12, 1, 10, 0, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: raise the humidity alarm threshold to 85 percent\n\nAssistant: I'll find the threshold constant."
    )
    assert "[tool: Grep] pattern=HUMIDITY_ALARM, path=." in first.text
    assert "[tool: Grep]\n[tool output]\nalarms.py:12:HUMIDITY_ALARM = 80\n[end tool output]" in first.text
    assert first.text.endswith("Changed `HUMIDITY_ALARM` from 80 to 85 in alarms.py.")
    # the reminder Droid adds to the prompt, the thinking and the todo list are not chat
    for absent in ("system-reminder", "User system info", "Need to find", "update threshold"):
        assert absent not in first.text
    assert first.turn_id == "d-01"
    assert second.text == (
        "User: does the alarm also cover the seedling tray?\n\n"
        "Assistant: Yes: the seedling tray sensor reports through the same alarm loop."
    )
    assert second.timestamp == datetime(2025, 12, 1, 10, 2, tzinfo=UTC)


def test_detection_by_path_and_content(tmp_path: Path) -> None:
    assert detect_file(SESSION) == "factory_droid"
    with pytest.raises(UndetectedError, match="Factory Droid session settings"):
        detect_file(SETTINGS)
    copied = tmp_path / "droid-session.jsonl"
    copied.write_bytes(SESSION.read_bytes())
    assert detect_file(copied) == "factory_droid"


def test_folder_walk_reads_sessions_and_skips_settings_silently() -> None:
    sources, skipped = discover([ROOT])
    found = {(s.path.relative_to(ROOT).as_posix(), s.format) for s in sources}
    assert found == {
        (SESSION.relative_to(ROOT).as_posix(), "factory_droid"),
        (BAD.relative_to(ROOT).as_posix(), "factory_droid"),
    }
    assert skipped == []


def test_malformed_file_is_a_clear_error_that_does_not_quote_it() -> None:
    with pytest.raises(ParseError, match="is this really a Factory Droid session") as e:
        parse(BAD)
    assert "not json" not in str(e.value)


def test_string_content_unknown_lines_and_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / ".factory/sessions/-p/s.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        {"type": "session_start", "id": "s-1"},
        {"type": "compaction_state", "summary": "older turns summarised"},
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2026-02-01T08:00:00Z",
            "message": {"role": "user", "content": "prune the tomato plants"},
        },
        {"type": "message", "id": "m2", "message": {"role": "system", "content": "You are Droid."}},
    ]
    torn = '{"type":"message","id":"m3","message":{"role":"assistant","content":"Cut the suck'
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + torn, encoding="utf-8")
    [s], ctx = parse(path)
    assert [t.text for t in s.turns] == ["User: prune the tomato plants"]
    assert any("incomplete" in w for w in ctx.warnings)
    path.write_text(path.read_text(encoding="utf-8") + 'ers below the first truss."}}\n', encoding="utf-8")
    [s], _ = parse(path)
    assert s.turns[0].text.endswith("Assistant: Cut the suckers below the first truss.")


def test_fixture_tree_through_the_pipeline_is_searchable(tmp_path: Path) -> None:
    svc = build_services()
    try:
        report = svc.ingestor.ingest([shutil.copytree(ROOT, tmp_path / "droid")])
        totals = svc.catalog.totals()["formats"]["factory_droid"]
        assert (totals["sessions"], totals["turns"], len(report.skipped)) == (1, 2, 1)
        [block, *_] = svc.engine.search("seedling tray")
        assert block.session_id == "factory-droid:3c9d2e1f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"
        assert block.session_title == "Humidity alarm threshold"
    finally:
        svc.close()
