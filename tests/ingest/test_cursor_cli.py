"""Cursor agent transcripts (`cursor_cli`): JSONL and plain-text layouts, the user's words inside
`<user_query>`, detection apart from the editor's `state.vscdb` reader, the walk and the pipeline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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
    store = tmp_path / ".cursor/chats/4d5e/0a1b/store.db"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    with pytest.raises(UndetectedError, match="Cursor CLI chat store"):
        detect_file(store)


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
