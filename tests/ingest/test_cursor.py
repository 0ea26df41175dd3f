"""Cursor reader: composer chats and the old chat pane in SQLite state databases, opened read-only."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import cursor
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cursor"


def build(sql: str, path: Path) -> Path:
    """A state.vscdb made from a fixture's SQL dump."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.executescript((FIXTURES / sql).read_text(encoding="utf-8"))
    db.close()
    return path


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    user = tmp_path / ".config" / "Cursor" / "User"
    build("global-state.sql", user / "globalStorage" / "state.vscdb")
    build("workspace-state.sql", user / "workspaceStorage" / "4f0e1d2c3b4a" / "state.vscdb")
    (user / "workspaceStorage" / "4f0e1d2c3b4a" / "workspace.json").write_text(
        '{"folder": "file:///home/dana/gh"}'
    )
    build("vscode-state.sql", user / "workspaceStorage" / "9a8b7c6d5e4f" / "state.vscdb")
    ext = user / "workspaceStorage" / "4f0e1d2c3b4a" / "ms-python.python"
    ext.mkdir()
    (ext / "cache.json").write_text("{}")
    return user


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(cursor.parse(path, ctx)), ctx


def test_composer_chats_with_bubbles_tool_calls_and_times(user_dir: Path) -> None:
    sessions, ctx = parse(user_dir / "globalStorage" / "state.vscdb")
    by_id = {s.session_id: s for s in sessions}
    assert set(by_id) == {
        "cursor:8a1f2b3c-4d5e-4f60-8a71-92b3c4d5e6f7",
        "cursor:0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f",
    }  # the empty composer has no turns; the broken one is warned about
    agent = by_id["cursor:8a1f2b3c-4d5e-4f60-8a71-92b3c4d5e6f7"]
    assert agent.title == "Fix flaky humidity test"
    assert agent.started_at == datetime(2025, 2, 1, 9, 30, 1, tzinfo=UTC)
    first, second = agent.turns
    assert first.text.startswith(
        "User: the humidity test fails randomly, can you find out why?\n\nAssistant: "
    )
    assert "[tool: run_terminal_cmd] command=pytest -q tests/test_humidity.py -p no:randomly" in first.text
    assert "[tool output]\n1 failed, 3 passed: test_alarm_threshold uses datetime.now()" in first.text
    assert first.text.endswith("Freeze the clock with a fixture.")
    assert "wall-clock" not in first.text  # thinking is not chat
    assert first.timestamp == datetime(2025, 2, 1, 9, 30, 1, 512000, tzinfo=UTC)
    assert second.timestamp == datetime(2025, 2, 1, 9, 34, tzinfo=UTC)  # timingInfo.clientStartTime (ms)
    old = by_id["cursor:0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f"]
    assert old.title == "what does the watering cron expression 0 6 * * 1-5 mean?"  # no name: first prompt
    assert [t.text for t in old.turns] == [
        "User: what does the watering cron expression 0 6 * * 1-5 mean?\n\n"
        "Assistant: At 06:00 on every weekday, Monday to Friday."
    ]
    assert old.started_at == datetime(2024, 12, 1, 11, 5, tzinfo=UTC)
    assert any("composerData:broken" in w and "not valid JSON" in w for w in ctx.warnings)
    assert any("bubble b-missing that is not stored" in w for w in ctx.warnings)


def test_old_chat_pane_tabs(user_dir: Path) -> None:
    [s], ctx = parse(user_dir / "workspaceStorage" / "4f0e1d2c3b4a" / "state.vscdb")
    assert s.session_id == "cursor:chat:2d6f1a0e-3b4c-4d5e-8f90-a1b2c3d4e5f6"
    assert s.title == "Greenhouse LED schedule"
    assert s.started_at == datetime(2024, 4, 30, 9, 0, tzinfo=UTC)  # lastSendTime: bubbles carry no time
    assert [t.text.split("\n\n")[0] for t in s.turns] == [
        "User: how do I dim the grow LEDs after 20:00?",
        "User: and turn them off at midnight",
    ]
    assert any("chat tab 2 has no bubbles" in w for w in ctx.warnings)


def test_database_is_never_written_or_locked(user_dir: Path) -> None:
    db = user_dir / "globalStorage" / "state.vscdb"
    before = (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns)
    folder = db.parent
    names = sorted(p.name for p in folder.iterdir())
    db.chmod(0o444)
    folder.chmod(0o555)  # a writable folder is not needed: no journal, WAL or shm file is made
    try:
        sessions, _ = parse(db)
        assert detect_file(db) == "cursor"
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)
    assert len(sessions) == 2
    assert (hashlib.sha256(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns) == before
    assert sorted(p.name for p in folder.iterdir()) == names


def test_walk_reads_cursor_databases_and_ignores_editor_state(user_dir: Path) -> None:
    sources, skipped = discover([user_dir])
    assert sorted(s.path.relative_to(user_dir).as_posix() for s in sources) == [
        "globalStorage/state.vscdb",
        "workspaceStorage/4f0e1d2c3b4a/state.vscdb",
    ]
    assert {s.format for s in sources} == {"cursor"}
    assert skipped == []  # workspace.json, extension caches and VS Code's own state are not chats


def test_state_database_without_chats_named_explicitly(user_dir: Path) -> None:
    with pytest.raises(UndetectedError, match="without Cursor chats"):
        detect_file(user_dir / "workspaceStorage" / "9a8b7c6d5e4f" / "state.vscdb")


def test_corrupt_database_is_skipped_with_a_reason(tmp_path: Path) -> None:
    bad = tmp_path / "state.vscdb"
    bad.write_bytes(cursor.SQLITE_MAGIC + b"\x00" * 200)
    with pytest.raises(ParseError, match="cannot read this SQLite database"):
        parse(bad)
    assert detect_file(bad) == "cursor"  # detected, so the reader's reason reaches the skipped list
