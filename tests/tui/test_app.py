"""Pilot tests of the app shell: first run, settings, skipped files, help, errors and the CLI entry."""

from __future__ import annotations

import subprocess
import sys
import tomllib

from helpers.tui import wait_for, wait_indexed
from textual.widgets import Button, Input

from refind_desktop import locations
from refind_desktop.cli import build_parser
from refind_desktop.config import load_settings
from refind_desktop.tui.app import SAMPLES
from refind_desktop.tui.screens import ErrorModal, HelpScreen, SettingsPane, SkippedScreen, WelcomeScreen
from refind_desktop.tui.widgets import StatusBar


class TestFirstRun:
    async def test_samples_choice_is_indexed_and_remembered(self, make_app):
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
            await pilot.click("#use-samples")
            await wait_indexed(pilot)
            assert app.folder == str(SAMPLES)
        assert load_settings().chat_folder == str(SAMPLES)

    async def test_folder_that_does_not_exist_is_refused(self, make_app, tmp_path):
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
            app.screen.query_one("#welcome-folder", Input).value = str(tmp_path / "nope")
            await pilot.click("#use-folder")
            assert isinstance(app.screen, WelcomeScreen) and app.screen.has_class("-invalid")
        assert not locations.config_file().exists()


class TestSettings:
    async def test_save_persists_and_never_shows_the_key(self, make_app, chats):
        app = make_app(folder=None)
        app.settings = app.services.settings = app.settings.replace(
            openai_api_key="sk-secret-123", chat_folder=str(chats)
        )
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f5")
            pane = app.query_one(SettingsPane)
            key_box = pane.query_one("#set-api-key", Input)
            assert key_box.value == "" and key_box.password and "sk-secret" not in key_box.placeholder
            pane.query_one("#set-backend").value = "openai"
            pane.query_one("#set-base-url", Input).value = "http://localhost:8080/v1"
            pane.query_one("#set-mode").value = "one-search"
            await pilot.pause()
            assert pane.has_class("-openai")
            pane.query_one("#settings-save", Button).press()
            await pilot.pause()
            assert app.settings.backend == "openai" and app.settings.mode == "one-search"
            assert app.query_one("#ask-mode").value == "one-search"
        stored = tomllib.loads(locations.config_file().read_text())
        assert stored["openai_base_url"] == "http://localhost:8080/v1" and stored["backend"] == "openai"
        assert "openai_api_key" not in stored  # the key given in memory was never typed into the form
        assert locations.config_file().stat().st_mode & 0o077 == 0

    async def test_requests_at_a_time_are_set_for_a_server_and_checked(self, make_app, chats):
        app = make_app(folder=None)
        app.settings = app.services.settings = app.settings.replace(chat_folder=str(chats))
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f5")
            pane = app.query_one(SettingsPane)
            box = pane.query_one("#set-openai-parallel", Input)
            assert box.value == "4"  # the default, shown
            box.value = "0"  # hidden with the llama back end: not checked, not saved
            pane.query_one("#settings-save", Button).press()
            await pilot.pause()
            assert not pane.has_class("-invalid") and app.settings.openai_parallel == 4
            pane.query_one("#set-backend").value = "openai"
            await pilot.pause()
            pane.query_one("#settings-save", Button).press()
            await pilot.pause()
            assert pane.has_class("-invalid") and app.settings.backend != "openai"
            assert "1 to" in str(pane.query_one("#settings-error").render())
            box.value = "2"
            pane.query_one("#settings-save", Button).press()
            await pilot.pause()
            assert not pane.has_class("-invalid")
            assert app.settings.openai_parallel == 2 and app.settings.backend == "openai"
        assert tomllib.loads(locations.config_file().read_text())["openai_parallel"] == 2

    async def test_save_goes_through_load_settings_validation(self, make_app, monkeypatch):
        """A config.toml value of the wrong type is reported, not copied back; the environment is not saved."""
        monkeypatch.setenv("REFIND_TOP_K", "9")
        app = make_app()
        path = locations.config_file()
        path.write_text('n_ctx = "big"\n')  # edited by hand while the app runs
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            app.update_settings(persist=True, mode="one-search")
            await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
            assert app.screen.error_title == "settings not saved" and "n_ctx" in app.screen.message
            assert app.settings.mode == "one-search"  # applied for this run
            await pilot.pause()
            await pilot.press("escape")
            path.write_text("n_ctx = 4096\n")
            app.update_settings(persist=True, mode="generic")
            await pilot.pause()
            assert not isinstance(app.screen, ErrorModal)
        stored = tomllib.loads(path.read_text())
        assert stored == {"n_ctx": 4096, "mode": "generic"}  # REFIND_TOP_K stayed in the environment

    async def test_backend_menus_list_the_factory_backends(self, make_app):
        from textual.widgets import Select

        from refind_desktop.llm.factory import BACKENDS

        app = make_app()
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            for menu in ("#ask-backend", "#set-backend"):
                select = app.query_one(menu, Select)
                assert [value for _, value in select._options if value is not Select.BLANK] == list(BACKENDS)

    async def test_bad_folder_is_refused(self, make_app, tmp_path):
        app = make_app()
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f5")
            pane = app.query_one(SettingsPane)
            pane.query_one("#set-folder", Input).value = str(tmp_path / "missing")
            pane.query_one("#settings-save", Button).press()
            await pilot.pause()
            assert pane.has_class("-invalid")
            assert "not a folder" in str(pane.query_one("#settings-error").render())


