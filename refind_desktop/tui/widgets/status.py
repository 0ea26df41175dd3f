"""StatusBar: sources, sessions, turns, last update, skipped files, indexing and the model's state."""

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
    hosts: tuple[tuple[str, str], ...] = ()
    """(host key, state) of each other machine (`ingest/remote_hosts.py`): ok, failed, not pulled yet,
    removed."""


@dataclass(frozen=True)
class ModelStatus:
    """The model back end's state: none (not loaded), preparing (assembling or downloading its file,
    `percent` done), loading (into memory) or ready; `label` names the model."""

    state: str = "none"
    label: str = ""
    percent: int = 0


class StatusButton(Button):
    """A status-bar button: clicked, never focused (its action has a key: Tab must not stop on it)."""

    can_focus = False


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
    model: reactive[ModelStatus] = reactive(ModelStatus, init=False)
    """The model back end's state."""
    answering: reactive[bool] = reactive(False, init=False)
    """True while a question runs."""

    def compose(self) -> ComposeResult:
        yield Label("", id="status-counts")
        yield Label("", id="status-hosts", markup=False)
        yield ProgressBar(id="status-progress", show_eta=False)
        yield StatusButton("cancel", id="status-cancel", compact=True)
        yield Label("", id="status-model", markup=False)
        yield StatusButton("0 skipped", id="status-skipped", compact=True)

    def on_mount(self) -> None:
        self.watch_indexing(self.indexing)
        self._render_model()

    def watch_stats(self, _: IndexStats) -> None:
        self._render_counts()

    def watch_model(self, _: ModelStatus) -> None:
        self._render_model()

    def watch_answering(self, _: bool) -> None:
        self._render_model()

    def model_text(self) -> str:
        """The model part of the bar, state first (a narrow bar cuts the name's end), e.g. "model
        answering: qwen2.5-coder-1.5b-instruct"."""
        m = self.model
        if m.state == "preparing":
            return f"model preparing {m.percent}%: {m.label}"
        if m.state == "loading":
            return f"model loading: {m.label}"
        if m.state == "ready":
            return f"model {'answering' if self.answering else 'loaded'}: {m.label}"
        return "model: not loaded · searching" if self.answering else "model: not loaded"

    def hosts_text(self) -> str:
        """The other machines' part of the bar, e.g. "hosts: me@box ok · ci@vm FAILED" ("" for none)."""
        words = {"ok": "ok", "failed": "FAILED", "not pulled yet": "not pulled", "removed": "removed"}
        parts = [f"{host} {words.get(state, state)}" for host, state in self.stats.hosts]
        return "hosts: " + " · ".join(parts) if parts else ""

    def _render_model(self) -> None:
        if not self._composed():
            return  # on_mount renders it
        self.set_class(self.model.state in ("preparing", "loading"), "-model-loading")
        self.query_one("#status-model", Label).update(self.model_text())

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
        hosts = self.query_one("#status-hosts", Label)
        hosts.update(self.hosts_text())
        hosts.set_class(not s.hosts, "-none")
        hosts.set_class(any(state == "failed" for _, state in s.hosts), "-failed")
        button = self.query_one("#status-skipped", Button)
        button.label = f"{s.skipped} skipped"
        button.set_class(s.skipped > 0, "-warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "status-skipped":
            self.post_message(self.SkippedRequested())
        elif event.button.id == "status-cancel":
            self.post_message(self.CancelIndexingRequested())
