"""RefindApp: the Textual app — tabs (ask, search, sessions, settings), status bar, indexing and watching.

Built by `refind` / `refind tui` (cli/tui.py) and by the tests, always from `build_services()`.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from .. import locations
from ..config import Settings, save_settings
from ..errors import ConfigError, RefindError
from ..services import Services
from ..terminal import printable
from .messages import (
    BackendReady,
    IngestFinished,
    IngestProgressed,
    ModelProgressed,
    StatsLoaded,
    WatchIngested,
    WorkerFailed,
)
from .screens.ask import AskPane
from .screens.modals import ErrorModal, HelpScreen, SkippedScreen, WelcomeScreen
from .screens.search import SearchPane
from .screens.sessions import SessionsPane
from .screens.settings import SettingsPane
from .screens.transcript import TranscriptScreen
from .widgets.answer import AnswerView
from .widgets.results import ResultList
from .widgets.status import IndexStats, StatusBar

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
DEBOUNCE = 0.5
"""Seconds of quiet after a file event before the watcher ingests."""
BackendFactory = Callable[..., Any]
"""make_backend-shaped: factory(settings, progress=fn(done_bytes, total_bytes)) -> LLMBackend."""


def default_backend_factory(settings: Settings, progress: Callable[[int, int], None] | None = None) -> Any:
    """The real back ends (imported lazily: llama/openai modules are heavy)."""
    from ..llm.factory import make_backend

    return make_backend(settings, progress=progress)


def _file_settings() -> Settings:
    """The settings stored in config.toml alone (no environment or command-line layers)."""
    path = locations.config_file()
    try:
        return Settings(**tomllib.loads(path.read_text(encoding="utf-8"))) if path.exists() else Settings()
    except (tomllib.TOMLDecodeError, TypeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} cannot be read ({exc}); fix or delete it, then save again") from exc


class RefindApp(App[None]):
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
        Binding("ctrl+g", "stop_jobs", "Stop indexing/loading", id="app.stop"),
        Binding("ctrl+l", "prepare_model", "Load model", id="app.load_model", show=False),
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
        watch: bool = True,
        debounce: float = DEBOUNCE,
    ) -> None:
        super().__init__()
        self.services = services
        self.settings = settings or services.settings
        services.settings = self.settings
        self.folder_override = folder
        self.folder: str | None = None
        self.backend_factory = backend_factory or default_backend_factory
        self.watch_folder = watch
        self.debounce = debounce
        self.model_lock = threading.Lock()
        self._backend_lock = threading.Lock()
        self._backend: Any = None
        self._backend_key: tuple | None = None
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
                yield SettingsPane(self.settings, id="settings-pane")
        yield StatusBar(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.load_stats()
        self.query_one(SessionsPane).reload()
        folder = self.folder_override or self.settings.chat_folder
        if folder:
            self.open_folder(folder)
        else:
            self.push_screen(WelcomeScreen(SAMPLES), self._folder_chosen)
        self.query_one("#question", Input).focus()

    def on_ready(self) -> None:
        self.ready = True

    # ---- folder, ingest and watching ----------------------------------------------------------
    def _folder_chosen(self, folder: str | None) -> None:
        if folder:
            self.update_settings(persist=True, chat_folder=folder)
        else:
            self.notify("No chat folder yet: set one in Settings (F5).", timeout=6)

    def open_folder(self, folder: str) -> None:
        """Index `folder` now, then watch it."""
        path = Path(folder).expanduser()
        if not path.is_dir():
            self.push_screen(
                ErrorModal(
                    "chat folder not found",
                    f"{path} is not a folder. Pick the folder that "
                    "holds your chat exports in Settings (F5), or start with "
                    "`refind tui --folder PATH`.",
                )
            )
            return
        self.stop_watching()
        self.folder = str(path.resolve())
        self.sub_title = self.folder
        self._ingest_cancel = threading.Event()
        self.query_one(StatusBar).indexing = (0, 0)
        self.index_folder(self.folder, self._ingest_cancel)

    @work(
        thread=True,
        exclusive=True,
        group="ingest",
        exit_on_error=False,
        description="indexing the chat folder",
    )
    def index_folder(self, folder: str, cancel: threading.Event) -> None:
        report = self.services.ingestor.ingest(
            [Path(folder)],
            cancel=cancel,
            progress=lambda p: self.post_message(IngestProgressed(p.files_done, p.files_total, p.current)),
        )
        self.post_message(IngestFinished(report, folder))

    def on_ingest_progressed(self, message: IngestProgressed) -> None:
        self.query_one(StatusBar).indexing = (message.done, message.total)

    def on_ingest_finished(self, message: IngestFinished) -> None:
        self.query_one(StatusBar).indexing = None
        self._changed()
        report = message.report
        if report.cancelled:
            self.notify("Indexing stopped; what was read stays searchable. Ctrl+R resumes.", timeout=6)
            return
        if report.skipped:
            self.notify(
                f"{len(report.skipped)} files skipped; click the count in the status bar for reasons.",
                severity="warning",
                timeout=6,
            )
        if self.watch_folder and message.folder == self.folder:
            from ..ingest.watcher import FolderWatcher  # watchdog: imported when first needed

            # its own first pass finds every file unchanged (a stat each), then it waits for events
            self.watcher = FolderWatcher(
                self.services,
                Path(message.folder),
                debounce=self.debounce,
                on_report=lambda event: self.post_message(WatchIngested(event)),
            )
            self.watcher.start()
            self.query_one(StatusBar).stats = self._stats(watching=message.folder)

    def on_watch_ingested(self, message: WatchIngested) -> None:
        event = message.event
        if event.kind == "ingested" and event.report is not None:
            if event.report.added_turns or event.report.removed_turns or event.report.skipped:
                self._changed()
        elif event.kind in ("deleted", "busy", "warning"):
            self.notify(printable(event.message, one_line=True), severity="warning", timeout=8, markup=False)
        elif event.kind == "error":
            self.push_screen(
                ErrorModal(
                    "watching stopped",
                    f"{event.message}\n\nFix the cause, then press "
                    "Ctrl+R to index the folder again and resume watching.",
                )
            )

    def _changed(self) -> None:
        self.last_update = datetime.now()
        self.index_version += 1
        self.load_stats()

    def watch_index_version(self) -> None:
        self.query_one(SessionsPane).reload()
        self.query_one(SearchPane).refresh_results()

    def stop_watching(self, wait: bool = False) -> None:
        """Stop the folder watcher, if any (it finishes its current file: off the UI thread unless `wait`)."""
        watcher, self.watcher = self.watcher, None
        if watcher is None:
            return
        if wait:
            watcher.stop(timeout=5)
        else:
            threading.Thread(target=watcher.stop, name="refind-watch-stop", daemon=True).start()

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False, description="reading index totals")
    def load_stats(self) -> None:
        totals = self.services.catalog.totals()
        self.post_message(
            StatsLoaded(
                totals["sources"], totals["sessions"], totals["turns"], self.services.catalog.skipped()
            )
        )

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        self.skipped = message.skipped
        self.query_one(StatusBar).stats = self._stats(message)

    def _stats(self, loaded: StatsLoaded | None = None, watching: str | None = None) -> IndexStats:
        old = self.query_one(StatusBar).stats
        return IndexStats(
            sources=loaded.sources if loaded else old.sources,
            sessions=loaded.sessions if loaded else old.sessions,
            turns=loaded.turns if loaded else old.turns,
            skipped=len(loaded.skipped) if loaded else old.skipped,
            updated=self.last_update,
            watching=(self.folder or "") if self.watcher else (watching or ""),
        )

    # ---- the model back end -------------------------------------------------------------------
    def acquire_backend(self, cancel: threading.Event | None = None) -> Any:
        """The back end for the current settings, loaded on first use (called from worker threads)."""
        from ..agent import AgentCancelled

        s = self.settings
        key = (s.backend, s.model, s.openai_model, s.openai_base_url, s.openai_api_key, s.n_ctx)
        with self._backend_lock:
            if self._backend is not None and self._backend_key == key:
                return self._backend

            def progress(done: int, total: int) -> None:
                if cancel is not None and cancel.is_set():
                    raise AgentCancelled("model preparation was cancelled; ask again to resume it")
                self.post_message(ModelProgressed(done, total))

            self.post_message(ModelProgressed(0, 0, f"loading the {s.backend} back end"))
            with self.model_lock:
                self._backend = None
                backend = self.backend_factory(s, progress=progress)
            self._backend, self._backend_key = backend, key
            self.post_message(BackendReady(getattr(backend, "name", s.backend)))
            return backend

    @work(thread=True, exclusive=True, group="model", exit_on_error=False, description="preparing the model")
    def prepare_model(self, cancel: threading.Event) -> None:
        self.acquire_backend(cancel)

    def on_model_progressed(self, message: ModelProgressed) -> None:
        if message.total and message.done < message.total:
            state = f"preparing {100 * message.done // message.total}%"
        else:
            state = "loading…"
        self.query_one(StatusBar).model = state
        self.query_one(AskPane).model_progress = (message.done, message.total)

    def on_backend_ready(self, message: BackendReady) -> None:
        self.query_one(StatusBar).model = f"{message.name} ready"
        self.query_one(AskPane).model_progress = None

    # ---- settings -----------------------------------------------------------------------------
    def update_settings(self, persist: bool = False, **changes: object) -> Settings:
        """Apply setting changes now; `persist` also writes them to config.toml."""
        old = self.settings
        self.settings = self.services.settings = old.replace(**changes)
        if persist:
            save_settings(_file_settings().replace(**changes))
            self.notify("settings saved", timeout=3)
        folder = changes.get("chat_folder")
        if folder and str(folder) != (self.folder or ""):
            self.folder_override = None
            self.open_folder(str(folder))
        if self.settings.backend != old.backend:
            self.query_one(StatusBar).model = ""
        return self.settings

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

    @on(StatusBar.SkippedRequested)
    def skipped_requested(self) -> None:
        self.push_screen(SkippedScreen(self.skipped))

    @on(StatusBar.CancelIndexingRequested)
    def cancel_requested(self) -> None:
        self.action_stop_jobs()

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
            ("transcript", TranscriptScreen.BINDINGS),
        ):
            for b in bindings:
                if isinstance(b, Binding):
                    rows.append((self.get_key_display(b), b.description, where))
        rows += [
            ("ctrl+p", "Command palette", "everywhere"),
            ("ctrl+q", "Quit", "everywhere"),
            ("enter", "Open the selected hit, citation or session", "lists"),
        ]
        return rows

    def action_rescan(self) -> None:
        """Index the folder again (new, grown and removed files)."""
        if self.folder:
            self.open_folder(self.folder)

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
        yield from super().get_system_commands(screen)
        for tab in ("ask", "search", "sessions", "settings"):
            yield SystemCommand(
                tab.capitalize(), f"Go to the {tab} tab", lambda tab=tab: self.action_show_tab(tab)
            )
        yield SystemCommand("Keys", "Show every key binding (F1)", self.action_help)
        yield SystemCommand("Rescan folder", "Index the chat folder again (Ctrl+R)", self.action_rescan)
        yield SystemCommand(
            "Stop indexing", "Stop the folder ingest or model loading (Ctrl+G)", self.action_stop_jobs
        )
        yield SystemCommand("Load model", "Prepare the model now (Ctrl+L)", self.action_prepare_model)
        yield SystemCommand(
            "Skipped files", "Files the ingest could not read, with reasons", self.skipped_requested
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
        if group in ("ask", "model"):
            self.query_one(AskPane).model_progress = None
            if self._backend is None:
                self.query_one(StatusBar).model = ""
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
