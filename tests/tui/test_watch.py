"""Pilot tests of watching: files written into the folder while the app runs become searchable in it."""

from __future__ import annotations

import json

from helpers.tui import wait_for, wait_indexed
from test_search import search

from refind_desktop.tui.messages import WatchIngested
from refind_desktop.tui.widgets import StatusBar

CLAUDE_SESSION = "7d3c1b2a-1111-4222-8333-444455556666"


def claude_line(uuid: str, text: str) -> str:
    return (
        json.dumps(
            {
                "parentUuid": None,
                "isSidechain": False,
                "type": "user",
                "sessionId": CLAUDE_SESSION,
                "message": {"role": "user", "content": text},
                "uuid": uuid,
                "timestamp": "2025-08-06T09:00:00.000Z",
            }
        )
        + "\n"
    )


class TestWatch:
    async def test_new_and_grown_files_become_searchable(self, make_app, chats):
        seen = []
        app = make_app()
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            await wait_indexed(pilot)
            await wait_for(pilot, lambda: app.watcher is not None and app.watcher.wait_idle(0.01))
            bar = app.query_one(StatusBar)
            before = bar.stats.turns
            pane = await search(pilot, "zeppelin")
            assert pane.last.blocks == []
            # a new file...
            (chats / "notes" / "zeppelin.md").write_text(
                "# Zeppelin ride\n\n**User:** I booked the zeppelin ride over Lake Constance for June 3.\n\n"
                "**Assistant:** Lovely, bring a jacket.\n",
                encoding="utf-8",
            )
            # ... and a grown JSONL
            with open(chats / "claude-code" / f"{CLAUDE_SESSION}.jsonl", "a", encoding="utf-8") as fh:
                fh.write(claude_line("cc-9001", "Also the quokka fixture in conftest is flaky"))
            await wait_for(pilot, lambda: bar.stats.turns > before, timeout=20)
            assert any(isinstance(m, WatchIngested) and m.event.kind == "ingested" for m in seen)
            # the search tab re-runs its query when the index changed
            await wait_for(pilot, lambda: pane.last.blocks != [], timeout=10)
            assert pane.last.blocks[0].session_title.lower().startswith("zeppelin")
            pane = await search(pilot, "quokka")
            assert [b.session_id for b in pane.last.blocks] == [f"claude-code:{CLAUDE_SESSION}"]
            assert bar.stats.updated is not None and bar.stats.watching
