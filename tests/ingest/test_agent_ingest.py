"""Every coding-agent fixture through the real pipeline and tantivy index: counts, skips, search."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

# format -> (sessions, turns, skipped files) on the fixtures of tests/fixtures/<format>/
EXPECTED = {
    "gemini_cli": (3, 4, 1),
    "cursor": (3, 5, 1),
    "aider": (2, 4, 1),
    "cline": (3, 6, 1),
    "opencode": (2, 3, 1),
    "copilot_chat": (2, 6, 1),
    "continue_dev": (2, 3, 1),
    "goose": (1, 2, 1),  # the older JSONL sessions (the databases are built by tests/ingest/test_goose.py)
}


def cursor_tree(root: Path) -> Path:
    """The Cursor fixtures are SQL dumps: build the state databases they describe."""
    user = root / "Cursor" / "User"
    for sql, rel in (
        ("global-state.sql", "globalStorage/state.vscdb"),
        ("workspace-state.sql", "workspaceStorage/4f0e1d2c3b4a/state.vscdb"),
    ):
        (user / rel).parent.mkdir(parents=True)
        db = sqlite3.connect(user / rel)
        db.executescript((FIXTURES / "cursor" / sql).read_text(encoding="utf-8"))
        db.close()
    corrupt = root / "copied" / "state.vscdb"
    corrupt.parent.mkdir()
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\x01" * 100)
    return root


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


@pytest.mark.parametrize("fmt", sorted(EXPECTED))
def test_fixture_tree_ingests_with_counts_and_reasons(fmt: str, svc, tmp_path: Path) -> None:
    root = (
        cursor_tree(tmp_path / "cursor")
        if fmt == "cursor"
        else shutil.copytree(FIXTURES / fmt, tmp_path / fmt)
    )
    report = svc.ingestor.ingest([root])
    totals = svc.catalog.totals()["formats"].get(fmt, {})
    got = (totals.get("sessions", 0), totals.get("turns", 0), len(report.skipped))
    assert got == EXPECTED[fmt], (got, [(s.path, s.reason) for s in report.skipped])
    for s in report.skipped:
        assert s.reason and ("skipped" in s.reason or "not" in s.reason or "cannot" in s.reason)
    # a second run finds nothing new and loses nothing
    again = svc.ingestor.ingest([root])
    assert again.added_turns == 0 and again.removed_turns == 0


def test_agent_turns_are_searchable_with_their_tool_output(svc, tmp_path: Path) -> None:
    for fmt in ("gemini_cli", "copilot_chat", "opencode"):
        shutil.copytree(FIXTURES / fmt, tmp_path / fmt)
    svc.ingestor.ingest([tmp_path])
    [block, *_] = svc.engine.search("debounce rain sensor")
    assert block.session_title == "Debounce the rain sensor"
    [block, *_] = svc.engine.search("test_day_of_year")  # only in a Gemini CLI tool output
    assert block.session_id == "gemini-cli:5e1f0c2a-7b3d-4e9a-b1c2-3d4e5f6a7b8c"
