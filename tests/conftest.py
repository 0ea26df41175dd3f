"""Shared fixtures: every test runs with REFIND_HOME in a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def refind_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate config, data and logs from the real user dirs."""
    home = tmp_path / "refind_home"
    monkeypatch.setenv("REFIND_HOME", str(home))
    monkeypatch.setenv("REFIND_TIMEZONE", "UTC")
    for var in ("REFIND_CONFIG_FILE", "REFIND_BACKEND", "REFIND_MODEL", "OPENAI_API_KEY",
                "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def fixtures() -> Path:
    """Folder of the project's own test fixtures."""
    return FIXTURES
