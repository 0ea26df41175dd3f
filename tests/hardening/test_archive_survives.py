"""The archive survives its sources: reindex and schema upgrades keep the turns of files that are gone
(a messenger chat an older version stored whole comes back cut into conversations)."""

from __future__ import annotations

import json

from helpers.claude import claude_session

from refind_desktop.config import Settings
from refind_desktop.index.catalog import Catalog
from refind_desktop.index.kept import KEPT_NAME, KeptSources
from refind_desktop.index.sourcebook import REBUILD_NAME, RebuildMarker
from refind_desktop.ingest.rebuild import keep_gone, wipe
from refind_desktop.locations import Paths
from refind_desktop.search.engine import SearchOptions
from refind_desktop.services import build_services, reindex

from .helpers import jsonl_chat, refind

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
FIRST = [("x1", "how deep to plant zqxgarlic", "five centimetres"), ("x2", "and tulips", "fifteen")]
MORE = [("x3", "when to water the fig", "weekly")]


def folder(tmp_path):
    chats = tmp_path / "chats"
    gone = jsonl_chat(chats / "old-phone.jsonl", [("the zqxlocker code is 4711", "noted"), ("thanks", "ok")])
    jsonl_chat(chats / "bikes.jsonl", [("which chain lube for rain", "a wet lube")])
    return chats, gone


def search(home, *words: str) -> str:
    return refind(home, "search", *words, "--top-k", "20").stdout


def test_reindex_keeps_the_turns_of_a_file_that_is_gone(tmp_path, refind_home):
    chats, gone = folder(tmp_path)
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    gone.unlink()
    out = refind(refind_home, "reindex")
    assert out.returncode == 0, out.stderr
    assert f"gone, turns kept: {gone}" in out.stderr
    assert "zqxlocker code is 4711" in search(refind_home, "zqxlocker")
    assert "chain lube" in search(refind_home, "chain", "lube")
    stats = json.loads(refind(refind_home, "stats", "--json").stdout)
    assert stats["turns"] == stats["index_turns"] == 3
    assert stats["sources"] == 1 and stats["formats"]["generic"]["files"] == 1, "a gone file is not present"
    assert stats["gone"] == [{"path": str(gone), "format": "generic", "sessions": 1, "turns": 2}]
    text = refind(refind_home, "stats").stdout
    assert "1 sources (and 1 gone, turns kept)" in text and f"GONE {gone}: 2 turns kept" in text
    again = refind(refind_home, "reindex")  # a second rebuild keeps them again
    assert again.returncode == 0 and "zqxlocker" in search(refind_home, "zqxlocker")
    out = refind(refind_home, "forget", str(gone))  # forget stays the one way to delete them
    assert out.returncode == 0 and "removed 2 turns" in out.stdout
    assert "zqxlocker" not in search(refind_home, "zqxlocker")
    stats = json.loads(refind(refind_home, "stats", "--json").stdout)
    assert stats["gone"] == [] and stats["turns"] == 1


def test_a_reindex_killed_after_the_wipe_still_keeps_them(tmp_path, refind_home):
    chats, gone = folder(tmp_path)
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    gone.unlink()
    data = refind_home / "data"
    # what `refind reindex` does before it is killed: keep, marker, wipe; nothing re-read yet
    cat = Catalog(data / "catalog.sqlite")
    assert keep_gone(cat, data / "index", KeptSources(data / KEPT_NAME), set()) == 2
    cat.close()
    RebuildMarker(data / REBUILD_NAME).start([str(chats / "bikes.jsonl")])
    wipe(data, data / "index", data / "catalog.sqlite")
    (tmp_path / "elsewhere").mkdir()
    out = refind(refind_home, "ingest", str(tmp_path / "elsewhere"))  # any writer finishes the rebuild
    assert "zqxlocker code is 4711" in search(refind_home, "zqxlocker")
    stats = json.loads(refind(refind_home, "stats", "--json").stdout)
    assert stats["turns"] == stats["index_turns"] == 3 and not stats["rebuild_pending"], out.stderr
    assert not (data / KEPT_NAME).exists() and not (data / REBUILD_NAME).exists()


def test_a_schema_upgrade_rebuild_reads_the_old_index_for_gone_files(tmp_path, refind_home):
    chats, gone = folder(tmp_path)
    svc = build_services()
    svc.ingestor.ingest([chats])
    svc.close()
    gone.unlink()
    index = refind_home / "data" / "index"
    (index / "refind_schema.json").write_text(json.dumps({"schema_version": 1}))  # an older release's index
    out = refind(refind_home, "search", "chain")
    assert out.returncode != 0 and "refind reindex" in out.stderr
    result = reindex()
    assert result.kept_turns == 2 and result.gone == [str(gone)]
    svc = build_services()
    assert [b.session_title for b in svc.engine.search("zqxlocker")] == ["old-phone"]
    svc.close()