class TestShell:
    async def test_skipped_files_open_with_reasons(self, make_app, chats):
        (chats / "broken.json").write_text("{ this is not json", encoding="utf-8")
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            bar = app.query_one(StatusBar)
            await wait_for(pilot, lambda: bar.stats.skipped == 1)
            await pilot.click("#status-skipped")
            assert isinstance(app.screen, SkippedScreen)
            assert app.screen.skipped[0][0].endswith("broken.json") and app.screen.skipped[0][1]

    async def test_help_lists_bindings(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)
            keys = {row[1] for row in app.screen.rows}
            assert {"Cancel question", "Search", "Help", "Back"} <= keys

    async def test_missing_folder_shows_what_to_do(self, make_app, tmp_path):
        app = make_app(folder=tmp_path / "gone")
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
            assert "Settings (F5)" in app.screen.message


def test_plain_refind_opens_the_app():
    parser = build_parser()
    from refind_desktop.cli import DEFAULT_COMMAND

    assert DEFAULT_COMMAND == ["tui"]
    args = parser.parse_args(["tui", "--folder", "x"])
    assert args.func.__module__ == "refind_desktop.cli.tui"


def test_core_and_cli_never_import_textual():
    code = (
        "import sys, refind_desktop.cli, refind_desktop.services, refind_desktop.agent, "
        "refind_desktop.cli.tui; refind_desktop.cli.build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class TestIndexing:
    async def test_initial_ingest_shows_progress_and_can_be_stopped(self, make_app, tmp_path, monkeypatch):
        import time

        from refind_desktop.ingest import generic
        from refind_desktop.tui.messages import IngestFinished, IngestProgressed

        real = generic.parse

        def slow_parse(path, ctx):  # batched ingest reads 120 small notes in well under a second
            time.sleep(0.03)
            yield from real(path, ctx)

        monkeypatch.setattr(generic, "parse", slow_parse)
        folder = tmp_path / "many"
        folder.mkdir()
        for i in range(120):
            (folder / f"note-{i:03d}.md").write_text(
                f"**User:** note {i} about kites\n\n**Assistant:** ok\n", encoding="utf-8"
            )
        seen = []
        app = make_app(folder=folder)
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            bar = app.query_one(StatusBar)
            await wait_for(pilot, lambda: any(isinstance(m, IngestProgressed) and m.done > 0 for m in seen))
            assert bar.has_class("-indexing")
            await pilot.press("ctrl+g")
            await wait_for(pilot, lambda: any(isinstance(m, IngestFinished) for m in seen), timeout=30)
            finished = next(m for m in seen if isinstance(m, IngestFinished))
            assert finished.report.cancelled and finished.report.ingested_files < 120
            assert bar.indexing is None and not bar.has_class("-indexing")
            assert app.watcher is None  # a stopped ingest is not silently resumed by the watcher
            await wait_for(pilot, lambda: 0 < bar.stats.sessions < 120)
