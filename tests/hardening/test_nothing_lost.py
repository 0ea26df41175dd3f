"""Nothing silently lost or resurrected: truncated files, forget vs. watch, duplicate sessions."""

from __future__ import annotations

import json
import time
from pathlib import Path

from refind_desktop.ingest.watcher import FolderWatcher

from .helpers import chatgpt_export, conversation, jsonl_chat, refind


def _turns(svc) -> int:
    svc.index.reload()
    return svc.index.num_turns()


def _export(path: Path, n: int) -> tuple[Path, str]:
    convs = [conversation(f"c{i}", f"T{i}", [(f"question {i} garlic", f"answer {i}")]) for i in range(n)]
    chatgpt_export(path, convs)
    return path, path.read_text()


def test_export_cut_in_half_deletes_no_indexed_turn(svc, tmp_path, refind_home):
    path, full = _export(tmp_path / "chats" / "conversations.json", 200)
    assert svc.ingestor.ingest([path]).added_turns == 200
    path.write_text(full[: len(full) // 2])  # a broken download / re-sync
    rep = svc.ingestor.ingest([path])
    assert rep.removed_turns == 0 and _turns(svc) == 200
    assert rep.partial == [str(path)]
    path.write_text(full)  # the bytes come back: read again (never "unchanged"), nothing missing
    rep = svc.ingestor.ingest([path])
    assert rep.unchanged_files == 0 and _turns(svc) == 200 and not rep.partial


def test_a_smaller_complete_file_keeps_old_turns_until_accepted(svc, tmp_path, refind_home):
    chats = tmp_path / "chats"
    path, _ = _export(chats / "conversations.json", 10)
    svc.ingestor.ingest([path])
    _export(path, 6)  # complete, valid JSON, but 4 conversations fewer
    rep = svc.ingestor.ingest([path])
    assert rep.removed_turns == 0 and _turns(svc) == 10
    assert rep.held and "4 sessions" in rep.held[0] and "--accept-shrink" in rep.held[0]
    out = refind(refind_home, "stats")
    assert f"HELD {path}" in out.stdout
    again = svc.ingestor.ingest([path])  # still held, still said
    assert again.held and _turns(svc) == 10
    out = refind(refind_home, "ingest", "--accept-shrink", str(path))
    assert out.returncode == 0 and "removed 4" in out.stdout, out.stdout + out.stderr
    assert _turns(svc) == 6 and "HELD" not in refind(refind_home, "stats").stdout


def test_a_session_cut_short_keeps_its_turns(svc, tmp_path):
    chats = tmp_path / "chats"
    pairs = [(f"question {i} about tomatoes", f"answer {i}") for i in range(8)]
    path = jsonl_chat(chats / "long.jsonl", pairs)
    svc.ingestor.ingest([path])
    jsonl_chat(path, pairs[:3])
    rep = svc.ingestor.ingest([path])
    assert rep.removed_turns == 0 and _turns(svc) == 8 and rep.held
    jsonl_chat(path, [*pairs, ("one more", "sure")])  # a complete newer file arrives: applied
    rep = svc.ingestor.ingest([path])
    assert not rep.held and _turns(svc) == 9


def test_a_file_changed_while_being_read_is_not_recorded(svc, tmp_path, monkeypatch):
    import refind_desktop.ingest.generic as generic

    path = jsonl_chat(tmp_path / "chats" / "live.jsonl", [(f"q{i} beans", f"a{i}") for i in range(6)])
    real = generic.parse

    def truncating(p, ctx):
        yield from real(p, ctx)
        jsonl_chat(path, [("q0 beans", "a0")])  # truncated by a re-sync during the ingest

    monkeypatch.setattr(generic, "parse", truncating)
    rep = svc.ingestor.ingest([path])
    assert "changed while being read" in rep.skipped[0].reason
    assert svc.catalog.get_file(str(path)) is None and _turns(svc) == 0
    monkeypatch.setattr(generic, "parse", real)
    jsonl_chat(path, [(f"q{i} beans", f"a{i}") for i in range(6)])
    assert svc.ingestor.ingest([path]).added_turns == 6


def test_forget_stays_forgotten_for_ingest_and_watch_until_unforget(svc, tmp_path, refind_home):
    chats = tmp_path / "chats"
    jsonl_chat(chats / "secret.jsonl", [("my zqxvorpal code", "noted")])
    jsonl_chat(chats / "other.jsonl", [("bikes chain lube?", "a wet lube")])
    svc.ingestor.ingest([chats])
    assert svc.ingestor.forget(chats / "secret.jsonl") == 1
    rep = svc.ingestor.ingest([chats])
    assert any("forgotten" in s.reason and "unforget" in s.reason for s in rep.skipped)
    assert not svc.engine.search("zqxvorpal")
    w = FolderWatcher(svc, chats, debounce=0.1)
    w.start()
    try:
        assert w.wait_idle(30)
        jsonl_chat(chats / "secret.jsonl", [("my zqxvorpal code", "noted"), ("changed", "yes")])
        jsonl_chat(chats / "new.jsonl", [("tomato seedlings?", "in march")])
        time.sleep(0.3)
        assert w.wait_idle(30)
        assert svc.engine.search("tomato seedlings") and not svc.engine.search("zqxvorpal")
    finally:
        w.stop()
    listed = refind(refind_home, "forget", "--list")
    assert listed.stdout.split() == [str(chats / "secret.jsonl")]
    out = refind(refind_home, "unforget", str(chats / "secret.jsonl"))
    assert out.returncode == 0, out.stderr
    assert refind(refind_home, "forget", "--list").stdout == ""
    svc.ingestor.ingest([chats])
    assert svc.engine.search("zqxvorpal")


def test_a_differing_same_id_copy_is_kept_and_a_same_copy_comes_back_after_forget(svc, tmp_path):
    a, b, c = (tmp_path / d / "conversations.json" for d in "abc")
    chatgpt_export(a, [conversation("x", "Trip", [("flight to Lisbon?", "TP1351")])])
    chatgpt_export(b, [conversation("x", "Trip", [("flight to Porto?", "TP1944")])])  # same id, other text
    chatgpt_export(c, [conversation("x", "Trip", [("flight to Lisbon?", "TP1351")])])  # identical to a
    for p in (a, b, c):
        svc.ingestor.ingest([p])
    assert svc.engine.search("Lisbon") and svc.engine.search("Porto")
    assert _turns(svc) == 2
    svc.ingestor.forget(a)  # the copy in c is indexed again, not "unchanged" and gone
    assert svc.engine.search("Lisbon") and _turns(svc) == 2
    assert svc.catalog.get_session("chatgpt:x").source == str(c)


def test_same_id_twice_in_one_file_with_different_text_keeps_both(svc, tmp_path):
    path = chatgpt_export(
        tmp_path / "conversations.json",
        [conversation("x", "A", [("apples?", "red")]), conversation("x", "B", [("pears?", "green")])],
    )
    rep = svc.ingestor.ingest([path])
    assert rep.added_turns == 2 and svc.engine.search("pears") and svc.engine.search("apples")


def test_markdown_transcripts_with_same_name_and_first_line_in_two_folders_do_not_collide(svc, tmp_path):
    for folder, word in (("one", "cucumbers"), ("two", "zucchini")):
        p = tmp_path / folder / "notes.md"
        p.parent.mkdir()
        p.write_text(
            f"**User:** Hello there\n\n**Assistant:** Hi\n\n**User:** tell me about {word}\n\n"
            f"**Assistant:** {word} grow fast\n"
        )
        svc.ingestor.ingest([p])
    assert svc.engine.search("cucumbers") and svc.engine.search("zucchini")
    assert json.dumps([s.source for s in svc.catalog.session_infos()]).count("notes.md") == 2


def test_the_app_honours_the_ignore_list(svc, tmp_path):
    import asyncio

    from refind_desktop.tui import RefindApp
    from refind_desktop.tui.widgets import StatusBar

    chats = tmp_path / "chats"
    jsonl_chat(chats / "secret.jsonl", [("my zqxvorpal code", "noted")])
    jsonl_chat(chats / "other.jsonl", [("bikes chain lube?", "a wet lube")])
    svc.ingestor.ingest([chats])
    svc.ingestor.forget(chats / "secret.jsonl")
    jsonl_chat(chats / "secret.jsonl", [("my zqxvorpal code", "noted"), ("and again", "yes")])

    async def run() -> None:
        app = RefindApp(svc, folder=str(chats), backend_factory=lambda *a, **k: None, debounce=0.1)
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(400):
                bars = app.query(StatusBar)
                bar = bars.first() if bars else None
                if bar and bar.indexing is None and bar.stats.sessions > 0 and app.watcher is not None:
                    break
                await pilot.pause(0.05)
            assert app.watcher.wait_idle(30)
            jsonl_chat(chats / "new.jsonl", [("tomato seedlings?", "in march")])
            for _ in range(200):
                if svc.engine.search("tomato seedlings"):
                    break
                await pilot.pause(0.05)
            app.watcher.stop()
            await pilot.pause(0.1)

    asyncio.run(run())
    assert svc.engine.search("tomato seedlings") and not svc.engine.search("zqxvorpal")
