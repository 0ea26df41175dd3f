"""StatusBar: sources, sessions, turns, last update, skipped files, indexing and model progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Label, ProgressBar


@dataclass(frozen=True)
class IndexStats:
    """What the status bar shows about the index."""

    sources: int = 0
    sessions: int = 0
    turns: int = 0
    skipped: int = 0
    updated: datetime | None = None
    watching: str = ""


class StatusBar(Horizontal):
    """The bottom bar; the app sets its reactives, it posts requests up."""

    @dataclass
    class SkippedRequested(Message):
        """The user clicked the skipped-files count."""

    @dataclass
    class CancelIndexingRequested(Message):
        """The user clicked cancel on the indexing progress."""

    stats: reactive[IndexStats] = reactive(IndexStats, init=False)
    indexing: reactive[tuple[int, int] | None] = reactive(None, init=False)
    """(files done, files total) while a folder ingest runs, else None."""
    model: reactive[str] = reactive("", init=False)
    """Model state: "" (not loaded), "loading 40%", or the back end name when ready."""

    def compose(self) -> ComposeResult:
        yield Label("", id="status-counts")
        yield ProgressBar(id="status-progress", show_eta=False)
        yield Button("cancel", id="status-cancel", compact=True)
        yield Label("", id="status-model")
        yield Button("0 skipped", id="status-skipped", compact=True)

    def on_mount(self) -> None:
        self.watch_indexing(self.indexing)
        self.watch_model(self.model)

    def watch_stats(self, _: IndexStats) -> None:
        self._render_counts()

    def watch_model(self, value: str) -> None:
        if not self._composed():
            return  # on_mount renders it
        self.query_one("#status-model", Label).update(f"model: {value or 'not loaded'}")

    def watch_indexing(self, value: tuple[int, int] | None) -> None:
        self.set_class(value is not None, "-indexing")
        if value is not None and self._composed():
            done, total = value
            self.query_one(ProgressBar).update(total=max(total, 1), progress=done)
        self._render_counts()

    def _composed(self) -> bool:
        """False while a reactive is set before compose ran (the app sets stats early under load)."""
        return bool(self.query("#status-counts"))

    def _render_counts(self) -> None:
        if not self._composed():
            return  # on_mount renders it
        s = self.stats
        when = s.updated.strftime("%H:%M:%S") if s.updated else "never"
        prefix = "indexing… " if self.indexing is not None else ("👁 " if s.watching else "")
        self.query_one("#status-counts", Label).update(
            f"{prefix}{s.sources} sources · {s.sessions} sessions · {s.turns} turns · updated {when}"
        )
        button = self.query_one("#status-skipped", Button)
        button.label = f"{s.skipped} skipped"
        button.set_class(s.skipped > 0, "-warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "status-skipped":
            self.post_message(self.SkippedRequested())
        elif event.button.id == "status-cancel":
            self.post_message(self.CancelIndexingRequested())
