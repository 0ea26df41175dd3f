"""The app's model back end: `ModelCache` keeps one loaded back end per settings; `ModelLoading` loads it
off the UI thread and reports progress (mixed into `RefindApp`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

from ..config import Settings
from .messages import BackendReady, ModelProgressed
from .screens.ask import AskPane
from .widgets.status import StatusBar

if TYPE_CHECKING:  # the mixin sees the App it is mixed into
    from textual.app import App

    _AppPart = App[None]
else:
    _AppPart = object

__all__ = ["BackendFactory", "ModelCache", "ModelLoading", "backend_key", "default_backend_factory"]

BackendFactory = Callable[..., Any]
"""make_backend-shaped: factory(settings, progress=fn(done_bytes, total_bytes)) -> LLMBackend."""


def default_backend_factory(settings: Settings, progress: Callable[[int, int], None] | None = None) -> Any:
    """The real back ends (imported lazily: llama/openai modules are heavy)."""
    from ..llm.factory import make_backend

    return make_backend(settings, progress=progress)


def backend_key(settings: Settings) -> tuple:
    """The settings that choose the back end: a change of any of them loads another one."""
    s = settings
    return (s.backend, s.model, s.openai_model, s.openai_base_url, s.openai_api_key, s.n_ctx)


class ModelCache:
    """One loaded back end, kept while the settings that chose it stay the same (thread-safe)."""

    def __init__(self, factory: BackendFactory) -> None:
        self.factory = factory
        self.model_lock = threading.Lock()
        """Held while the model loads or answers: one model call at a time."""
        self._lock = threading.Lock()
        self.backend: Any = None
        self._key: tuple | None = None

    def get(
        self,
        settings: Settings,
        progress: Callable[[int, int], None] | None = None,
        on_load: Callable[[], None] | None = None,
    ) -> tuple[Any, bool]:
        """(back end, whether it was loaded by this call); `on_load()` runs just before a load."""
        key = backend_key(settings)
        with self._lock:
            if self.backend is not None and self._key == key:
                return self.backend, False
            if on_load is not None:
                on_load()
            with self.model_lock:
                self.backend = None
                backend = self.factory(settings, progress=progress)
            self.backend, self._key = backend, key
            return backend, True


class ModelLoading(_AppPart):
    """RefindApp's model part: `acquire_backend` (from worker threads) and the `prepare_model` worker."""

    models: ModelCache
    settings: Settings

    @property
    def model_lock(self) -> threading.Lock:
        """Held while the model loads or answers (the ask pane takes it around a question)."""
        return self.models.model_lock

    def acquire_backend(self, cancel: threading.Event | None = None) -> Any:
        """The back end for the current settings, loaded on first use (called from worker threads)."""
        from ..agent import AgentCancelled

        s = self.settings

        def progress(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                raise AgentCancelled("model preparation was cancelled; ask again to resume it")
            self.post_message(ModelProgressed(done, total))

        def loading() -> None:
            self.post_message(ModelProgressed(0, 0, f"loading the {s.backend} back end"))

        backend, loaded = self.models.get(s, progress, loading)
        if loaded:
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
