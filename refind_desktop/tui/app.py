"""RefindApp: the Textual app shell — tabs (ask, search, sessions, settings), status bar, navigation, errors.

Built by `refind` / `refind tui` (cli/tui.py) and by the tests, always from `build_services()`. Its
other jobs live beside it: the chat folder's indexing and watching (indexing.py), the model back end
(model_cache.py) and the settings (app_settings.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Header, Input, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from ..config import Settings
from ..errors import RefindError
from ..services import Services
from .app_settings import SettingsEditing
from .indexing import DEBOUNCE, FolderIndexing
from .messages import (
    WorkerFailed,
)
from .model_cache import (
    BackendFactory,
    BackendTraits,
    ModelCache,
    ModelLoading,
    default_backend_factory,
    default_backend_traits,
)
from .screens.ask import AskPane
from .screens.discover import DiscoverScreen
from .screens.modals import ErrorModal, HelpScreen, SkippedScreen, WelcomeScreen
from .screens.search import SearchPane
from .screens.sessions import SessionsPane
from .screens.settings import SettingsPane
from .screens.transcript import TranscriptScreen
from .widgets.answer import AnswerView
from .widgets.results import ResultList
from .widgets.status import StatusBar

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


class RefindApp(FolderIndexing, ModelLoading, SettingsEditing, App[None]):
    """The terminal app over one Services instance (index, catalog, ingestor, engine)."""

    TITLE = "refind"
    CSS_PATH = "refind.tcss"
    BINDINGS = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("f2", "show_tab('ask')", "Ask", id="app.ask"),
        Binding("f3", "show_tab('search')", "Search", id="app.search"),
        Binding("f4", "show_tab('sessions')", "Sessions", id="app.sessions"),
        Binding("f5", "show_tab('settings')", "Settings", id="app.settings"),
        Binding("ctrl+r", "rescan", "Rescan", id="app.rescan"),
        Binding("ctrl+g", "stop_jobs", "Stop", tooltip="Stop indexing or loading the model", id="app.stop"),
        Binding("ctrl+l", "prepare_model", "Load model", id="app.load_model", show=False),
        Binding("f6", "skipped", "Skipped files", id="app.skipped", show=False),
    ]
    index_version: reactive[int] = reactive(0, init=False)
    """Bumped whenever the index changed; panes watch it."""

    def __init__(
        self,
        services: Services,
        settings: Settings | None = None,
        *,
        folder: str | None = None,
        backend_factory: BackendFactory | None = None,
        backend_traits: BackendTraits | None = None,
        watch: bool = True,
        debounce: float = DEBOUNCE,
    ) -> None:
        super().__init__()
        self.services = services
        self.settings = settings or services.settings
        services.settings = self.settings
        self.folder_override = folder
        self.folder: str | None = None
        if backend_factory is None:  # the real back ends, told from settings before they are built
            backend_factory, backend_traits = default_backend_factory, default_backend_traits
        self.models = ModelCache(backend_factory, backend_traits)
        self.watch_folder = watch
        self.debounce = debounce
        self._ingest_cancel: threading.Event | None = None
        self._model_cancel: threading.Event | None = None
        self.watcher: Any = None
        self.skipped: list[tuple[str, str]] = []
        self.last_update: datetime | None = None
        self.ready = False

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="⌕")
        with TabbedContent(initial="ask", id="tabs"):
            with TabPane("Ask", id="ask"):
                yield AskPane(self.settings.mode, self.settings.backend, id="ask-pane")
            with TabPane("Search", id="search"):
                yield SearchPane(id="search-pane")
            with TabPane("Sessions", id="sessions"):
                yield SessionsPane(id="sessions-pane")
            with TabPane("Settings", id="settings"):
                yield SettingsPane(self.settings, self.folder_override, id="settings-pane")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.load_stats()
        self.query_one(SessionsPane).reload()
        folder = self.folder_override or self.settings.chat_folder
        if folder:
            self.open_folder(folder)
        elif self.settings.sources:
            self.index_sources()
        else:  # first run: the folder prompt, with the chat logs found on this computer over it
            self.push_screen(WelcomeScreen(SAMPLES), self._folder_chosen)
            self.push_screen(DiscoverScreen(), self._sources_chosen)
        self.query_one("#question", Input).focus()

    def on_ready(self) -> None:
        self.ready = True

    # ---- folder (indexing and watching: indexing.py) ------------------------------------------
    def _sources_chosen(self, chosen: list[str] | None) -> None:
        if chosen is None:
            return  # nothing found, or the user wants to type a folder: the prompt below stays
        if isinstance(self.screen, WelcomeScreen):
            self.pop_screen()
        if chosen:
            self.update_settings(persist=True, sources=tuple(chosen))
            self.index_sources()
        else:
            self.notify(
                "Nothing indexed yet: set a chat folder in Settings (F5) or run `refind sources`.", timeout=6
            )

    def _folder_chosen(self, folder: str | None) -> None:
        if folder:
            self.update_settings(persist=True, chat_folder=folder)
        else:
            self.notify("No chat folder yet: set one in Settings (F5).", timeout=6)

    # ---- settings (applying and saving: app_settings.py) --------------------------------------
    @on(SettingsPane.SettingsSaved)
    def settings_saved(self, message: SettingsPane.SettingsSaved) -> None:
        self.update_settings(persist=True, **message.changes)
        ask = self.query_one(AskPane)
        ask.sync(self.settings)

    # ---- navigation ---------------------------------------------------------------------------
    @on(AnswerView.CitationSelected)
    def citation_selected(self, message: AnswerView.CitationSelected) -> None:
        self.push_screen(TranscriptScreen(message.session_id, message.turn))

    @on(ResultList.HitSelected)
    def hit_selected(self, message: ResultList.HitSelected) -> None:
        last = self.query_one(SearchPane).last
        self.push_screen(TranscriptScreen(message.session_id, message.turn, last.query if last else ""))

    @on(SessionsPane.SessionChosen)
    def session_chosen(self, message: SessionsPane.SessionChosen) -> None:
        self.push_screen(TranscriptScreen(message.session_id))

    @on(AskPane.BusyChanged)
    def ask_busy_changed(self, message: AskPane.BusyChanged) -> None:
        for bar in self.query(StatusBar):  # none while the app shuts down
            bar.answering = message.busy

    @on(StatusBar.SkippedRequested)
    def action_skipped(self) -> None:
        """The files the ingest skipped, with reasons (F6, or a click on the status bar's count)."""
        if not isinstance(self.screen, SkippedScreen):
            self.push_screen(SkippedScreen(self.skipped))

    @on(StatusBar.CancelIndexingRequested)
    def cancel_requested(self) -> None:
        self.action_stop_jobs()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While a dialog is open the tabs beneath it cannot be switched (nor shown in its footer)."""
        if action == "show_tab" and isinstance(self.screen, ModalScreen):
            return False
        return True

    def action_show_tab(self, tab: str) -> None:
        """Switch to a tab and focus its main box."""
        while len(self.screen_stack) > 1 and isinstance(self.screen, TranscriptScreen):
            self.pop_screen()
        self.query_one(TabbedContent).active = tab
        target = {
            "ask": "#question",
            "search": "#search-query",
            "sessions": "#sessions-table",
            "settings": "#set-folder",
        }[tab]
        self.query_one(target).focus()

    def action_help(self) -> None:
        """Show every key binding."""
        self.push_screen(HelpScreen(self.binding_rows()))

    def binding_rows(self) -> list[tuple[str, str, str]]:
        """(key, description, where) for the help screen."""
        rows = []
        for where, bindings in (
            ("everywhere", self.BINDINGS),
            ("ask", AskPane.BINDINGS),
            ("settings", SettingsPane.BINDINGS),
            ("transcript", TranscriptScreen.BINDINGS),
        ):
            for b in bindings:
                if isinstance(b, Binding):
                    rows.append((self.keys_display(b.key), b.tooltip or b.description, where))
        rows += [
            (self.keys_display("ctrl+p"), "Command palette", "everywhere"),
            (self.keys_display("ctrl+q"), "Quit", "everywhere"),
            (self.keys_display("enter"), "Open the selected hit, citation or session", "lists"),
            (self.keys_display("tab,shift+tab"), "Next / previous box, list or button", "everywhere"),
            (self.keys_display("escape"), "Close a dialog", "dialogs"),
        ]
        return rows

    def keys_display(self, keys: str) -> str:
        """Keys like "escape,q" written as the footer writes them: "esc / q"."""
        return " / ".join(self.get_key_display(Binding(k.strip(), "")) for k in keys.split(","))

    def action_rescan(self) -> None:
        """Index the folder again (new, grown and removed files)."""
        if self.folder:
            self.open_folder(self.folder)
        elif self.settings.sources:
            self.index_sources()

    def action_stop_jobs(self) -> None:
        """Stop a running folder ingest or model preparation."""
        for event in (self._ingest_cancel, self._model_cancel):
            if event is not None:
                event.set()

    def action_prepare_model(self) -> None:
        """Load the model now rather than at the first question."""
        self._model_cancel = threading.Event()
        self.prepare_model(self._model_cancel)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own "Keys" (its key panel) would sit beside ours (the F1 list) under the same name
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        for tab in ("ask", "search", "sessions", "settings"):
            yield SystemCommand(
                tab.capitalize(), f"Go to the {tab} tab", lambda tab=tab: self.action_show_tab(tab)
            )
        yield SystemCommand("Keys", "Every key binding, with what it does (F1)", self.action_help)
        yield SystemCommand("Rescan folder", "Index the chat folder again (Ctrl+R)", self.action_rescan)
        yield SystemCommand(
            "Stop indexing", "Stop the folder ingest or model loading (Ctrl+G)", self.action_stop_jobs
        )
        yield SystemCommand("Load model", "Prepare the model now (Ctrl+L)", self.action_prepare_model)
        yield SystemCommand(
            "Skipped files", "Files the ingest could not read, with reasons (F6)", self.action_skipped
        )

    # ---- errors: the one place worker failures reach the user ---------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.show_failure(event.worker)

    def on_worker_failed(self, message: WorkerFailed) -> None:
        self.show_failure(message.worker)

    def show_failure(self, worker: Worker) -> None:
        """A failed worker: a copyable ErrorModal that says what to do next (a notice if cancelled)."""
        from ..agent import AgentCancelled

        group, error = worker.group, worker.error
        if group == "ingest":
            self.query_one(StatusBar).indexing = None
        if group in ("ask", "model") and self.models.backend is None:
            self.model_unloaded()
        if isinstance(error, AgentCancelled):
            self.notify(error.message, timeout=4)
            return
        if isinstance(error, RefindError):
            title, message = error.title, error.message
        else:
            title = "unexpected error"
            message = (
                f"{type(error).__name__}: {error}\n\nWhile {worker.description}. This is a bug: "
                "copy this text (Copy button) into an issue. The app keeps running."
            )
        self.push_screen(ErrorModal(title, message))

    def on_unmount(self) -> None:
        self.action_stop_jobs()
        self.stop_watching(wait=True)
