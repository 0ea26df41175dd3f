"""Pilot tests of the first-run discovery screen: found logs with checkboxes, recorded, then indexed."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from helpers.tui import wait_for, wait_indexed
from textual.widgets import SelectionList

from refind_desktop import locations
from refind_desktop.ingest.known_sources import find_known_sources as real_find  # before the autouse patch
from refind_desktop.tui.screens import DiscoverScreen, WelcomeScreen

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def fake_home(root: Path) -> Path:
    """A home with Gemini CLI and Continue logs and an Aider history (the project's fixtures)."""
    shutil.copytree(FIXTURES / "gemini_cli" / ".gemini", root / ".gemini")
    shutil.copytree(FIXTURES / "continue_dev" / ".continue", root / ".continue")
    (root / "src" / "greenhouse").mkdir(parents=True)
    shutil.copy(FIXTURES / "aider" / "greenhouse" / ".aider.chat.history.md", root / "src" / "greenhouse")
    return root


class TestFirstRunDiscovery:
    async def test_ticked_sources_are_recorded_and_indexed(self, make_app, tmp_path, monkeypatch):
        home = fake_home(tmp_path / "home")
        monkeypatch.setattr(
            "refind_desktop.tui.app.DiscoverScreen",
            lambda: DiscoverScreen(finder=lambda: _find(home), home=home),
        )
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, DiscoverScreen) and app.screen.found)
            listing = app.screen.query_one("#discover-list", SelectionList)
            assert listing.option_count == 3 and len(listing.selected) == 3  # all ticked by default
            assert "Gemini CLI  ~/.gemini/tmp" in str(listing.get_option_at_index(0).prompt)
            assert app.services.catalog.totals()["turns"] == 0  # nothing read before the user says yes
            listing.deselect("1")  # leave Continue out
            await pilot.pause()
            await pilot.click("#discover-add")
            await wait_indexed(pilot)
            totals = app.services.catalog.totals()
            assert set(totals["formats"]) == {"gemini_cli", "aider"}
        saved = tomllib.loads(locations.config_file().read_text(encoding="utf-8"))
        assert saved["sources"] == [
            str(home / ".gemini" / "tmp"),
            str(home / "src/greenhouse/.aider.chat.history.md"),
        ]
        assert "chat_folder" not in saved

    async def test_nothing_found_falls_back_to_the_folder_prompt(self, make_app):
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        assert not locations.config_file().exists()

    async def test_choose_folder_and_later(self, make_app, tmp_path, monkeypatch):
        home = fake_home(tmp_path / "home")
        monkeypatch.setattr(
            "refind_desktop.tui.app.DiscoverScreen",
            lambda: DiscoverScreen(finder=lambda: _find(home), home=home),
        )
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, DiscoverScreen) and app.screen.found)
            await pilot.pause(0.3)  # the list of found logs re-lays out the dialog: click after it settled
            await pilot.click("#discover-folder")
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, DiscoverScreen) and app.screen.found)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, DiscoverScreen))
            assert app.services.catalog.totals()["turns"] == 0
        assert not locations.config_file().exists()

    async def test_recorded_sources_are_read_at_start_without_asking(self, make_app, tmp_path):
        home = fake_home(tmp_path / "home")
        app = make_app(folder=None)
        app.settings = app.services.settings = app.settings.replace(
            sources=(str(home / ".continue" / "sessions"),)
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            assert not isinstance(app.screen, DiscoverScreen)
            assert set(app.services.catalog.totals()["formats"]) == {"continue_dev"}


def _find(home: Path):
    return real_find(home, env={}, system="linux")