def test_a_resumed_session_over_a_gone_first_file_stays_once_after_reindex(tmp_path, refind_home):
    chats = tmp_path / "chats"
    first = claude_session(chats, A, FIRST)
    claude_session(chats, B, FIRST + MORE)
    svc = build_services()
    svc.ingestor.ingest([chats])
    svc.close()
    first.unlink()
    reindex()
    svc = build_services()
    turns = {i.session_id: i.turns for i in svc.catalog.session_infos()}
    assert turns == {f"claude-code:{A}": 2, f"claude-code:{B}": 1}
    assert svc.index.num_turns() == 3
    assert svc.catalog.get_session(f"claude-code:{B}").continues == f"claude-code:{A}"
    svc.close()


def test_an_unreadable_index_with_gone_files_stops_the_reindex_and_changes_nothing(tmp_path, refind_home):
    chats, gone = folder(tmp_path)
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    gone.unlink()
    meta = refind_home / "data" / "index" / "meta.json"
    meta.write_text("{ not json")
    out = refind(refind_home, "reindex")
    assert out.returncode != 0
    assert "nothing was changed" in out.stderr and "refind forget" in out.stderr
    assert meta.read_text() == "{ not json", "the index was not wiped"
    cat = Catalog(refind_home / "data" / "catalog.sqlite")
    assert {f.path for f in cat.files()} == {str(gone), str(chats / "bikes.jsonl")}
    cat.close()
    assert not (refind_home / "data" / REBUILD_NAME).exists()


CHAT = [
    "12/03/2024, 09:02 - Ann: Morning! Is the zqxsourdough starter alive?",
    "12/03/2024, 09:06 - Bo: Bubbling away, I fed it last night",
    "12/03/2024, 19:40 - Emi: I booked my travel to Lisbon for May!",
    "12/03/2024, 19:42 - Bo: Travel plans, travel plans, travel everywhere this spring",
    "12/03/2024, 22:55 - Emi: Ten days, and then Porto",
    "14/03/2024, 18:00 - Ann: The zqxsourdough came out flat",
    "14/03/2024, 18:05 - Bo: Too little starter?",
]


def test_a_gone_chat_stored_whole_comes_back_as_conversations_with_its_speakers(tmp_path, refind_home):
    chat = tmp_path / "chats" / "WhatsApp Chat with Bo.txt"
    chat.parent.mkdir(parents=True)
    chat.write_text("\n".join(CHAT) + "\n", encoding="utf-8")
    paths = Paths.under(refind_home)
    svc = build_services(Settings(timezone="UTC", conversation_gap_hours=-1), paths)  # one session per chat
    svc.ingestor.ingest([chat])
    (whole,) = list(svc.catalog.iter_sessions())
    # as a version before conversations left it: the chat columns empty, the index of schema 2
    svc.catalog.db.execute("UPDATE sessions SET chat='', chat_title=''")
    svc.catalog.commit()
    svc.close()
    (paths.index_dir / "refind_schema.json").write_text(json.dumps({"schema_version": 2}))
    chat.unlink()
    result = reindex()
    assert result.kept_turns == 7 and result.gone == [str(chat)]
    svc = build_services()
    convs = svc.catalog.chat_sessions(whole.sid)
    assert [c.n_turns for c in convs] == [2, 3, 2], "cut at the 4-hour pauses, as a read of the file would"
    assert all(c.sid.startswith(whole.sid + ":") and c.chat_title == whole.title for c in convs)
    assert svc.index.num_turns() == 7 and svc.catalog.session_count() == 3
    opts = SearchOptions(top_k=1, context_window=0)
    # the `who` field is filled again from the stored speaker: Emi's own message ranks first
    (hit,) = svc.engine.search("Emi travel", options=opts)
    assert [(t.speaker, t.text) for t in hit.turns] == [("Emi", "I booked my travel to Lisbon for May!")]
    assert json.loads(refind(refind_home, "stats", "--json").stdout)["gone"][0]["sessions"] == 3
    svc.close()
    before = {c.sid: c.hashes for c in convs}
    reindex()  # a second rebuild keeps the conversations as they are
    svc = build_services()
    assert {c.sid: c.hashes for c in svc.catalog.chat_sessions(whole.sid)} == before
    svc.close()
