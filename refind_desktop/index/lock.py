"""WriterLock: the one-writer-many-readers rule, an flock on a file in the data dir, re-entrant per process."""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import IndexLockedError

LOCK_NAME = "writer.lock"
DEFAULT_WAIT = 5.0
_POLL = 0.05
_label: str | None = None
_registry: dict[str, WriterLock] = {}
_registry_guard = threading.Lock()


def set_process_label(label: str) -> None:
    """Name this process in busy messages (the CLI sets "refind watch", "refind ingest", ...)."""
    global _label
    _label = label


def process_label() -> str:
    """The label written into the lock file while this process writes."""
    if _label:
        return _label
    args = [a for a in sys.argv[1:2] if not a.startswith("-")]
    return "refind " + args[0] if args else "refind"


def writer_lock(path: Path) -> WriterLock:
    """The process-wide lock object for one lock file (one per path, so nesting and threads work)."""
    key = os.path.abspath(path)
    with _registry_guard:
        lock = _registry.get(key)
        if lock is None:
            lock = _registry[key] = WriterLock(Path(key))
        return lock


class WriterLock:
    """Exclusive cross-process lock; threads of one process queue on it, nesting is allowed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this process holds the lock now."""
        return self._depth > 0

    @contextmanager
    def hold(self, wait: float = DEFAULT_WAIT) -> Iterator[None]:
        """Hold the lock for a block; waits up to `wait` seconds, then raises IndexLockedError."""
        self.acquire(wait)
        try:
            yield
        finally:
            self.release()

    def acquire(self, wait: float = DEFAULT_WAIT) -> None:
        """Take the lock (re-entrant); raise IndexLockedError if it stays busy for `wait` seconds."""
        deadline = time.monotonic() + max(wait, 0.0)
        if not self._thread_lock.acquire(timeout=max(wait, 0.0)):
            raise IndexLockedError(
                f"another task in this process ({process_label()}) is writing to the index; "
                "try again when it has finished"
            )
        try:
            if self._depth == 0:
                self._fd = self._take(deadline, wait)
            self._depth += 1
        except BaseException:
            self._thread_lock.release()
            raise

    def release(self) -> None:
        """Give back one level; the file lock is released with the outermost level."""
        self._depth -= 1
        try:
            if self._depth == 0 and self._fd is not None:
                fd, self._fd = self._fd, None
                try:
                    os.ftruncate(fd, 0)
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)
        finally:
            self._thread_lock.release()

    def holder(self) -> tuple[int | None, str]:
        """(pid, label) of the process that wrote the lock file last (best effort)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except OSError:
            return None, ""
        lines = text.splitlines()
        pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
        return pid, lines[1].strip() if len(lines) > 1 else ""

    def _take(self, deadline: float, wait: float) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise IndexLockedError(self._busy_message(wait)) from None
                    time.sleep(_POLL)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n{process_label()}\n".encode(), 0)
            return fd
        except BaseException:
            os.close(fd)
            raise

    def _busy_message(self, wait: float) -> str:
        pid, label = self.holder()
        who = f"pid {pid}, `{label}`" if pid and label else (f"pid {pid}" if pid else "")
        whom = f"another refind process ({who})" if who else "another refind process"
        return (
            f"{whom} is writing to the index and did not finish within {wait:g} s; "
            "searching still works. Try again when it is done, stop it, or raise "
            "`lock_wait` (REFIND_LOCK_WAIT)"
        )
