"""Fixtures for the back-end tests: the embedded GGUF, assembled once into a shared model cache.

The 491 MB model is assembled from the installed pandas-sns parts into REFIND_MODEL_CACHE when that
is set, else into `<user cache>/refind-desktop/test-models`, and reused by later sessions (a marker
file keeps its verified digest, so it is not re-hashed). Tests that need it skip when the parts or
llama-cpp-python are not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from refind_desktop.errors import MissingDependencyError
from refind_desktop.llm import catalog


def _cache_dir() -> Path:
    import os

    value = os.environ.get(catalog.CACHE_ENV)
    return Path(value).expanduser() if value else Path(platformdirs.user_cache_dir("refind-desktop")) / "test-models"


@pytest.fixture(scope="session")
def model_cache() -> Path:
    """Folder shared by all tests (and sessions) that holds the assembled embedded model."""
    folder = _cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def embedded_gguf(model_cache: Path) -> Path:
    """Path of the verified embedded GGUF (assembled on first use)."""
    mp = pytest.MonkeyPatch()
    mp.setenv(catalog.CACHE_ENV, str(model_cache))
    try:
        return catalog.embedded_model_path()
    except MissingDependencyError as exc:
        pytest.skip(f"embedded model parts not installed: {exc.message}")
    finally:
        mp.undo()


@pytest.fixture
def use_model_cache(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point REFIND_MODEL_CACHE at the shared cache for one test."""
    monkeypatch.setenv(catalog.CACHE_ENV, str(model_cache))
    yield model_cache
