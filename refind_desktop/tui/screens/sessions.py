"""SessionsPane: every indexed session by date and source, filterable; Enter opens the transcript.

A messenger chat's conversations sit together under their chat (the `chat` column; the filter
matches chat names too), chats ordered by their newest conversation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Label, Select
from textual.worker import Worker

from ...types import SessionInfo
from ..messages import SessionsLoaded, forward_failure
from ..widgets.text import day, plain

ALL = "all sources"


class SessionsPane(Vertical):
    """The parent asks it to `reload()` when the index changed."""

    @dataclass
    class SessionChosen(Message):
        """The user opened a session."""

        session_id: str

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sessions: list[SessionInfo] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="sessions-bar"):
            yield Input(placeholder="Filter by title or file…", id="sessions-filter")
            yield Select([(ALL, ALL)], value=ALL, allow_blank=False, id="sessions-format", compact=True)
        yield Label("", id="sessions-summary")
        yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("date", key="date")
        table.add_column("format", key="format")
        table.add_column("turns", key="turns")
        table.add_column("chat", key="chat")
        table.add_column("title", key="title")
        table.add_column("file", key="file")

    def reload(self) -> None:
        """Read the session list again."""
        self.load_sessions()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False, description="listing sessions")
    def load_sessions(self) -> None:
        svc = self.app.services  # type: ignore[attr-defined]
        self.post_message(SessionsLoaded(list(svc.catalog.session_infos())))

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        self.sessions = message.sessions
        formats = sorted({s.format for s in self.sessions if s.format})
        select = self.query_one("#sessions-format", Select)
        current = select.value
        select.set_options([(ALL, ALL)] + [(f, f) for f in formats])
        select.value = current if current in formats else ALL
        self._fill()

    @on(Input.Changed, "#sessions-filter")
    @on(Select.Changed, "#sessions-format")
    def filter_changed(self, event: Message) -> None:
        event.stop()
        self._fill()

    def _fill(self) -> None:
        text = self.query_one("#sessions-filter", Input).value.strip().lower()
        fmt = self.query_one("#sessions-format", Select).value
        rows = [
            s
            for s in self.sessions
            if (fmt in (ALL, Select.BLANK) or s.format == fmt)
            and (
                not text
                or text in s.title.lower()
                or text in s.source.lower()
                or text in s.session_id.lower()
                or text in s.chat_title.lower()
            )
        ]
        rows = grouped(rows)
        tz = self.app.services.tz  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        table.clear()
        for s in rows:
            table.add_row(
                day(s.started_at.astimezone(tz) if s.started_at else None),
                plain(s.format, one_line=True),
                str(s.turns),
                plain(s.chat_title, one_line=True),
                plain(s.title or s.session_id, one_line=True),
                plain(Path(s.source).name, one_line=True),
                key=s.session_id,
            )
        chats = len({s.chat_id for s in rows if s.chat_id})
        in_chats = f" ({chats} chats)" if chats else ""
        self.query_one("#sessions-summary", Label).update(
            f"{len(rows)} of {len(self.sessions)} sessions{in_chats}, newest first · click a column to sort"
        )

    @on(DataTable.RowSelected, "#sessions-table")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.SessionChosen(str(event.row_key.value)))

    @on(DataTable.HeaderSelected, "#sessions-table")
    def sort_by(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        key = event.column_key
        numeric = key.value == "turns"
        self.query_one(DataTable).sort(
            key, key=(lambda v: int(v)) if numeric else None, reverse=key.value in ("date", "turns")
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_failure(self, event)


def grouped(rows: list[SessionInfo]) -> list[SessionInfo]:
    """Sessions newest first, with each chat's conversations right after its newest one."""
    order: dict[str, list[SessionInfo]] = {}
    for s in rows:
        order.setdefault(s.chat_id or "\0" + s.session_id, []).append(s)
    return [s for members in order.values() for s in members]
