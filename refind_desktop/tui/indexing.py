"""The app's chat folder: index it in a worker, then watch it and re-index what changes; the status totals
(`FolderIndexing`, mixed into `RefindApp`)."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from ..ingest.remote_hosts import host_summaries
from ..terminal import printable
from .messages import IngestFinished, IngestProgressed, StatsLoaded, WatchIngested
from .screens.modals import ErrorModal
from .screens.search import SearchPane
from .screens.sessions import SessionsPane
from .widgets.status import IndexStats, StatusBar

if TYPE_CHECKING:  # the mixin sees the App it is mixed into
    from textual.app import App

    from ..services import Services

    _AppPart = App[None]
else:
    _AppPart = object

__all__ = ["DEBOUNCE", "FolderIndexing"]

DEBOUNCE = 0.5
"""Seconds of quiet after a file event before the watcher ingests."""


class FolderIndexing(_AppPart):
    """RefindApp's folder part: `open_folder` indexes and then watches; panes follow `index_version`."""

    services: Services
    folder: str | None
    watch_folder: bool
    debounce: float
    watcher: Any
    skipped: list[tuple[str, str]]
    last_update: datetime | None
    index_version: int
    _ingest_cancel: threading.Event | None

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
            [Path(p) for p in ([folder] if folder else []) + list(self.settings.sources)],
            cancel=cancel,
            progress=lambda p: self.post_message(IngestProgressed(p.files_done, p.files_total, p.current)),
        )
        self.post_message(IngestFinished(report, folder))

    def index_sources(self) -> None:
        """Index the recorded sources alone (no chat folder is set)."""
        self._ingest_cancel = threading.Event()
        self.query_one(StatusBar).indexing = (0, 0)
        self.index_folder("", self._ingest_cancel)

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
        elif event.kind == "pulled":  # the hosts' states in the status bar
            self.load_stats()
            if event.paths:  # the hosts that failed
                self.notify(
                    printable(event.message, one_line=True), severity="warning", timeout=8, markup=False
                )
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
        hosts = host_summaries(self.services.paths.data_dir, self.services.catalog)
        self.post_message(
            StatsLoaded(
                totals["sources"],
                totals["sessions"],
                totals["turns"],
                self.services.catalog.skipped(),
                tuple((h.host, h.state) for h in hosts),
            )
        )

    def on_stats_loaded(self, message: StatsLoaded) -> None:
        self.skipped = message.skipped
        if self.query(StatusBar):  # a worker's late message while the app shuts down finds none
            self.query_one(StatusBar).stats = self._stats(message)

    def _stats(self, loaded: StatsLoaded | None = None, watching: str | None = None) -> IndexStats:
        old = self.query_one(StatusBar).stats
        return IndexStats(
            sources=loaded.sources if loaded else old.sources,
            sessions=loaded.sessions if loaded else old.sessions,
            turns=loaded.turns if loaded else old.turns,
            skipped=len(loaded.skipped) if loaded else old.skipped,
            hosts=loaded.hosts if loaded else old.hosts,
            updated=self.last_update,
            watching=(self.folder or "") if self.watcher else (watching or ""),
        )
