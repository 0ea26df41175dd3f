"""Cursor agent transcripts (`cursor_cli`): JSONL and plain-text layouts, the user's words inside
`<user_query>`, detection apart from the editor's `state.vscdb` reader, the walk and the pipeline."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.cursor_store import add_exchange, build_store

from refind_desktop.errors import ParseError
from refind_desktop.ingest import cursor_cli
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = FIXTURES / "cursor_cli"
TRANSCRIPTS = ROOT / ".cursor/projects/home-dana-src-greenhouse/agent-transcripts"
JSONL = TRANSCRIPTS / "5d2c8e1a-7b3f-4c9d-a0e1-2f3b4c5d6e7f/5d2c8e1a-7b3f-4c9d-a0e1-2f3b4c5d6e7f.jsonl"
TEXT = TRANSCRIPTS / "91ab4c2d-3e5f-4a6b-8c7d-9e0f1a2b3c4d.txt"
BAD = (
    ROOT
    / "malformed/.cursor/projects/home-dana-broken/agent-transcripts/0f0f0f0f-0000-4000-8000-000000000000.jsonl"
)


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(cursor_cli.parse(path, ctx)), ctx


def test_jsonl_transcript_keeps_the_query_replies_and_tool_output() -> None:
    [s], ctx = parse(JSONL)
    assert ctx.warnings == []
    assert s.session_id == "cursor-cli:5d2c8e1a-7b3f-4c9d-a0e1-2f3b4c5d6e7f"
    assert s.title == "add a CLI flag to print the greenhouse sensor summary"
    [t] = s.turns
    assert t.text.startswith(
        "User: add a CLI flag to print the greenhouse sensor summary\n\nAssistant: I'll look at the argument parser."
    )
    assert "[tool: Read] path=cli.py" in t.text
    assert "[tool output]\nparser.add_argument('--verbose')\n[end tool output]" in t.text
    assert t.text.endswith("Added `--summary`, which prints the sensor summary table and exits.")
    for absent in ("OS Version", "user_info", "user_query", "Check how the CLI"):
        assert absent not in t.text
    assert t.timestamp is None  # transcripts carry no times


def test_plain_text_transcript_sections() -> None:
    [s], _ = parse(TEXT)
    assert s.session_id == "cursor-cli:91ab4c2d-3e5f-4a6b-8c7d-9e0f1a2b3c4d"
    first, second = s.turns
    assert first.text.startswith(
        "User: why is the greenhouse fan log empty?\n\nAssistant: [tool: Grep] pattern: getLogger"
    )
    assert '[tool output]\nfan.py:3:log = logging.getLogger("fan")\n[end tool output]' in first.text
    assert first.text.endswith("add `logging.basicConfig(level=logging.INFO)` in `main()`.")
    assert "handler may not be attached" not in first.text  # a [Thinking] section
    assert second.text == "User: thanks, done\n\nAssistant: Great, the fan log should fill up now."


def test_user_words_without_query_tags() -> None:
    assert (
        cursor_cli.user_words("<user_info>\nShell: zsh\n</user_info>\nmove the seed trays")
        == "move the seed trays"
    )
    assert cursor_cli.user_words("<user_query>a</user_query> and <user_query>b</user_query>") == "a\n\nb"


def test_detection_by_path_and_content_apart_from_the_editor(tmp_path: Path) -> None:
    assert detect_file(JSONL) == "cursor_cli"
    assert detect_file(TEXT) == "cursor_cli"
    copied = tmp_path / "transcript.jsonl"
    copied.write_bytes(JSONL.read_bytes())
    assert detect_file(copied) == "cursor_cli"


def test_cli_chat_store_is_read_in_root_order_without_system_prompt_or_reasoning(tmp_path: Path) -> None:
    store = build_store(tmp_path / ".cursor/chats/4d5e6f/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/store.db")
    assert detect_file(store) == "cursor_cli"
    [s], ctx = parse(store)
    assert ctx.warnings == []
    assert s.session_id == "cursor-cli:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
    assert s.title == "Seed tray heater"
    assert s.started_at == datetime(2025, 12, 2, 7, 30, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: why does the seed tray heater stay on?\n\nAssistant: Checking the relay code."
    )
    assert "[tool: Shell] command=grep -n relay heater.py" in first.text
    assert "[tool output]\nheater.py:9: relay.on()  # never switched off\n[end tool output]" in first.text
    assert first.text.endswith("The relay is switched on and never off; add `relay.off()` above 24 degrees.")
    for absent in ("You are a coding agent", "OS Version", "relay state machine"):
        assert absent not in first.text + second.text
    assert second.text == "User: add it\n\nAssistant: Added `relay.off()` when the tray passes 24 degrees."


def test_cli_chat_store_with_its_transcript_beside_is_not_read_twice(tmp_path: Path) -> None:
    cursor = tmp_path / ".cursor"
    store = build_store(cursor / "chats/4d5e6f/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/store.db")
    transcript = cursor / "projects/p/agent-transcripts/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.txt"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("user:\nhello\n", encoding="utf-8")
    with pytest.raises(UndetectedError, match="its agent transcript is read instead"):
        detect_file(store)


def test_cli_chat_store_in_wal_mode_is_read_without_writing_it(tmp_path: Path) -> None:
    store = tmp_path / ".cursor/chats/4d5e6f/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/store.db"
    writer = build_store(store, keep_open=True)
    try:
        add_exchange(writer, "is the tray thermostat calibrated?", "Yes, within half a degree.")
        main_before = store.read_bytes()
        [s], _ = parse(store)
        assert s.turns[-1].text.endswith("Yes, within half a degree.")  # committed rows still in the log
        assert store.read_bytes() == main_before  # nothing checkpointed into the database by the reader
        assert Path(f"{store}-wal").exists()
    finally:
        writer.close()


def test_cli_chat_store_without_a_readable_root_falls_back_to_stored_order(tmp_path: Path) -> None:
    store = build_store(tmp_path / ".cursor/chats/h/a1/store.db", keep_open=True)
    meta = json.loads(bytes.fromhex(store.execute("SELECT value FROM meta").fetchone()[0]))
    store.execute(
        "DELETE FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)
    )  # the root is not there (yet)
    store.commit()
    store.close()
    [s], _ = parse(tmp_path / ".cursor/chats/h/a1/store.db")
    assert [t.text.split("\n")[0] for t in s.turns] == [
        "User: why does the seed tray heater stay on?",
        "User: add it",
    ]


def test_a_database_that_is_no_chat_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / ".cursor/chats/h/a1/store.db"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE other (x)")
    db.commit()
    db.close()
    with pytest.raises(ParseError, match="not a Cursor CLI chat store"):
        parse(path)


def test_folder_walk_reads_transcripts_and_skips_the_rest_silently() -> None:
    sources, skipped = discover([ROOT])
    found = {(s.path.relative_to(ROOT).as_posix(), s.format) for s in sources}
    assert found == {
        (JSONL.relative_to(ROOT).as_posix(), "cursor_cli"),
        (TEXT.relative_to(ROOT).as_posix(), "cursor_cli"),
        (BAD.relative_to(ROOT).as_posix(), "cursor_cli"),
    }
    assert skipped == []  # cli-config.json, mcp-approvals.json, worker.log, extensions


def test_malformed_file_is_a_clear_error_that_does_not_quote_it() -> None:
    with pytest.raises(ParseError, match="is this really a Cursor agent transcript") as e:
        parse(BAD)
    assert "not json" not in str(e.value)


def test_fixture_tree_through_the_pipeline_is_searchable(tmp_path: Path) -> None:
    svc = build_services()
    try:
        report = svc.ingestor.ingest([shutil.copytree(ROOT, tmp_path / "cursor_cli")])
        totals = svc.catalog.totals()["formats"]["cursor_cli"]
        assert (totals["sessions"], totals["turns"], len(report.skipped)) == (2, 3, 1)
        [block, *_] = svc.engine.search("fan logger handler")
        assert block.session_id == "cursor-cli:91ab4c2d-3e5f-4a6b-8c7d-9e0f1a2b3c4d"
    finally:
        svc.close()
