"""SearchPane: a chat-app style search box with date filters; its worker calls `SearchEngine.search`."""

from __future__ import annotations

import time
from datetime import date

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, Label
from textual.worker import Worker

from ..messages import SearchFinished, forward_failure
from ..widgets.results import ResultList

TYPING_PAUSE = 0.3
"""Seconds of no typing before the search runs by itself."""


def parse_day(value: str) -> date | None:
    """YYYY-MM-DD (empty means no bound); ValueError otherwise."""
    value = value.strip()
    return date.fromisoformat(value) if value else None


class SearchPane(Vertical):
    """Type keywords (and optionally a date range); Enter on a hit opens its transcript."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._timer: Timer | None = None
        self.last: SearchFinished | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-bar"):
            yield Input(placeholder="Search your chats…", id="search-query")
            yield Input(placeholder="from YYYY-MM-DD", id="search-from", classes="date")
            yield Input(placeholder="to YYYY-MM-DD", id="search-to", classes="date")
        yield Label("Type a few words; dates are optional.", id="search-summary")
        yield ResultList(tz=self.app.services.tz, id="results")  # type: ignore[attr-defined]

    @on(Input.Changed)
    def typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(TYPING_PAUSE, self.search)

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self.search()
        if event.input.id == "search-query":
            self.query_one(ResultList).focus()

    def search(self) -> None:
        """Run the query in the boxes (invalid dates are marked, not searched)."""
        query = self.query_one("#search-query", Input).value.strip()
        bounds: list[date | None] = []
        for box_id in ("#search-from", "#search-to"):
            box = self.query_one(box_id, Input)
            try:
                bounds.append(parse_day(box.value))
                box.set_class(False, "-invalid")
            except ValueError:
                box.set_class(True, "-invalid")
                self.query_one("#search-summary", Label).update(
                    "Dates are written YYYY-MM-DD, e.g. 2025-03-01."
                )
                return
        if not query:
            self.query_one(ResultList).results = ("", ())
            self.query_one("#search-summary", Label).update("Type a few words; dates are optional.")
            return
        self.run_search(query, bounds[0], bounds[1])

    def refresh_results(self) -> None:
        """Re-run the current query (the index changed)."""
        if self.query_one("#search-query", Input).value.strip():
            self.search()

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="searching")
    def run_search(self, query: str, date_from: date | None, date_to: date | None) -> None:
        svc = self.app.services  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        blocks = svc.engine.search(query, date_from, date_to, options=svc.search_options(top_k=20))
        self.post_message(SearchFinished(query, date_from, date_to, blocks, time.perf_counter() - t0))

    def on_search_finished(self, message: SearchFinished) -> None:
        self.last = message
        span = ""
        if message.date_from or message.date_to:
            span = f" between {message.date_from or '…'} and {message.date_to or '…'}"
        n = len(message.blocks)
        self.query_one("#search-summary", Label).update(
            f"{n} result{'s' if n != 1 else ''} for “{message.query}”{span} ({message.seconds * 1000:.0f} ms)"
        )
        self.set_class(n == 0, "-empty")
        self.query_one(ResultList).results = (message.query, tuple(message.blocks))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_failure(self, event)
