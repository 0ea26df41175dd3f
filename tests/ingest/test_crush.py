"""Crush reader: crush.db sessions and message parts (plain and zstd), read-only, through detect and the pipeline."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.sqlite_agents import add_crush_message, crush_db

from refind_desktop.errors import ParseError
from refind_desktop.ingest import crush
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover
from refind_desktop.services import build_services

T0 = 1772528400  # 2026-03-03 09:00:00 UTC


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(crush.parse(path, ctx)), ctx


def text(t: str, **extra) -> dict:
    return {"type": "text", "data": {"text": t, **extra}}


def build(path: Path, wal: bool = False) -> sqlite3.Connection:
    db = crush_db(path, wal=wal)
    s = "3f1c2b9e-0c55-4a4e-9d0e-5d1b8a7f6c21"
    add_crush_message(db, s, "m1", "user", [text("why does the pond pump stop at night?")], T0)
    add_crush_message(
        db,
        s,
        "m2",
        "assistant",
        [
            {"type": "reasoning", "data": {"thinking": "maybe the float switch", "signature": ""}},
            text("Let me look at the timer config."),
            {
                "type": "tool_call",
                "data": {"id": "call_1", "name": "view", "input": '{"file_path":"pump.yaml"}'},
            },
            {"type": "finish", "data": {"reason": "tool_use", "time": T0 + 5}},
        ],
        T0 + 2,
    )
    add_crush_message(
        db,
        s,
        "m3",
        "tool",
        [
            {
                "type": "tool_result",
                "data": {"tool_call_id": "call_1", "name": "view", "content": "off_at: 22:00"},
            }
        ],
        T0 + 6,
        zstd=True,
    )
    add_crush_message(
        db,
        s,
        "m4",
        "assistant",
        [
            text("The timer switches it off at 22:00; remove `off_at`."),
            {"type": "finish", "data": {"reason": "end_turn"}},
        ],
        T0 + 8,
        zstd=True,
    )
    add_crush_message(db, s, "m5", "user", [text("continue", hidden=True)], T0 + 9)
    db.execute("UPDATE sessions SET title = 'Pond pump stops at night' WHERE id = ?", (s,))
    add_crush_message(db, "s2", "n0", "system", [text("You are Crush, a coding agent.")], T0 + 100)
    add_crush_message(db, "s2", "n1", "user", [text("list the fish species in the pond")], T0 + 101)
    add_crush_message(db, "s2", "n2", "assistant", [text("Koi and goldfish.")], T0 + 102)
    add_crush_message(db, "s2", "n3", "assistant", [text("Summary: fish were listed.")], T0 + 103)
    db.execute("UPDATE messages SET is_summary_message = 1 WHERE id = 'n3'")
    db.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('bad', 's2', 'assistant', '[{\"type\": ', 1, 1)"
    )
    db.commit()
    return db


def test_sessions_turns_tools_and_dropped_parts(tmp_path: Path) -> None:
    build(tmp_path / ".crush" / "crush.db").close()
    (pump, fish), ctx = parse(tmp_path / ".crush" / "crush.db")
    assert pump.session_id == "crush:3f1c2b9e-0c55-4a4e-9d0e-5d1b8a7f6c21"
    assert pump.title == "Pond pump stops at night"
    assert pump.started_at == datetime(2026, 3, 3, 9, 0, tzinfo=UTC)
    [t] = pump.turns
    assert t.text == (
        "User: why does the pond pump stop at night?\n\n"
        "Assistant: Let me look at the timer config.\n\n"
        "[tool: view] file_path=pump.yaml\n[tool output]\noff_at: 22:00\n[end tool output]\n\n"
        "The timer switches it off at 22:00; remove `off_at`."
    )
    assert "float switch" not in t.text and "continue" not in t.text  # reasoning, hidden continuation
    assert fish.title == "list the fish species in the pond"  # an empty title: the first prompt
    assert [x.text for x in fish.turns] == [
        "User: list the fish species in the pond\n\nAssistant: Koi and goldfish."
    ]
    assert fish.turns[0].timestamp == datetime(2026, 3, 3, 9, 1, 41, tzinfo=UTC)
    assert any("message bad" in w and "not valid JSON" in w for w in ctx.warnings)


def test_detected_by_name_and_walk_skips_its_folder_files(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    build(project / ".crush" / "crush.db", wal=True).close()
    (project / ".crush" / "logs").mkdir()
    (project / ".crush" / "logs" / "crush.log").write_text('{"level":"info"}\n')
    (project / ".crush" / "init").write_text("")
    assert detect_file(project / ".crush" / "crush.db") == "crush"
    sources, skipped = discover([project])
    assert [(s.path.name, s.format) for s in sources] == [("crush.db", "crush")]
    assert skipped == []
    data = tmp_path / ".local" / "share" / "crush"  # the global data folder, with its settings
    build(data / "crush.db").close()
    (data / "crush.json").write_text('{"providers": {}}')
    sources, skipped = discover([data])
    assert [(s.path.name, s.format) for s in sources] == [("crush.db", "crush")] and skipped == []


def test_not_a_crush_database_is_a_clear_skip(tmp_path: Path) -> None:
    path = tmp_path / "crush.db"
    sqlite3.connect(path).executescript("CREATE TABLE notes (x TEXT);").close()
    with pytest.raises(ParseError, match="without Crush's sessions, messages table"):
        parse(path)
    path.write_bytes(b"SQLite format 3\x00" + b"\x07" * 200)
    with pytest.raises(ParseError, match="cannot read this SQLite database"):
        parse(path)


def test_live_database_in_wal_mode_through_the_pipeline(tmp_path: Path) -> None:
    db_path = tmp_path / "proj" / ".crush" / "crush.db"
    writer = build(db_path, wal=True)
    svc = build_services()
    try:
        assert Path(f"{db_path}-wal").stat().st_size > 0  # the rows are still only in the log
        report = svc.ingestor.ingest([tmp_path / "proj"])
        assert report.added_turns == 2 and report.skipped == []
        assert svc.engine.search("timer switches")
        add_crush_message(writer, "s2", "n4", "user", [text("how deep should the pond be for koi")], T0 + 200)
        writer.commit()
        report = svc.ingestor.ingest([tmp_path / "proj"])
        assert report.added_turns == 1  # the new turn only: nothing doubled
        assert svc.engine.search("deep koi")
        assert svc.ingestor.ingest([tmp_path / "proj"]).added_turns == 0
    finally:
        svc.close()
        writer.close()


def test_a_second_read_decodes_only_the_sessions_that_changed(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / ".crush" / "crush.db"
    db = build(path)
    first, _ = parse(path)
    decoded: list[str] = []
    real = crush.blob_json
    monkeypatch.setattr(
        crush, "blob_json", lambda raw, where, ctx: decoded.append(where) or real(raw, where, ctx)
    )
    assert [s.turns for s in parse(path)[0]] == [s.turns for s in first]
    assert decoded == []  # nothing changed: nothing decoded again
    longer = [text("Koi, goldfish and a few orfe.")]  # a reply streamed into its row, in the same second
    db.execute("UPDATE messages SET parts = ? WHERE id = 'n2'", (json.dumps(longer),))
    db.commit()
    (pump, fish), _ = parse(path)
    assert any(w.endswith("message n2") for w in decoded)
    assert not any(": message m" in w for w in decoded)  # the other session is not decoded again
    assert fish.turns[0].text.endswith("Koi, goldfish and a few orfe.")
    assert [t.text for t in pump.turns] == [t.text for t in first[0].turns]
    db.close()


def test_first_release_layout_without_later_columns(tmp_path: Path) -> None:
    path = tmp_path / "crush.db"
    db = crush_db(path)
    db.executescript(
        "ALTER TABLE messages DROP COLUMN is_summary_message; ALTER TABLE messages DROP COLUMN provider;"
    )
    add = "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) VALUES (?,?,?,?,?,?,?)"
    db.execute(
        "INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('s', 'Old', 1745500000, 1745500000)"
    )
    db.execute(add, ("a", "s", "user", json.dumps([text("water the ferns?")]), None, 1745500000, 1745500000))
    db.execute(
        add, ("b", "s", "assistant", json.dumps([text("Twice a week.")]), "gpt-4.1", 1745500001, 1745500001)
    )
    db.commit()
    db.close()
    [s], _ = parse(path)
    assert [t.text for t in s.turns] == ["User: water the ferns?\n\nAssistant: Twice a week."]


def test_a_row_committed_during_a_read_is_read_next_time_not_half(tmp_path: Path, monkeypatch) -> None:
    db_path = tmp_path / "proj" / ".crush" / "crush.db"
    writer = build(db_path, wal=True)
    real = crush._messages
    calls = []

    def commit_meanwhile(rows, path, ctx):
        if not calls:  # the agent commits a new session while refind is reading
            add_crush_message(writer, "s3", "late", "user", [text("meanwhile mulberry")], T0 + 500)
            writer.commit()
        calls.append(1)
        return real(rows, path, ctx)

    monkeypatch.setattr(crush, "_messages", commit_meanwhile)
    svc = build_services()
    try:
        report = svc.ingestor.ingest([db_path])
        assert report.skipped == [] and report.added_turns == 2  # the snapshot's rows, consistent
        assert not svc.engine.search("mulberry")
        report = svc.ingestor.ingest([db_path])  # the change is seen at the next pass
        assert report.added_turns == 1 and svc.engine.search("mulberry")
    finally:
        svc.close()
        writer.close()


def test_many_sessions_are_read_in_one_scan_each_with_its_own_messages(tmp_path: Path) -> None:
    path = tmp_path / ".crush" / "crush.db"
    db = crush_db(path)
    for n in range(25):  # more than the one-query-per-session bound: one scan of the table
        add_crush_message(db, f"s{n:02d}", f"u{n}", "user", [text(f"question number {n}")], T0 + 2 * n)
        add_crush_message(db, f"s{n:02d}", f"a{n}", "assistant", [text(f"answer number {n}")], T0 + 2 * n + 1)
    db.commit()
    db.close()
    sessions, _ = parse(path)
    assert len(sessions) == 25
    for s in sessions:
        n = int(s.session_id.rsplit("s", 1)[1])
        assert [t.text for t in s.turns] == [f"User: question number {n}\n\nAssistant: answer number {n}"]
