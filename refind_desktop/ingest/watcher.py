"""FolderWatcher: headless watch-and-ingest of a chat folder, used by `refind watch` and the TUI.

The watcher ingests the folder once, then feeds changed paths to the same `Ingestor` after a
quiet period (debounce). When remote sources exist it also pulls them every `pull_interval`
seconds (the `remote_pull_interval` setting; 0 = never) and then ingests their mirrors, on the same
thread, so a mirror is never read while a pull writes into it. It writes only while it ingests (the writer lock is taken per batch),
so CLI commands and the app can write in between. Deleted files are reported, never forgotten
automatically: the user runs `refind forget PATH`. `on_report` receives `WatchEvent`s from the
watcher's own thread, one at a time; a Textual app should hand them to its loop with
`App.call_from_thread` (or `post_message`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .. import locations
from ..errors import IndexLockedError, NotFoundError, RefindError, describe_failure
from .pipeline import IngestReport
from .sqlite_ro import log_owner

log = logging.getLogger("refind.watch")
KINDS = ("started", "ingested", "pulled", "deleted", "busy", "warning", "error", "stopped")


@dataclass(frozen=True)
class WatchEvent:
    """Something the watcher did or noticed; `kind` is one of KINDS."""

    kind: str
    message: str
    paths: tuple[str, ...] = ()
    report: IngestReport | None = None
    at: float = field(default_factory=time.time)


ReportFn = Callable[[WatchEvent], None]


class _Handler(FileSystemEventHandler):
    """Turns watchdog events into changed / deleted paths for the watcher (observer thread)."""

    def __init__(self, watcher: FolderWatcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write") or (event.is_directory and kind == "modified"):
            return
        src = _text(event.src_path)
        if kind == "moved":
            self.watcher._queue(deleted=[src], changed=[_text(event.dest_path)])
        elif kind == "deleted":
            self.watcher._queue(deleted=[src])
        else:
            self.watcher._queue(changed=[src])


class FolderWatcher:
    """Keep the index in step with one folder until `stop()`; reusable by any front end."""

    def __init__(
        self,
        services,
        folder: Path,
        on_report: ReportFn | None = None,
        debounce: float = 0.5,
        max_delay: float = 10.0,
        retry: float = 2.0,
        pull_interval: float | None = None,
    ) -> None:
        self.services = services
        self.pull_interval = float(
            services.settings.remote_pull_interval if pull_interval is None else pull_interval
        )
        """Seconds between pulls of the remote sources (0 = never); default: the setting."""
        self.folder = Path(folder).expanduser().resolve()
        self.on_report = on_report
        self.debounce = debounce
        self.max_delay = max_delay
        self.retry = retry
        self._cond = threading.Condition()
        self._changed: set[str] = set()
        self._deleted: set[str] = set()
        self._first = self._last = 0.0
        self._busy = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer = None
        self._ignored = [
            str(p.resolve()) for p in (locations.data_dir(), locations.log_dir(), locations.config_dir())
        ]

    # -- control ---------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether the watcher thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start watching (returns at once); the initial ingest runs on the watcher's thread."""
        if not self.folder.is_dir():
            raise NotFoundError(f"no folder {self.folder} to watch; create it or pass another one")
        if self.running:
            return
        self._stop.clear()
        self._busy = True  # until the initial ingest is done
        observer = Observer()
        observer.daemon = True
        observer.schedule(_Handler(self), str(self.folder), recursive=True)
        observer.start()  # before the initial ingest, so nothing written meanwhile is missed
        self._observer = observer
        self._thread = threading.Thread(target=self._run, name="refind-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 60.0) -> None:
        """Stop after the current source's commit; no event is sent after this returns."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None
        if self._thread is not None:
            self._thread.join(timeout)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until nothing is pending or being ingested (tests, `--once`); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._busy or self._changed or self._deleted:
                left = deadline - time.monotonic()
                if left <= 0 or not self.running:
                    return False
                self._cond.wait(min(left, 0.1))
        return True

    # -- observer thread -------------------------------------------------------
    def _queue(self, changed: list[str] = (), deleted: list[str] = ()) -> None:
        changed = [p for p in changed if not self._ignore(p)]
        deleted = [p for p in deleted if not self._ignore(p)]
        if not changed and not deleted:
            return
        with self._cond:
            now = time.monotonic()
            if not self._changed and not self._deleted:
                self._first = now
            self._last = now
            self._changed.update(changed)
            self._deleted.update(deleted)
            self._cond.notify_all()

    def _ignore(self, path: str) -> bool:
        return any(path == d or path.startswith(d + "/") for d in self._ignored)

    # -- watcher thread --------------------------------------------------------
    def _run(self) -> None:
        self._emit("started", f"watching {self.folder}", (str(self.folder),))
        try:
            self._ingest([str(self.folder)], initial=True)
            with self._cond:
                self._busy = False
                self._cond.notify_all()
            next_pull = time.monotonic() if self.pull_interval > 0 else None
            while not self._stop.is_set():
                if next_pull is not None and time.monotonic() >= next_pull:
                    self._pull_remotes()
                    next_pull = time.monotonic() + self.pull_interval
                batch = self._next_batch(next_pull)
                if batch is None:
                    continue
                changed, deleted = batch
                try:
                    self._report_deleted(deleted)
                    targets = self._targets(changed)
                    if targets:
                        self._ingest(targets, initial=False)
                finally:
                    with self._cond:
                        self._busy = False
                        self._cond.notify_all()
        except Exception as exc:  # keep the reason in the log; the CLI exits non-zero
            log.exception("watcher failed")
            self._emit("error", f"watcher failed: {exc}")
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
            self._emit("stopped", f"stopped watching {self.folder}")

    def _next_batch(self, until: float | None = None) -> tuple[set[str], set[str]] | None:
        """Wait for events, then for a quiet period (at most max_delay after the first event); None at
        stop, or when nothing came before `until` (a monotonic time: the next pull)."""
        with self._cond:
            while not (self._changed or self._deleted):
                if self._stop.is_set():
                    return None
                left = 1.0 if until is None else until - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 1.0))
            while not self._stop.is_set():
                now = time.monotonic()
                left = min(self._last + self.debounce - now, self._first + self.max_delay - now)
                if left <= 0:
                    break
                self._cond.wait(left)
            if self._stop.is_set():
                return None
            batch = (self._changed, self._deleted)
            self._changed, self._deleted = set(), set()
            self._busy = True
            return batch

    def _targets(self, changed: set[str]) -> list[str]:
        """Known sources that changed are re-read alone, a file inside a folder source (a Slack export)
        re-reads that folder, and anything new is read where it lies (`Ingestor.ingest(walk_root=)`);
        a path outside the watched folder (a link) rescans the folder. A database's `-wal` or `-journal`
        stands for the database (its main file often does not change while rows are committed to the
        log); its `-shm` is left out, since reading the database touches it too."""
        known = {f.path for f in self.services.catalog.files()}
        targets: set[str] = set()
        for p in changed:
            db = log_owner(p)  # a database's write-ahead log grew: read the database (with its log)
            if db == "":
                continue
            path = Path(db or p)
            if not path.exists():
                continue
            rp = str(path.resolve())
            if self.services.catalog.ignored_root(rp) is not None:
                continue  # forgotten: `refind unforget` brings it back
            owner = next((str(a) for a in Path(rp).parents if str(a) in known), None)
            if owner is not None:
                targets.add(owner)
            elif rp == str(self.folder) or not rp.startswith(str(self.folder) + "/"):
                return [str(self.folder)]
            else:
                targets.add(rp)
        return sorted(targets)

    def _report_deleted(self, deleted: set[str]) -> None:
        gone = [p for p in sorted(deleted) if not Path(p).exists()]
        if not gone:
            return
        known = [f.path for f in self.services.catalog.files()]
        hit = sorted({k for p in gone for k in known if k == p or k.startswith(p + "/")})
        if hit:
            shown = ", ".join(hit[:3]) + (f" and {len(hit) - 3} more" if len(hit) > 3 else "")
            self._emit(
                "deleted",
                f"deleted from the folder: {shown}; their turns stay in the index "
                "(not removed automatically): run `refind forget PATH` to remove them",
                tuple(hit),
                level=logging.WARNING,
            )

    def _pull_remotes(self) -> None:
        """Pull every remote source (`ingest/remote.py`), report each failed host, then ingest the
        mirrors; a host that fails keeps what was pulled before and is tried at the next pull."""
        from .remote import mirror_roots, pull_all
        from .remote_store import RemoteStore

        data = self.services.paths.data_dir
        if not RemoteStore(data).list():
            return
        with self._cond:
            self._busy = True
        try:
            results = pull_all(data, cancel=self._stop)
            failed = {r.spec.host_key: r.error for r in results if not r.ok}
            hosts = list(dict.fromkeys(r.spec.host_key for r in results))
            message = f"pulled {len(results)} remote sources from {', '.join(hosts)}"
            if failed:
                message += "; FAILED " + "; ".join(f"{h}: {why}" for h, why in failed.items())
                message += " (what was pulled before stays searchable; the next pull tries again)"
            self._emit("pulled", message, tuple(failed), level=logging.WARNING if failed else logging.INFO)
            mirrors = [str(p) for p in mirror_roots(data)]
            if mirrors and not self._stop.is_set():
                self._ingest(mirrors, initial=True, what="ingested the pulled mirrors")
        except Exception as exc:  # a pull's surprise never stops the watcher
            log.exception("pull failed")
            self._emit("warning", f"could not pull the remote sources: {describe_failure(exc)}")
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _ingest(self, paths: list[str], initial: bool, what: str = "") -> None:
        """Ingest, retrying while another process holds the writer lock; stops early on stop()."""
        while not self._stop.is_set():
            try:
                report = self.services.ingestor.ingest(
                    [Path(p) for p in paths], cancel=self._stop, walk_root=None if initial else self.folder
                )
            except IndexLockedError as exc:
                self._emit(
                    "busy",
                    f"{exc.message}; retrying in {self.retry:g} s",
                    tuple(paths),
                    level=logging.WARNING,
                )
                self._stop.wait(self.retry)
                continue
            except RefindError as exc:
                self._emit("error", f"{exc.title}: {exc.message}", tuple(paths), level=logging.ERROR)
                return
            except Exception as exc:  # whatever a file contains, the watcher goes on watching
                log.exception("ingest of %s failed", paths)
                self._emit(
                    "warning",
                    f"could not ingest {', '.join(paths[:3])}: {describe_failure(exc)}; still watching",
                    tuple(paths),
                    level=logging.ERROR,
                )
                return
            what = what or (
                "initial ingest" if initial else "ingested " + ", ".join(Path(p).name for p in paths[:3])
            )
            self._emit(
                "ingested",
                f"{what}: +{report.added_turns} turns, -{report.removed_turns}, "
                f"{report.ingested_files} files read, {report.unchanged_files} unchanged"
                + (" (stopped early)" if report.cancelled else ""),
                tuple(paths),
                report,
            )
            for s in report.skipped:
                log.info("skipped %s: %s", s.path, s.reason)
            for w in report.warnings:
                log.info("warning: %s", w)
            return

    def _emit(
        self,
        kind: str,
        message: str,
        paths: tuple[str, ...] = (),
        report: IngestReport | None = None,
        level: int = logging.INFO,
    ) -> None:
        log.log(level, message)
        if self.on_report is None:
            return
        try:
            self.on_report(WatchEvent(kind, message, paths, report))
        except Exception:  # a front end's bug must not stop the watcher
            log.exception("on_report callback failed")


def _text(path: str | bytes) -> str:
    return path.decode(errors="surrogateescape") if isinstance(path, bytes) else path
