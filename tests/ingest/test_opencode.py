"""OpenCode reader: session files with their messages and parts, both storage layouts."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import opencode
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "opencode"
STORAGE = ROOT / ".local" / "share" / "opencode" / "storage"
SESSION = (
    STORAGE / "session" / "4b825dc642cb6eb9a060e54bf8d69288fbee4904" / "ses_6a1f0e2d3ffeQk7Wm2Xb9Zr4Tn.json"
)
OLD = ROOT / "old" / ".local" / "share" / "opencode" / "storage" / "session" / "info" / "ses_old1.json"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(opencode.parse(path, ctx)), ctx


def test_session_messages_parts_and_tool_output() -> None:
    [s], ctx = parse(SESSION)
    assert s.session_id == "opencode:ses_6a1f0e2d3ffeQk7Wm2Xb9Zr4Tn"
    assert s.title == "Rename valve_open to open_valve"
    assert s.started_at == datetime(2025, 6, 30, 8, 1, tzinfo=UTC)
    rename, tests = s.turns
    assert rename.text == (
        "User: rename valve_open to open_valve everywhere\n\n"
        "Assistant: [tool: grep] valve_open\n[tool output]\n"
        "valves.py:3: def valve_open(zone):\nschedule.py:18:     valve_open(zone)\n[end tool output]\n\n"
        "Renamed `valve_open` to `open_valve` in valves.py and schedule.py."
    )  # synthetic parts, reasoning and step markers are not chat
    assert rename.timestamp == datetime(2025, 6, 30, 8, 1, 0, 100000, tzinfo=UTC)
    assert rename.turn_id == "msg_95e0f1a2b001AbCdEfGhIjKlMn"
    assert "[tool: bash] command=pytest -q\n[tool output]\n[error] pytest: command not found" in tests.text
    assert tests.text.endswith("install it with `pip install pytest`.")
    assert any("msg_95e0f1a2f005" in w and "unreadable OpenCode record" in w for w in ctx.warnings)


def test_old_layout_under_storage_session() -> None:
    [s], _ = parse(OLD)
    assert s.session_id == "opencode:ses_old1"
    assert [t.text for t in s.turns] == [
        "User: what does the frost guard do?\n\n"
        "Assistant: It closes the vents when the outside sensor drops below 2 °C."
    ]


def test_session_without_messages_has_no_turns_and_bad_file_is_an_error() -> None:
    empty = STORAGE / "session" / "global" / "ses_empty0000000000000000000.json"
    assert parse(empty)[0] == []
    with pytest.raises(ParseError, match="object with an 'id'"):
        parse(STORAGE / "session" / "global" / "ses_bad.json")


def test_walk_reads_session_files_only() -> None:
    sources, skipped = discover([ROOT])
    assert sorted(s.path.name for s in sources) == [
        "ses_6a1f0e2d3ffeQk7Wm2Xb9Zr4Tn.json",
        "ses_bad.json",
        "ses_empty0000000000000000000.json",
        "ses_old1.json",
    ]
    assert {s.format for s in sources} == {"opencode"}
    assert skipped == []  # project, message, part and todo records belong to their sessions


def test_session_copied_out_of_storage_is_detected_but_explains_why_it_cannot_be_read(tmp_path: Path) -> None:
    copy = tmp_path / "ses.json"
    copy.write_bytes(SESSION.read_bytes())
    assert detect_file(copy) == "opencode"
    with pytest.raises(ParseError, match="not inside an OpenCode 'storage' folder"):
        parse(copy)


def build_db(folder: Path, wal: bool = False) -> tuple[Path, sqlite3.Connection | None]:
    """opencode.db from the fixture's SQL dump; with `wal`, a writer stays open with rows still in the log."""
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / "opencode.db"
    db = sqlite3.connect(db_path)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.executescript((ROOT.parent / "opencode_db" / "opencode-db.sql").read_text(encoding="utf-8"))
    if not wal:
        db.close()
        return db_path, None
    return db_path, db


def test_opencode_db_sessions_messages_and_parts(tmp_path: Path) -> None:
    db_path, _ = build_db(tmp_path / "opencode")
    sessions, ctx = parse(db_path)
    rename, misting = sessions
    assert rename.session_id == "opencode:ses_6a1f0e2d3ffeQk7Wm2Xb9Zr4Tn"
    assert rename.title == "Rename valve_open to open_valve"
    [t] = rename.turns
    assert t.text == (
        "User: rename valve_open to open_valve everywhere\n\n"
        "Assistant: [tool: grep] valve_open\n[tool output]\nvalves.py:3: def valve_open(zone):\n[end tool output]\n\n"
        "Renamed `valve_open` to `open_valve` in valves.py and schedule.py."
    )
    assert (
        misting.title == "how long should the misting nozzles run in July?"
    )  # the default title is replaced
    assert misting.started_at == datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
    assert [x.text for x in misting.turns] == [
        "User: how long should the misting nozzles run in July?\n\n"
        "Assistant: Ten seconds every fifteen minutes between 11:00 and 17:00."
    ]
    assert any("msg_c0a1b2c3d003" in w for w in ctx.warnings) and any(
        "prt_c0a1b2c3d203" in w for w in ctx.warnings
    )
    assert detect_file(db_path) == "opencode"


def test_opencode_db_in_wal_mode_is_read_with_its_log_and_left_alone(tmp_path: Path) -> None:
    db_path, writer = build_db(tmp_path / "opencode", wal=True)
    try:
        wal = Path(f"{db_path}-wal")
        assert wal.stat().st_size > 0  # the rows are still only in the write-ahead log
        before = {p.name: p.read_bytes() for p in db_path.parent.iterdir() if not p.name.endswith("-shm")}
        sessions, _ = parse(db_path)
        assert len(sessions) == 2  # a reader that ignored the log would see empty tables
        after = {p.name: p.read_bytes() for p in db_path.parent.iterdir() if not p.name.endswith("-shm")}
        assert after == before  # database and log unchanged, no new file
        writer.execute("INSERT INTO part VALUES ('prt_x', 'msg_c0a1b2c3d001XyZaBcDeFgHiJk', 's', 1, 1, '{}')")
        writer.commit()  # the program keeps writing while we read
    finally:
        writer.close()


def test_migrated_json_storage_beside_the_db_is_not_read_twice(tmp_path: Path) -> None:
    share = tmp_path / ".local" / "share"
    shutil.copytree(STORAGE, share / "opencode" / "storage")
    build_db(share / "opencode")
    Path(f"{share / 'opencode' / 'opencode.db'}-journal").write_bytes(b"")
    sources, skipped = discover([share / "opencode"])
    assert [(s.path.name, s.format) for s in sources] == [("opencode.db", "opencode")]
    assert skipped == []
