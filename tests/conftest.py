"""Shared fixtures: every test runs with REFIND_HOME in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from refind_desktop.errors import MissingDependencyError
from refind_desktop.llm import catalog

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that loads the real embedded GGUF (through the `embedded_gguf` fixture, directly or
    through another fixture) is in the slow tier: `pytest -m "not slow"` leaves it out."""
    for item in items:
        if "embedded_gguf" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def refind_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate config, data and logs from the real user dirs."""
    home = tmp_path / "refind_home"
    monkeypatch.setenv("REFIND_HOME", str(home))
    monkeypatch.setenv("REFIND_TIMEZONE", "UTC")
    for var in ("REFIND_CONFIG_FILE", "REFIND_BACKEND", "REFIND_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def fixtures() -> Path:
    """Folder of the project's own test fixtures."""
    return FIXTURES


def _cache_dir() -> Path:
    import os

    value = os.environ.get(catalog.CACHE_ENV)
    return (
        Path(value).expanduser()
        if value
        else Path(platformdirs.user_cache_dir("refind-desktop")) / "test-models"
    )


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
