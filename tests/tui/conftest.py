"""TUI fixtures: a copy of the sample chats, a scripted model, and an app factory wired by build_services."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.tui import SAMPLES, responder

from refind_desktop.llm.lazy import traits_of
from refind_desktop.llm.scripted import ScriptedBackend
from refind_desktop.services import build_services


@pytest.fixture(autouse=True)
def no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Steady screens for snapshots and less work in Pilot tests."""
    from textual.widgets import Input

    monkeypatch.setattr(Input, "cursor_blink", False)


@pytest.fixture(autouse=True)
def no_discovered_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    """First-run discovery never looks at this machine's home folder (tests pass their own finder)."""
    from refind_desktop.ingest import known_sources

    monkeypatch.setattr(known_sources, "find_known_sources", lambda *a, **k: [])


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    """A writable copy of the bundled sample chats."""
    folder = tmp_path / "chats"
    shutil.copytree(
        SAMPLES, folder, ignore=shutil.ignore_patterns("coding-agents")
    )  # the chats the layout tests show
    return folder


@pytest.fixture
def backend() -> ScriptedBackend:
    """The scripted model every TUI test uses."""
    return ScriptedBackend(responder())


@pytest.fixture
def make_app(chats: Path, backend: ScriptedBackend):
    """RefindApp over build_services(), the sample folder and the scripted back end (its traits known
    before it is built, as the real back ends' are)."""
    made = []

    def make(folder: Path | None = chats, **kwargs):
        from refind_desktop.tui import RefindApp

        svc = build_services()
        kwargs.setdefault("backend_factory", lambda settings, progress=None: backend)
        kwargs.setdefault("backend_traits", lambda settings: traits_of(backend))
        kwargs.setdefault("debounce", 0.2)
        app = RefindApp(svc, folder=str(folder) if folder else None, **kwargs)
        made.append(svc)
        return app

    yield make
    for svc in made:
        svc.close()
