"""The app's model back end: `ModelCache` keeps one loaded back end per settings; `ModelLoading` loads it
off the UI thread and reports its state (mixed into `RefindApp`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work

from ..config import Settings
from .messages import BackendReady, ModelLoadStarted, ModelProgressed
from .screens.ask import AskPane
from .widgets.status import ModelStatus, StatusBar

if TYPE_CHECKING:  # the mixin sees the App it is mixed into
    from textual.app import App

    _AppPart = App[None]
else:
    _AppPart = object

__all__ = [
    "BackendFactory",
    "BackendTraits",
    "ModelCache",
    "ModelLoading",
    "backend_key",
    "default_backend_factory",
    "default_backend_traits",
    "model_label",
]

BackendFactory = Callable[..., Any]
"""make_backend-shaped: factory(settings, progress=fn(done_bytes, total_bytes)) -> LLMBackend."""
BackendTraits = Callable[[Settings], dict[str, Any]]
"""settings -> the `llm.lazy.TRAITS` of the back end the factory would build (nothing is built)."""


def default_backend_factory(settings: Settings, progress: Callable[[int, int], None] | None = None) -> Any:
    """The real back ends (imported lazily: llama/openai modules are heavy)."""
    from ..llm.factory import make_backend

    return make_backend(settings, progress=progress)


def default_backend_traits(settings: Settings) -> dict[str, Any]:
    """What the real back end for `settings` will be, told without building it."""
    from ..llm.factory import backend_traits

    return backend_traits(settings)


def backend_key(settings: Settings) -> tuple:
    """The settings that choose the back end: a change of any of them loads another one."""
    s = settings
    return (
        s.backend,
        s.model,
        s.openai_model,
        s.openai_base_url,
        s.openai_api_key,
        s.openai_parallel,
        s.n_ctx,
    )


def model_label(settings: Settings) -> str:
    """The model's name for the status bar: the served model, the catalog name or the GGUF file's name."""
    if settings.backend == "openai":
        return settings.openai_model or "openai"
    value = (settings.model or "").strip()
    if value.endswith(".gguf") or "/" in value or "\\" in value:
        return Path(value).name
    if value:
        return value
    try:
        from ..llm.catalog import embedded_entry

        return embedded_entry().name
    except Exception:  # noqa: BLE001 - a broken catalog must not break the status bar
        return "embedded model"


class ModelCache:
    """One loaded back end, kept while the settings that chose it stay the same (thread-safe)."""

    def __init__(self, factory: BackendFactory, traits: BackendTraits | None = None) -> None:
        self.factory = factory
        self.traits = traits
        """Tells the factory's back end from settings before it is built (None: unknown)."""
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
        """(back end, whether it was loaded by this call); `on_load()` runs just before a load. A back
        end with a `load()` (the local model) has its weights loaded here, so that "loaded" is true."""
        key = backend_key(settings)
        with self._lock:
            if self.backend is not None and self._key == key:
                return self.backend, False
            if on_load is not None:
                on_load()
            with self.model_lock:
                self.backend = None
                backend = self.factory(settings, progress=progress)
                load = getattr(backend, "load", None)
                if callable(load):
                    load()
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

    def backend_traits(self) -> dict[str, Any] | None:
        """The current back end's traits, told without building it (None when the factory cannot)."""
        if self.models.traits is None:
            return None
        return self.models.traits(self.settings)

    def acquire_backend(self, cancel: threading.Event | None = None) -> Any:
        """The back end for the current settings, loaded on first use (called from worker threads)."""
        from ..agent import AgentCancelled

        s = self.settings
        label = model_label(s)

        def progress(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                raise AgentCancelled("model preparation was cancelled; ask again to resume it")
            self.post_message(ModelProgressed(done, total, label))

        backend, loaded = self.models.get(s, progress, lambda: self.post_message(ModelLoadStarted(label)))
        if loaded:
            self.post_message(BackendReady(label))
        return backend

    @work(thread=True, exclusive=True, group="model", exit_on_error=False, description="preparing the model")
    def prepare_model(self, cancel: threading.Event) -> None:
        self.acquire_backend(cancel)

    def on_model_load_started(self, message: ModelLoadStarted) -> None:
        self._show_model(ModelStatus("loading", message.label), (0, 0))

    def on_model_progressed(self, message: ModelProgressed) -> None:
        if message.total and message.done < message.total:
            status = ModelStatus("preparing", message.label, 100 * message.done // message.total)
        else:
            status = ModelStatus("loading", message.label)
        self._show_model(status, (message.done, message.total))

    def on_backend_ready(self, message: BackendReady) -> None:
        self._show_model(ModelStatus("ready", message.label), None)

    def model_unloaded(self) -> None:
        """The status bar's model state after a failed load or a change of back end."""
        self._show_model(ModelStatus(), None)

    def _show_model(self, status: ModelStatus, progress: tuple[int, int] | None) -> None:
        """The model's state to the status bar and the ask pane's progress bar (a worker's message
        that arrives while the app shuts down finds neither)."""
        for bar in self.query(StatusBar):
            bar.model = status
        for pane in self.query(AskPane):
            pane.model_progress = progress
