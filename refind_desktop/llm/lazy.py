"""LazyBackend: a back end built on its first model call, so a question's first search (which needs
no model) and its hits show before a model loads. Used by `refind ask` and the TUI."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LazyBackend:
    """Proxy for the back end `acquire()` returns, called once, on first attribute access.

    `held`: a lock the caller holds while using the proxy that acquiring also takes (the TUI's model
    lock); it is released while the back end is being built."""

    def __init__(
        self,
        acquire: Callable[[], Any],
        held: threading.Lock | None = None,
        on_load: Callable[[], None] | None = None,
    ) -> None:
        self._acquire = acquire
        self._held = held
        self._on_load = on_load
        self._backend: Any = None

    def _get(self) -> Any:
        if self._backend is None:
            if self._on_load is not None:
                self._on_load()
            if self._held is None:
                self._backend = self._acquire()
            else:
                self._held.release()
                try:
                    self._backend = self._acquire()
                finally:
                    self._held.acquire()
        return self._backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)
