"""TranscriptScreen: a session's turns, scrolled to and highlighting the cited or searched turn."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Label, Static
from textual.worker import Worker

from ...errors import NotFoundError
from ..messages import TranscriptLoaded, forward_failure
from ..widgets.text import highlight, plain, stamp

MAX_TURNS = 1500
"""Above this many turns only a window around the target turn is shown."""


class TurnBox(Static):
    """One turn of the transcript."""

    def __init__(self, turn: int, speaker: str, when: str, text: Text, cited: bool) -> None:
        super().__init__(classes="turn" + (" -cited" if cited else ""), id=f"turn-{turn}")
        self.turn = turn
        self.border_title = plain(f"#{turn} {speaker}".strip(), one_line=True)
        self.border_subtitle = plain(when, one_line=True)
        self._text = text

    def on_mount(self) -> None:
        self.update(self._text)


class TranscriptScreen(Screen[None]):
    """Opened from a citation, a search hit or the session list; Esc goes back."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="transcript.back"),
        Binding("c", "scroll_to_target", "Cited turn", id="transcript.target"),
    ]

    def __init__(self, session_id: str, turn: int | None = None, keywords: str = "") -> None:
        super().__init__(classes="transcript")
        self.session_id = session_id
        self.highlight_turn = turn
        self.keywords = keywords
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Label(plain(self.session_id, one_line=True), id="transcript-title")
        yield Label("loading…", id="transcript-meta")
        yield VerticalScroll(id="turns")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(
        thread=True,
        exclusive=True,
        group="transcript",
        exit_on_error=False,
        description="reading a transcript",
    )
    def load(self) -> None:
        svc = self.app.services  # type: ignore[attr-defined]
        rec = svc.catalog.get_session(self.session_id)
        if rec is None:
            raise NotFoundError(
                f"session {self.session_id!r} is no longer in the index; its file may have "
                "been removed. Search again to find where the text went."
            )
        lo, hi = 0, None
        if rec.n_turns > MAX_TURNS:
            centre = self.highlight_turn or 0
            lo, hi = max(0, centre - MAX_TURNS // 2), centre + MAX_TURNS // 2
        turns = svc.index.session_turns(rec.ord, lo, hi)
        host = svc.machines.host(rec.source)
        self.post_message(TranscriptLoaded(rec.sid, rec.title, rec.source, turns, host))

    async def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        self.query_one("#transcript-title", Label).update(
            plain(message.title or message.session_id, one_line=True)
        )
        self.query_one("#transcript-meta", Label).update(
            plain(
                f"{len(message.turns)} turns · {f'on {message.host} · ' if message.host else ''}"
                f"{self._short(message.source)} · id {message.session_id}",
                one_line=True,
            )
        )
        tz = self.app.services.tz  # type: ignore[attr-defined]
        boxes = [
            TurnBox(
                t.turn,
                t.speaker,
                stamp(t.timestamp.astimezone(tz) if t.timestamp else None),
                highlight(t.text, self.keywords) if self.keywords else plain(t.text),
                t.turn == self.highlight_turn,
            )
            for t in message.turns
        ]
        container = self.query_one("#turns", VerticalScroll)
        await container.mount_all(boxes)
        self.loaded = True
        self.call_after_refresh(self.action_scroll_to_target)

    def _short(self, source: str) -> str:
        """The source path relative to the chat folder when it lies inside it."""
        folder = getattr(self.app, "folder", None)
        if folder and source.startswith(folder.rstrip("/") + "/"):
            return source[len(folder.rstrip("/")) + 1 :]
        return source

    def action_scroll_to_target(self) -> None:
        """Bring the highlighted turn to the middle of the screen."""
        target = self.query(".-cited")
        if target:
            self.query_one("#turns", VerticalScroll).scroll_to_center(target.first(), animate=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_failure(self, event)
