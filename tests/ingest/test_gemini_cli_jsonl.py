"""Gemini CLI's append-only session logs (`chats/session-*.jsonl`, 0.35+): rewrites, rewinds, metadata, layout."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import gemini_cli
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.known_sources import find_known_sources
from refind_desktop.services import build_services

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "gemini_cli_jsonl"
CHATS = ROOT / ".gemini" / "tmp" / "garden-app" / "chats"
LOG = CHATS / "session-2026-05-02T09-15-9d1e2f3a.jsonl"
RESUMED = CHATS / "session-2026-04-20T18-00-4e5f6a7b.jsonl"


def test_session_log_is_read_as_the_cli_loads_it() -> None:
    ctx = ParseContext()
    [s] = gemini_cli.parse(LOG, ctx)
    assert ctx.warnings == []
    assert s.session_id == "gemini-cli:9d1e2f3a-4b5c-4d6e-8f70-81a2b3c4d5e6"
    assert s.title == "Hedge trimmer skips Fridays"  # the summary a later `$set` wrote
    assert s.started_at == datetime(2026, 5, 2, 9, 15, 3, 120000, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith("User: why does the hedge trimmer schedule skip Fridays?\n\nAssistant: ")
    # the tool call as last written (with its output), once; the thoughts are not kept
    assert first.text.count("[tool: Shell]") == 1 and "0 7 * * 1-4 trim-hedges" in first.text
    assert "make it 1-5 to include Fridays" in first.text and "look at the cron table" not in first.text
    # the rewound exchange and the info notice are gone
    assert "delete the whole cron file" not in first.text + second.text
    assert "Switched to" not in first.text + second.text
    assert second.text == "User: change it to 1-5 then\n\nAssistant: Done: trim-hedges now runs 0 7 * * 1-5."
    assert detect_file(LOG) == "gemini_cli"


def test_a_log_copied_out_of_its_folder_is_recognised_by_its_first_line(tmp_path: Path) -> None:
    copy = shutil.copy(LOG, tmp_path / "hedge-chat.jsonl")
    assert detect_file(Path(copy)) == "gemini_cli"
    [s] = gemini_cli.parse(Path(copy), ParseContext())
    assert s.session_id == "gemini-cli:9d1e2f3a-4b5c-4d6e-8f70-81a2b3c4d5e6"


def test_a_log_without_its_metadata_line_is_refused_without_quoting_it(tmp_path: Path) -> None:
    bad = tmp_path / ".gemini" / "tmp" / "p" / "chats" / "session-2026-05-03T10-00-00000000.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"id": "x1", "type": "user", "content": "secret plans"}\n', encoding="utf-8")
    with pytest.raises(ParseError) as e:
        list(gemini_cli.parse(bad, ParseContext()))
    assert "no session metadata line" in str(e.value) and "secret" not in str(e.value)


def test_the_project_folder_is_discovered_and_ingested_once_per_session(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(ROOT, home)
    [gemini] = find_known_sources(home, env={}, system="linux")
    assert (gemini.tool, gemini.files) == ("Gemini CLI", 2)  # not the sub-agent's log, not the old .json
    svc = build_services()
    try:
        report = svc.ingestor.ingest([gemini.path])
        assert report.skipped == []
        assert svc.catalog.totals()["formats"]["gemini_cli"]["sessions"] == 2
        [block] = svc.engine.search("raspberries")  # written after the session was resumed
        assert block.session_id == "gemini-cli:4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b"
        assert len(svc.engine.search("mulch")) == 1  # the session's old .json is not a second copy
        assert svc.engine.search("codebase") == []  # the sub-agent's own log is not read
    finally:
        svc.close()
