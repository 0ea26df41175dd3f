"""Goose reader: sessions.db (SQLite) and the older session JSONL files, tools, hidden messages, layout rules."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.sqlite_agents import add_goose_message, goose_db

from refind_desktop.errors import ParseError
from refind_desktop.ingest import goose
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover

T0 = 1772355600  # 2026-03-01 09:00:00 UTC
SESSIONS = Path(".local") / "share" / "goose" / "sessions"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(goose.parse(path, ctx)), ctx


def txt(t: str) -> dict:
    return {"type": "text", "text": t}


def request(cid: str, name: str, args: dict) -> dict:
    return {
        "type": "toolRequest",
        "id": cid,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": args}},
    }


def response(cid: str, value) -> dict:
    return {"type": "toolResponse", "id": cid, "toolResult": {"status": "success", "value": value}}


def build_db(path: Path, wal: bool = False) -> sqlite3.Connection:
    db = goose_db(path, wal=wal)
    s = "20260301_1"
    add_goose_message(db, s, "user", [txt("which beehive frames need replacing?")], T0)
    add_goose_message(
        db,
        s,
        "assistant",
        [
            {"type": "thinking", "thinking": "check the inventory file", "signature": "x"},
            txt("I'll read the inventory."),
            request("toolu_1", "developer__text_editor", {"command": "view", "path": "hives.csv"}),
        ],
        T0 + 3,
    )
    add_goose_message(
        db,
        s,
        "user",
        [response("toolu_1", {"content": [{"type": "text", "text": "frame 7: mouldy"}], "isError": False})],
        T0 + 4,
    )
    add_goose_message(db, s, "assistant", [txt("Replace frame 7, it is mouldy.")], T0 + 6)
    add_goose_message(
        db,
        s,
        "user",
        [txt("Summary of the conversation so far.")],
        T0 + 7,
        {"userVisible": False, "agentVisible": True},
    )
    db.execute("UPDATE sessions SET name = 'Beehive frames' WHERE id = ?", (s,))
    add_goose_message(db, "20260301_2", "user", [txt("sub-agent instructions")], T0 + 50)
    db.execute("UPDATE sessions SET session_type = 'hidden' WHERE id = '20260301_2'")
    add_goose_message(db, "20260302_1", "user", [txt("old format tool output?")], T0 + 86400)
    add_goose_message(db, "20260302_1", "assistant", [request("t2", "shell", {"command": "ls"})], T0 + 86401)
    add_goose_message(
        db, "20260302_1", "user", [response("t2", [{"type": "text", "text": "hives.csv"}])], T0 + 86402
    )
    db.commit()
    return db


def test_database_sessions_tools_and_hidden_messages(tmp_path: Path) -> None:
    path = tmp_path / SESSIONS / "sessions.db"
    build_db(path).close()
    (frames, old), ctx = parse(path)
    assert frames.session_id == "goose:20260301_1" and frames.title == "Beehive frames"
    assert frames.started_at == datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    [t] = frames.turns
    assert t.text == (
        "User: which beehive frames need replacing?\n\n"
        "Assistant: I'll read the inventory.\n\n"
        "[tool: developer__text_editor] command=view, path=hives.csv\n[tool output]\nframe 7: mouldy\n[end tool output]"
        "\n\nReplace frame 7, it is mouldy."
    )
    assert "Summary" not in t.text and "inventory file" not in t.text
    assert old.title == "old format tool output?"
    assert old.turns[0].text.endswith("[tool: shell] command=ls\n[tool output]\nhives.csv\n[end tool output]")
    assert ctx.warnings == []
    assert detect_file(path) == "goose"
    rooted = tmp_path / "goose-root" / "data" / "sessions" / "sessions.db"  # GOOSE_PATH_ROOT
    build_db(rooted).close()
    assert detect_file(rooted) == "goose"


def legacy(path: Path, lines: list[dict], torn: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + torn, encoding="utf-8")
    return path


META = {
    "working_dir": "/home/u/apiary",
    "description": "Honey harvest dates",
    "schedule_id": None,
    "message_count": 2,
}


def test_legacy_jsonl_session_with_a_torn_last_line(tmp_path: Path) -> None:
    path = legacy(
        tmp_path / SESSIONS / "20250110_093000.jsonl",
        [
            META,
            {"role": "user", "created": 1736501400, "content": [txt("when do we harvest the honey?")]},
            {
                "role": "assistant",
                "created": 1736501410,
                "content": [txt("Late July, once frames are capped.")],
            },
        ],
        torn='{"role": "user", "created": 1736501500, "content": [{"type": "te',
    )
    [s], ctx = parse(path)
    assert s.session_id == "goose:20250110_093000" and s.title == "Honey harvest dates"
    assert [t.text for t in s.turns] == [
        "User: when do we harvest the honey?\n\nAssistant: Late July, once frames are capped."
    ]
    assert s.turns[0].timestamp == datetime(2025, 1, 10, 9, 30, tzinfo=UTC)
    assert any("incomplete" in w for w in ctx.warnings)
    assert detect_file(path) == "goose"
    copy = tmp_path / "elsewhere" / "honey.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    assert detect_file(copy) == "goose"  # by its metadata line
    bad = legacy(tmp_path / SESSIONS / "broken.jsonl", [])
    bad.write_text("not json at all\n")
    with pytest.raises(ParseError, match="Goose session"):
        parse(bad)


def test_jsonl_beside_the_database_is_not_read_twice(tmp_path: Path) -> None:
    folder = tmp_path / SESSIONS
    legacy(folder / "20250110_093000.jsonl", [META, {"role": "user", "created": 1, "content": [txt("hi")]}])
    build_db(folder / "sessions.db", wal=True).close()
    (folder / "backups").mkdir()
    build_db(folder / "backups" / "pre_migration_v4_to_v5.db").close()
    sources, skipped = discover([tmp_path / ".local" / "share" / "goose"])
    assert [(s.path.name, s.format) for s in sources] == [("sessions.db", "goose")]
    assert skipped == []


def test_early_database_without_message_metadata(tmp_path: Path) -> None:
    path = tmp_path / SESSIONS / "sessions.db"
    db = goose_db(path)
    db.executescript(
        "ALTER TABLE messages DROP COLUMN metadata_json; ALTER TABLE sessions DROP COLUMN session_type;"
    )
    db.execute(
        "INSERT INTO sessions (id, description, working_dir) VALUES ('20251020_1', 'Seed catalogue', '/home/u')"
    )
    for role, t, at in (
        ("user", "list the tomato seeds", 1760950000),
        ("assistant", "Roma and Sungold.", 1760950005),
    ):
        db.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?,?,?,?)",
            ("20251020_1", role, json.dumps([txt(t)]), at),
        )
    db.commit()
    db.close()
    [s], _ = parse(path)
    assert s.title == "Seed catalogue"
    assert [t.text for t in s.turns] == ["User: list the tomato seeds\n\nAssistant: Roma and Sungold."]


def test_a_message_hidden_later_leaves_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / SESSIONS / "sessions.db"
    db = build_db(path)
    [frames, _], _ = parse(path)
    assert "Replace frame 7" in frames.turns[0].text
    hidden = json.dumps({"userVisible": False, "agentVisible": True})
    db.execute("UPDATE messages SET metadata_json = ? WHERE content_json LIKE '%Replace frame 7%'", (hidden,))
    db.commit()
    [frames, _], _ = parse(path)
    assert "Replace frame 7" not in frames.turns[0].text  # the remembered session was not reused
    db.close()


def test_many_sessions_are_read_in_one_scan_each_with_its_own_messages(tmp_path: Path) -> None:
    path = tmp_path / SESSIONS / "sessions.db"
    path.parent.mkdir(parents=True)
    db = goose_db(path)
    for n in range(25):  # more than the one-query-per-session bound: one scan of the table
        add_goose_message(db, f"2026030{n:02d}", "user", [txt(f"question number {n}")], T0 + 2 * n)
        add_goose_message(db, f"2026030{n:02d}", "assistant", [txt(f"answer number {n}")], T0 + 2 * n + 1)
    db.commit()
    db.close()
    sessions, _ = parse(path)
    assert len(sessions) == 25
    for s in sessions:
        n = int(s.turns[0].text.split("question number ")[1].split("\n")[0])
        assert [t.text for t in s.turns] == [f"User: question number {n}\n\nAssistant: answer number {n}"]
        assert s.session_id.endswith(f"2026030{n:02d}")
