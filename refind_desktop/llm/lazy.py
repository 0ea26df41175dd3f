"""LazyBackend: a back end built on its first model call, so a question's first search (which needs
no model) and its hits show before a model loads. Used by `refind ask` and the TUI."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

TRAITS = ("name", "controller_hint", "model", "model_path")
"""What a caller may read of a back end before its first model call: what the agent needs to choose its
controller (`agent.controllers.controller_for`). `llm.factory.backend_traits` tells them from settings."""


def traits_of(backend: Any) -> dict[str, Any]:
    """The traits of a back end already built (those it has)."""
    return {name: getattr(backend, name) for name in TRAITS if hasattr(backend, name)}


class LazyBackend:
    """Proxy for the back end `acquire()` returns, called once, on first attribute access.

    `held`: a lock the caller holds while using the proxy that acquiring also takes (the TUI's model
    lock); it is released while the back end is being built. `traits`: the values of `TRAITS` known
    before building (a trait missing from it is an attribute the back end lacks); reading a trait never
    builds the back end. Without `traits`, any attribute builds it."""

    def __init__(
        self,
        acquire: Callable[[], Any],
        held: threading.Lock | None = None,
        on_load: Callable[[], None] | None = None,
        traits: Mapping[str, Any] | None = None,
    ) -> None:
        self._acquire = acquire
        self._held = held
        self._on_load = on_load
        self._traits = dict(traits) if traits is not None else None
        self._backend: Any = None

    @property
    def built(self) -> bool:
        """True once the back end was built (a model call, or an attribute other than a trait)."""
        return self._backend is not None

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
        if self._backend is None and self._traits is not None and name in TRAITS:
            if name in self._traits:
                return self._traits[name]
            raise AttributeError(name)
        return getattr(self._get(), name)
