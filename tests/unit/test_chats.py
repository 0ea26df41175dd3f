"""Messenger chats as conversations end to end: real files, a real index, the CLI (issue 30).

A growing export keeps its earlier conversations; search skips a seen conversation, not the chat;
a person is findable by who spoke; a block is dated by its own turn; `sessions` groups a chat's
conversations and `show` opens one in its chat or the whole chat; an index from before is re-split.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from refind_desktop.cli import main
from refind_desktop.config import Settings
from refind_desktop.index.catalog import MIGRATIONS, Catalog
from refind_desktop.locations import Paths
from refind_desktop.search.engine import SearchOptions
from refind_desktop.services import build_services

DAY1 = [
    "12/03/2024, 09:02 - Ann: Morning! Is the sourdough starter alive?",
    "12/03/2024, 09:06 - Bo: Bubbling away, I fed it last night",
    "12/03/2024, 19:40 - Emi: I booked my travel to Lisbon for May!",
    "12/03/2024, 19:42 - Bo: Travel plans, travel plans, travel everywhere this spring",
    "12/03/2024, 22:55 - Emi: Ten days, and then Porto",
    "13/03/2024, 00:30 - Bo: Night! Bake the sourdough tomorrow?",
]
LATER = [
    "13/03/2024, 01:10 - Emi: Yes, bring the starter",  # 40 min later: the evening talk goes on
    "14/03/2024, 18:00 - Ann: The sourdough came out flat",
    "14/03/2024, 18:05 - Bo: Too little starter?",
]


def write_chat(folder: Path, lines: list[str]) -> Path:
    path = folder / "WhatsApp Chat with Bo.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def services(home: Path):
    return build_services(Settings(timezone="UTC"), Paths.under(home))


def snapshot(svc) -> dict[str, tuple]:
    """Every session's turn fingerprints and stored turns."""
    out = {}
    for rec in svc.catalog.iter_sessions():
        turns = [(t.turn, t.speaker, t.timestamp, t.text) for t in svc.index.session_turns(rec.ord)]
        out[rec.sid] = (rec.hashes, turns, rec.chat)
    return out


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_growing_export_keeps_its_earlier_conversations(tmp_path: Path) -> None:
    chat = write_chat(tmp_path / "chats", DAY1)
    svc = services(tmp_path / "home")
    first = svc.ingestor.ingest([chat])
    assert first.added_turns == 6
    before = snapshot(svc)
    assert len(before) == 2  # the morning talk and the evening talk (which runs past midnight)
    (chat_id,) = {v[2] for v in before.values()}
    assert chat_id.startswith("whatsapp:") and all(sid.startswith(chat_id + ":") for sid in before)

    write_chat(tmp_path / "chats", DAY1 + LATER)
    report = svc.ingestor.ingest([chat])
    assert (report.added_turns, report.removed_turns) == (3, 0)
    after = snapshot(svc)
    morning, evening = sorted(before)
    assert after[morning] == before[morning]
    hashes, turns, _ = after[evening]  # the evening talk grew by one message, its start unchanged
    assert hashes[:4] == before[evening][0] and turns[:4] == before[evening][1] and len(turns) == 5
    new = set(after) - set(before)
    assert len(new) == 1 and after[new.pop()][1][0][3] == "The sourdough came out flat"
    svc.close()


def test_a_seen_conversation_is_skipped_not_the_whole_chat(tmp_path: Path) -> None:
    svc = services(tmp_path / "home")
    svc.ingestor.ingest([write_chat(tmp_path / "chats", DAY1 + LATER)])
    search = svc.engine.session(SearchOptions(top_k=1, context_window=0))
    first = search.search("sourdough")
    second = search.search("sourdough")
    third = search.search("sourdough")
    found = [b.session_id for b in first + second + third]
    assert len(found) == 3 and len(set(found)) == 3  # three conversations speak of sourdough
    assert {b.chat_id for b in first + second + third} == {first[0].chat_id}
    svc.close()


def test_a_block_is_dated_by_its_own_turn(tmp_path: Path) -> None:
    svc = services(tmp_path / "home")
    svc.ingestor.ingest([write_chat(tmp_path / "chats", DAY1)])
    (block,) = svc.engine.search("bake", options=SearchOptions(top_k=1, context_window=0))
    assert block.session_date.isoformat() == "2024-03-12T19:40:00+00:00"  # the evening talk's start
    assert block.date.isoformat() == "2024-03-13T00:30:00+00:00"  # the message itself
    svc.close()


