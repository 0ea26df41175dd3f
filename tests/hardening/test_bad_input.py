"""One bad file never stops the rest: blow-ups, unreadable folders, bad timestamps, partial exports."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from refind_desktop.ingest.watcher import FolderWatcher

from .helpers import chatgpt_export, conversation, jsonl_chat, refind


def _turns(svc) -> int:
    svc.index.reload()
    return svc.index.num_turns()


def test_deeply_nested_files_are_skipped_with_a_reason_and_the_rest_ingests(svc, tmp_path):
    chats = tmp_path / "chats"
    jsonl_chat(chats / "good.jsonl", [("garlic depth?", "five centimetres")])
    (chats / "deep.json").write_text("[" * 5000)
    (chats / "deep.jsonl").write_text('{"role": "user", "content": ' + "[" * 5000 + "\n")
    (chats / "export").mkdir()
    (chats / "export" / "conversations.json").write_text("[" * 5000)
    for _ in range(2):  # a rerun behaves the same
        rep = svc.ingestor.ingest([chats])
        reasons = {Path(s.path).name: s.reason for s in rep.skipped}
        assert "nested too deeply" in reasons["deep.json"], reasons
        assert "nested too deeply" in reasons["conversations.json"], reasons
        assert _turns(svc) == 1
    stats = dict(svc.catalog.skipped())
    assert any(p.endswith("deep.json") for p in stats)


def test_cli_exit_is_clean_on_a_blow_up_file(tmp_path, refind_home):
    chats = tmp_path / "chats"
    jsonl_chat(chats / "good.jsonl", [("garlic depth?", "five centimetres")])
    (chats / "deep.json").write_text("[" * 5000)
    out = refind(refind_home, "ingest", str(chats))
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "nested too deeply" in out.stderr
    assert "added 1 turns" in out.stdout


def test_unreadable_sub_folder_is_reported_and_the_rest_ingests(svc, tmp_path, monkeypatch):
    chats = tmp_path / "chats"
    jsonl_chat(chats / "a.jsonl", [("garlic depth?", "five centimetres")])
    jsonl_chat(chats / "locked" / "b.jsonl", [("secret?", "none")])
    locked = str(chats / "locked")
    real_scandir, real_listdir = os.scandir, os.listdir

    def scandir(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    def listdir(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_listdir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    rep = svc.ingestor.ingest([chats])
    assert {Path(s.path).name: s.reason for s in rep.skipped}["locked"].startswith("unreadable")
    assert _turns(svc) == 1


def test_watcher_survives_a_parser_crash(svc, tmp_path, monkeypatch):
    """Whatever a file makes a reader do (here: any exception), the watcher keeps watching."""
    import refind_desktop.ingest.generic as generic

    chats = tmp_path / "chats"
    jsonl_chat(chats / "a.jsonl", [("garlic depth?", "five centimetres")])
    (chats / "deep.json").write_text("[" * 5000)
    events = []
    w = FolderWatcher(svc, chats, on_report=events.append, debounce=0.1)
    w.start()
    try:
        assert w.wait_idle(30)
        real = generic.parse

        def boom(path, ctx):
            if Path(path).name == "bomb.jsonl":
                raise RecursionError("maximum recursion depth exceeded")
            return real(path, ctx)

        monkeypatch.setattr(generic, "parse", boom)
        jsonl_chat(chats / "bomb.jsonl", [("x", "y")])
        time.sleep(0.3)
        assert w.wait_idle(30)
        jsonl_chat(chats / "later.jsonl", [("bikes chain lube?", "a wet lube")])
        time.sleep(0.3)
        assert w.wait_idle(30) and w.running
        assert svc.engine.search("chain lube")
    finally:
        w.stop()
    assert not [e for e in events if e.kind == "error"], [e.message for e in events]


def test_out_of_range_timestamps_drop_only_that_timestamp_and_say_so(svc, tmp_path):
    convs = [conversation(f"c{i}", f"T{i}", [(f"question {i} garlic", f"answer {i}")]) for i in range(4)]
    convs[1]["mapping"]["c1-m0"]["message"]["create_time"] = 1e10  # year 2286
    convs[2]["create_time"] = 253402300799  # 9999-12-31
    convs[2]["mapping"]["c2-m0"]["message"]["create_time"] = "0001-01-01T00:00:00Z"
    convs[2]["mapping"]["c2-m1"]["message"]["create_time"] = "0001-01-01T00:00:00Z"
    path = chatgpt_export(tmp_path / "chats" / "conversations.json", convs)
    rep = svc.ingestor.ingest([path])
    assert rep.added_turns == 4 and not rep.skipped, (rep.skipped, rep.warnings)
    said = [w for w in rep.warnings if "timestamps outside" in w]
    assert len(said) == 2 and "chatgpt:c1" in said[0] and "chatgpt:c2" in said[1]
    good = svc.index.session_turns(svc.catalog.get_session("chatgpt:c0").ord)
    assert good[0].timestamp is not None  # the other sessions keep their dates
    bad = svc.index.session_turns(svc.catalog.get_session("chatgpt:c1").ord)
    assert "question 1 garlic" in bad[0].text


def test_json_error_in_conversation_4_of_500_keeps_1_to_3_and_stats_says_partial(svc, tmp_path, refind_home):
    convs = [conversation(f"c{i}", f"T{i}", [(f"question {i} garlic", f"answer {i}")]) for i in range(500)]
    text = json.dumps(convs)
    cut = text.index('"title": "T3"')
    path = tmp_path / "chats" / "conversations.json"
    path.parent.mkdir()
    path.write_text(text[:cut] + '"title": "T3" oops, ' + text[cut + len('"title": "T3"') :])
    rep = svc.ingestor.ingest([path])
    assert rep.added_turns == 3 and rep.partial == [str(path)]
    out = refind(refind_home, "stats")
    assert f"PARTIAL {path}" in out.stdout, out.stdout
    stats = json.loads(refind(refind_home, "stats", "--json").stdout)
    assert stats["partial"][0]["path"] == str(path)
    # the repaired export is read in full (a partial file is never recorded as unchanged)
    path.write_text(text)
    rep = svc.ingestor.ingest([path])
    assert rep.added_turns == 497 and not rep.partial
    assert "PARTIAL" not in refind(refind_home, "stats").stdout


def test_lone_surrogates_in_text_and_undecodable_file_names_never_crash_the_ingest(svc, tmp_path):
    chats = tmp_path / "chats"
    chats.mkdir()
    lines = [
        json.dumps({"role": "user", "content": "tomato \udf79 seedlings"}),  # the JSON escape \udf79
        json.dumps({"role": "assistant", "content": "sow in march", "name": "bot\ud800"}),
    ]
    (chats / "s.jsonl").write_text("\n".join(lines) + "\n")
    (chats / os.fsdecode(b"bad-\xff-name.jsonl")).write_text("\n".join(lines) + "\n")
    rep = svc.ingestor.ingest([chats])
    assert rep.added_turns == 1, (rep.skipped, rep.warnings)
    assert any("not valid UTF-8" in s.reason for s in rep.skipped)
    assert "tomato \ufffd seedlings" in svc.engine.search("tomato seedlings")[0].turns[0].text
