"""Layout snapshots (SVG, pytest-textual-snapshot): ask after an answer, search hits, a transcript, the
first-run dialog."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest
from helpers.tui import wait_for, wait_indexed
from textual.widgets import Input

from refind_desktop.tui.screens import AskPane, SearchPane, TranscriptScreen, WelcomeScreen
from refind_desktop.tui.widgets import StatusBar

pytest.importorskip("pytest_textual_snapshot")
SIZE = (110, 34)


async def settle(pilot) -> None:
    """Indexed and watched, with the machine-specific bits (folder, clock) pinned."""
    app = pilot.app
    await wait_indexed(pilot)
    await wait_for(pilot, lambda: app.watcher is not None and app.watcher.wait_idle(0.01))
    app.sub_title = "~/chats"
    bar = app.query_one(StatusBar)
    bar.stats = replace(bar.stats, updated=datetime(2025, 4, 1, 9, 30))


class TestLayout:
    def test_ask_after_an_answer(self, make_app, snap_compare):
        async def run_before(pilot):
            await settle(pilot)
            pane = pilot.app.query_one(AskPane)
            pilot.app.query_one("#question", Input).value = "When is my flight to Lisbon?"
            await pilot.press("enter")
            await wait_for(pilot, lambda: 1 in pane.records and not pane.busy)
            await pilot.pause()

        assert snap_compare(make_app(), run_before=run_before, terminal_size=SIZE)

    def test_search_with_hits(self, make_app, snap_compare):
        async def run_before(pilot):
            await settle(pilot)
            await pilot.press("f3")
            pane = pilot.app.query_one(SearchPane)
            pane.query_one("#search-query", Input).value = "flight Lisbon"
            await pilot.press("enter")
            await wait_for(pilot, lambda: pane.last is not None)
            pane.on_search_finished(replace(pane.last, seconds=0.004))  # pin the timing shown
            await pilot.pause()

        assert snap_compare(make_app(), run_before=run_before, terminal_size=SIZE)

    def test_transcript_highlights_the_turn(self, make_app, snap_compare):
        async def run_before(pilot):
            await settle(pilot)
            pilot.app.push_screen(TranscriptScreen("chatgpt:c0ffee00-0000-4000-8000-000000000001", 2))
            await wait_for(pilot, lambda: getattr(pilot.app.screen, "loaded", False))
            await pilot.pause()

        assert snap_compare(make_app(), run_before=run_before, terminal_size=SIZE)

    def test_first_run_dialog_over_its_own_footer(self, make_app, snap_compare):
        async def run_before(pilot):
            await wait_for(pilot, lambda: isinstance(pilot.app.screen, WelcomeScreen))
            footer = pilot.app.screen.query_one("Footer")
            await wait_for(pilot, lambda: bool(footer.query("FooterKey")))
            await pilot.pause()

        assert snap_compare(make_app(folder=None), run_before=run_before, terminal_size=SIZE)