def test_who_spoke_is_searchable(tmp_path: Path) -> None:
    svc = services(tmp_path / "home")
    svc.ingestor.ingest([write_chat(tmp_path / "chats", DAY1)])
    opts = SearchOptions(top_k=1, context_window=0)
    (mine,) = svc.engine.search("Emi travel", options=opts)
    assert [(t.speaker, t.text) for t in mine.turns] == [("Emi", "I booked my travel to Lisbon for May!")]
    (plain,) = svc.engine.search("Emi travel", options=opts.with_(speaker_weight=0.0))
    assert plain.turns[0].speaker == "Bo"  # on the words alone, Bo's travel-heavy message wins
    svc.close()


def test_cli_search_sessions_and_show_speak_of_chats(tmp_path: Path, capsys) -> None:
    chat = write_chat(tmp_path / "chats", DAY1 + LATER)
    assert main(["ingest", str(chat)]) == 0
    capsys.readouterr()

    res = run_json(capsys, "search", "Emi", "travel", "--top-k", "1")["results"][0]
    assert res["date"] == "2024-03-12T19:40:00+00:00" and res["chat_title"] == "Bo"
    assert res["chat_id"] and res["session_id"].startswith(res["chat_id"] + ":")
    assert main(["search", "Lisbon", "--top-k", "1", "--context", "0"]) == 0
    text = capsys.readouterr().out
    assert "(2024-03-12 19:40)" in text and "Emi: I booked my travel to Lisbon" in text

    listed = run_json(capsys, "sessions")["sessions"]
    assert len(listed) == 3 and {s["chat_id"] for s in listed} == {res["chat_id"]}
    assert main(["sessions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("2024-03-14  chat Bo: 3 conversations, 9 turns")
    assert all(line.startswith("    ") for line in lines[1:]) and len(lines) == 4
    assert [s["session_id"] for s in run_json(capsys, "sessions", "--chat", res["chat_id"])["sessions"]] == [
        s["session_id"] for s in listed
    ]

    middle = sorted(s["session_id"] for s in listed)[1]
    shown = run_json(capsys, "show", middle)
    assert shown["chat"]["position"] == 2 and shown["chat"]["count"] == 3
    assert shown["chat"]["previous"] < middle < shown["chat"]["next"]
    assert main(["show", middle]) == 0
    assert "conversation 2 of 3 in chat Bo" in capsys.readouterr().out
    whole = run_json(capsys, "show", res["chat_id"])
    assert [len(c["turns"]) for c in whole["conversations"]] == [2, 5, 2]
    assert run_json(capsys, "show", middle, "--chat") == whole


def test_an_old_catalog_gains_the_chat_columns(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations(name TEXT PRIMARY KEY, at REAL)")
    for name, sql in MIGRATIONS[:2]:
        db.executescript(sql)
        db.execute("INSERT INTO migrations VALUES (?, 0)", (name,))
    db.execute(
        "INSERT INTO sessions VALUES ('whatsapp:abc', 1, '/x/chat.txt', 'whatsapp', 'Bo', 0, '[]', 2, 'a,b')"
    )
    db.commit()
    db.close()
    cat = Catalog(path)
    rec = cat.get_session("whatsapp:abc")
    assert (rec.chat, rec.chat_title, rec.hashes) == ("", "", ("a", "b"))
    cat.close()


def test_reindex_splits_a_chat_indexed_whole_by_an_older_version(
    tmp_path: Path, refind_home: Path, capsys
) -> None:
    chat = write_chat(tmp_path / "chats", DAY1 + LATER)
    old = Settings(timezone="UTC", conversation_gap_hours=-1)  # one session per chat, as before
    svc = build_services(old, Paths.under(refind_home))
    svc.ingestor.ingest([chat])
    assert svc.catalog.session_count() == 1
    meta = svc.paths.index_dir / "refind_schema.json"
    svc.close()
    meta.write_text(json.dumps({"schema_version": 2}))  # what the previous version wrote
    assert main(["search", "sourdough"]) != 0
    assert "refind reindex" in capsys.readouterr().err
    assert main(["reindex"]) == 0
    capsys.readouterr()
    listed = run_json(capsys, "sessions")["sessions"]
    assert len(listed) == 3 and len({s["chat_id"] for s in listed}) == 1
