"""`make_backend`: the one place that turns settings into a language-model back end.

Called by `build_services`, `refind ask` and the TUI; the scripted test double is built by its tests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import ConfigError, RefindError
from .base import LLMBackend
from .catalog import Progress, get_model, list_models, resolve_model

BACKENDS = {"llama": "local model on this computer", "openai": "an OpenAI-compatible server"}
"""Every model back end, name → what it is: the one list behind `make_backend`, `refind ask --backend`
and the TUI menus."""


def _catalog_controller(name: str | None, path: object) -> str:
    """The catalog's controller default for a model given by name, embedded default or file name."""
    file = getattr(path, "name", "")
    for entry in list_models():
        if entry.name == (name or "") or (not name and entry.embedded) or entry.file == file:
            return entry.controller
    return "auto"


def _model_file(value: str) -> Path:
    """The GGUF a llama model setting names, as `resolve_model` would find it but without assembling,
    downloading or checking anything: a path as given, a catalog entry by its file name."""
    if not value:
        return Path(next(e for e in list_models() if e.embedded).file)
    path = Path(value).expanduser()
    if path.suffix == ".gguf" or os.sep in value or path.exists():
        return path.resolve()
    return Path(get_model(value).file)


def backend_traits(
    settings: Settings, backend: str | None = None, model: str | None = None
) -> dict[str, Any]:
    """The `llm.lazy.TRAITS` of the back end `make_backend` would build with the same arguments, told
    from settings alone (nothing is built, assembled or downloaded), for a `LazyBackend`. A setting
    `make_backend` would reject gives no traits: the back end is then built, and fails, at the first
    model call."""
    kind = (backend or settings.backend or "llama").strip().lower()
    if kind == "llama":
        name = model if model is not None else settings.model
        try:
            path = _model_file(str(name or "").strip())
        except RefindError:
            return {"name": "llama"}
        return {"name": "llama", "controller_hint": _catalog_controller(name, path), "model_path": path}
    if kind == "openai":
        return {"name": "openai", "model": model or settings.openai_model}
    return {}


def make_backend(
    settings: Settings, backend: str | None = None, model: str | None = None, progress: Progress | None = None
) -> LLMBackend:
    """The back end named by `backend` (default: settings.backend). For "llama", `model` (default:
    settings.model) is a catalog name or GGUF path, empty for the embedded model, which is assembled
    on first use with `progress(done_bytes, total_bytes)`. For "openai", `model` overrides
    settings.openai_model."""
    kind = (backend or settings.backend or "llama").strip().lower()
    if kind == "llama":
        from .llama import LlamaBackend

        name = model if model is not None else settings.model
        path = resolve_model(name, progress)
        backend = LlamaBackend(
            path,
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads or os.cpu_count() or 1,
            n_gpu_layers=settings.n_gpu_layers,
        )
        backend.controller_hint = _catalog_controller(name, path)
        return backend
    if kind == "openai":
        from .openai_backend import OpenAIBackend

        return OpenAIBackend(
            model=model or settings.openai_model,
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key,
            redact=settings.redact,
            parallel=settings.openai_parallel,
        )
    raise ConfigError(
        f"unknown back end {kind!r}; choose one of {', '.join(BACKENDS)} (`refind config` or REFIND_BACKEND)"
    )
