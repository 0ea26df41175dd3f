"""The server sees a concurrent ingest without a restart; read-only by default; `--allow-ingest` limits."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import json
from pathlib import Path

from mcp_harness import DATA, make_archive, refind, serve

NEW_CHAT = [
    {
        "id": "xylo",
        "title": "Music lessons",
        "create_time": 1711972800,
        "messages": [
            {"role": "user", "content": "I signed up for xylophone lessons on Thursdays."},
            {"role": "assistant", "content": "Xylophone is a fun start."},
        ],
    }
]


async def test_concurrent_ingest_is_visible_to_the_next_call(tmp_path):
    home = make_archive(tmp_path / "home")
    async with serve(home) as s:
        before = await s.call_tool("search", {"keywords": "xylophone"})
        assert before.structured_content == {"results": []}
        stats = (await s.call_tool("stats", {})).structured_content
        new = tmp_path / "chats" / "new.json"
        new.parent.mkdir()
        new.write_text(json.dumps(NEW_CHAT), encoding="utf-8")
        done = refind(home, "ingest", str(new))  # another process writes while the server runs
        assert done.returncode == 0, done.stderr
        after = await s.call_tool("search", {"keywords": "xylophone"})
        assert [r["session_title"] for r in after.structured_content["results"]] == [
            "<<<RECORD 1 title\nMusic lessons\nRECORD 1 title>>>"
        ]
        sid = after.structured_content["results"][0]["session_id"]
        assert not (await s.call_tool("show", {"session_id": sid})).is_error
        assert (await s.call_tool("stats", {})).structured_content["sessions"] == stats["sessions"] + 1


async def test_refind_watch_running_beside_the_server(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    import anyio
    from mcp_harness import server_env

    home = make_archive(tmp_path / "home")
    folder = tmp_path / "watched"
    folder.mkdir()
    log = open(tmp_path / "watch.err", "w")  # noqa: SIM115
    watch = subprocess.Popen(
        [sys.executable, "-m", "refind_desktop", "watch", str(folder), "--debounce", "0.2"],
        env={**os.environ, **server_env(home)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        async with serve(home) as s:
            assert (await s.call_tool("search", {"keywords": "xylophone"})).structured_content == {
                "results": []
            }
            (folder / "new.json").write_text(json.dumps(NEW_CHAT), encoding="utf-8")
            found = []
            with anyio.fail_after(60):
                while not found:
                    await anyio.sleep(0.3)
                    res = await s.call_tool("search", {"keywords": "xylophone"})
                    found = res.structured_content["results"]
            assert "Music lessons" in found[0]["session_title"]
    finally:
        watch.send_signal(signal.SIGTERM)
        assert watch.wait(timeout=30) == 0
        log.close()


async def test_allow_ingest_is_limited_to_the_chat_folder(tmp_path):
    home = tmp_path / "home"
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / "new.json").write_text(json.dumps(NEW_CHAT), encoding="utf-8")
    outside = tmp_path / "elsewhere.json"
    outside.write_text((DATA / "chats.json").read_text(), encoding="utf-8")
    async with serve(home, "--allow-ingest", REFIND_CHAT_FOLDER=str(folder)) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert "ingest" in tools and tools["ingest"].annotations.read_only_hint is False
        refused = await s.call_tool("ingest", {"paths": [str(outside)]})
        assert refused.is_error and "only reads the configured chat folder" in refused.content[0].text
        sneaky = await s.call_tool("ingest", {"paths": [str(folder / ".." / "elsewhere.json")]})
        assert sneaky.is_error
        assert (await s.call_tool("stats", {})).structured_content["turns"] == 0  # nothing was read
        progress = []

        async def on_progress(done, total, message):
            progress.append((done, total))

        report = await s.call_tool("ingest", {}, progress_callback=on_progress)
        assert not report.is_error, report.content
        assert (
            report.structured_content["added_turns"] == 1 and report.structured_content["cancelled"] is False
        )
        assert progress and progress[-1] == (1, 1)
        hits = await s.call_tool("search", {"keywords": "xylophone"})
        assert len(hits.structured_content["results"]) == 1


async def test_ingest_tool_needs_the_flag_and_a_folder(tmp_path):
    home = tmp_path / "home"
    async with serve(home) as s:
        res = await s.call_tool("ingest", {})
        assert res.is_error and "ingest" in res.content[0].text  # unknown tool: read-only server
    async with serve(home, "--allow-ingest") as s:
        res = await s.call_tool("ingest", {})
        assert res.is_error and "no chat folder is configured" in res.content[0].text


async def test_allow_ingest_does_not_follow_links_out_of_the_chat_folder(tmp_path):
    """A symbolic link inside the chat folder to a folder or a file outside it: refused when named, skipped
    (never opened) in the walk; a link that stays inside the folder is read."""
    home = tmp_path / "home"
    folder = tmp_path / "chats"
    (folder / "real").mkdir(parents=True)
    (folder / "real" / "new.json").write_text(json.dumps(NEW_CHAT), encoding="utf-8")
    (folder / "inner").symlink_to(folder / "real")  # stays inside: fine
    private = tmp_path / "private"
    private.mkdir()
    (private / "bank.json").write_text((DATA / "chats.json").read_text(), encoding="utf-8")
    (folder / "linked").symlink_to(private)
    (folder / "one.json").symlink_to(private / "bank.json")
    async with serve(home, "--allow-ingest", REFIND_CHAT_FOLDER=str(folder)) as s:
        for named in (folder / "linked", folder / "linked" / "bank.json", folder / "one.json"):
            refused = await s.call_tool("ingest", {"paths": [str(named)]})
            assert refused.is_error and "symbolic link" in refused.content[0].text, named
            assert "outside the chat folder" in refused.content[0].text
        report = await s.call_tool("ingest", {})
        assert not report.is_error, report.content
        skipped = {Path(x["path"]).name: x["reason"] for x in report.structured_content["skipped"]}
        assert set(skipped) == {"linked", "one.json"} and all("outside" in r for r in skipped.values())
        assert report.structured_content["added_turns"] == 1  # real/new.json (inner/ is the same folder)
        assert (await s.call_tool("search", {"keywords": "umbrella"})).structured_content["results"] == []
