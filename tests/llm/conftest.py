"""Fixtures for the back-end tests: the embedded GGUF, assembled once into a shared model cache.

The embedded model (1.1 GB) is assembled from its installed PyPI parts into REFIND_MODEL_CACHE when that
is set, else into `<user cache>/refind-desktop/test-models`, and reused by later sessions (a marker
file keeps its verified digest, so it is not re-hashed). Tests that need it skip when the parts or
llama-cpp-python are not installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from refind_desktop.llm import catalog


@pytest.fixture
def use_model_cache(model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point REFIND_MODEL_CACHE at the shared cache for one test."""
    monkeypatch.setenv(catalog.CACHE_ENV, str(model_cache))
    yield model_cache
