"""Pilot tests of the search and sessions tabs: date filters, snippets, opening transcripts."""

from __future__ import annotations

from datetime import date

from helpers.tui import LISBON, wait_for, wait_indexed
from textual.widgets import DataTable, Input

from refind_desktop.tui.messages import SearchFinished
from refind_desktop.tui.screens import SearchPane, SessionsPane, TranscriptScreen
from refind_desktop.tui.widgets import ResultList


async def search(pilot, query: str, date_from: str = "", date_to: str = "") -> SearchPane:
    app = pilot.app
    await pilot.press("f3")
    pane = app.query_one(SearchPane)
    pane.query_one("#search-from", Input).value = date_from
    pane.query_one("#search-to", Input).value = date_to
    box = pane.query_one("#search-query", Input)
    box.value = query
    box.focus()
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: (
            pane.last is not None
            and pane.last.query == query
            and (pane.last.date_from, pane.last.date_to)
            == (
                date.fromisoformat(date_from) if date_from else None,
                date.fromisoformat(date_to) if date_to else None,
            )
        ),
    )
    return pane


class TestSearch:
    async def test_date_filter_narrows_the_hits(self, make_app):
        seen = []
        app = make_app()
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            await wait_indexed(pilot)
            pane = await search(pilot, "tomatoes OR flight OR sourdough")
            every = {b.session_id for b in pane.last.blocks}
            assert len(every) >= 3
            pane = await search(pilot, "tomatoes OR flight OR sourdough", "2025-03-01", "2025-03-31")
            assert [b.session_id for b in pane.last.blocks] == [LISBON]
            assert any(isinstance(m, SearchFinished) and m.date_from == date(2025, 3, 1) for m in seen)
            results = pane.query_one(ResultList)
            assert len(results) == 1
            assert "1 result" in str(pane.query_one("#search-summary").render())

    async def test_bad_date_is_marked_not_searched(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f3")
            pane = app.query_one(SearchPane)
            pane.query_one("#search-from", Input).value = "March 3rd"
            pane.query_one("#search-query", Input).value = "flight"
            pane.search()
            await pilot.pause(0.2)
            assert pane.query_one("#search-from").has_class("-invalid")
            assert pane.last is None

    async def test_hit_opens_transcript_around_it_with_highlights(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = await search(pilot, "TP1351")
            hit = pane.last.blocks[0]
            assert (hit.session_id, hit.turn) == (LISBON, 2)
            snippet = pane.query_one(ResultList).children[0].query(".hit-body").first().content
            marked = [snippet.plain[s.start : s.end] for s in snippet.spans if "reverse" in str(s.style)]
            assert marked == ["TP1351"]  # the keyword is highlighted
            pane.query_one(ResultList).focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded)
            assert app.screen.session_id == LISBON
            assert [w.id for w in app.screen.query(".-cited")] == ["turn-2"]


class TestSessions:
    async def test_sessions_list_filters_and_opens(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f4")
            pane = app.query_one(SessionsPane)
            table = pane.query_one(DataTable)
            await wait_for(pilot, lambda: table.row_count == 6)
            assert table.get_row_at(0)[0] == "2025-08-13"  # newest first
            pane.query_one("#sessions-format").value = "chatgpt"
            await wait_for(pilot, lambda: table.row_count == 3)
            pane.query_one("#sessions-filter", Input).value = "lisbon"
            await wait_for(pilot, lambda: table.row_count == 1)
            table.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded)
            assert app.screen.session_id == LISBON and len(app.screen.query(".turn")) == 4
