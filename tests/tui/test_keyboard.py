"""Pilot tests of keyboard use: focus is visible everywhere, every action has a key, Tab never lands on
the status bar, and the texts a newcomer reads first (help, palette, history, settings) say the truth."""

from __future__ import annotations

from helpers.tui import LISBON, wait_for, wait_indexed
from textual.widget import Widget
from textual.widgets import Input, ListView, Select

from refind_desktop import locations
from refind_desktop.config import Settings
from refind_desktop.llm import catalog
from refind_desktop.llm.model_files import write_marker
from refind_desktop.tui.screens import (
    AskPane,
    ErrorModal,
    HelpScreen,
    SearchPane,
    SettingsPane,
    SkippedScreen,
    TranscriptScreen,
    WelcomeScreen,
)
from refind_desktop.tui.screens.ask import HistoryItem
from refind_desktop.tui.widgets import StatusBar


def looks(app, widget: Widget) -> list:
    """The style of every cell the widget covers on screen."""
    r = widget.region
    return [app.screen.get_style_at(x, y) for y in range(r.y, r.bottom) for x in range(r.x, r.right)]


async def unseen_focus(pilot) -> list[str]:
    """The focusable widgets of the current screen that look the same focused and unfocused."""
    app, missing = pilot.app, []
    for widget in list(app.screen.focus_chain):
        app.screen.set_focus(None)
        await pilot.pause(0.05)
        blurred = looks(app, widget)
        widget.focus()
        await pilot.pause(0.05)
        if looks(app, widget) == blurred:
            missing.append(f"{type(widget).__name__}#{widget.id}")
    return missing


async def answered(pilot, question: str = "When is my flight to Lisbon?") -> AskPane:
    await wait_indexed(pilot)
    pane = pilot.app.query_one(AskPane)
    pilot.app.query_one("#question", Input).value = question
    await pilot.press("enter")
    await wait_for(pilot, lambda: 1 in pane.records and not pane.busy)
    return pane


class TestFocus:
    async def test_every_focusable_widget_shows_its_focus(self, make_app, chats):
        (chats / "broken.json").write_text("{ not json", encoding="utf-8")
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await answered(pilot)
            for tab in ("ask", "search", "sessions", "settings"):
                app.action_show_tab(tab)
                if tab == "search":
                    app.query_one("#search-query", Input).value = "flight"
                    await pilot.press("enter")
                    await wait_for(pilot, lambda: app.query_one(SearchPane).last is not None)
                await pilot.pause(0.2)
                assert await unseen_focus(pilot) == [], tab
            app.push_screen(TranscriptScreen(LISBON, 2))
            await wait_for(pilot, lambda: getattr(app.screen, "loaded", False))
            assert await unseen_focus(pilot) == []
            app.pop_screen()
            for dialog in (
                HelpScreen(app.binding_rows()),
                SkippedScreen(app.skipped),
                ErrorModal("model back end error", "the server refused the connection"),
            ):
                app.push_screen(dialog)
                await pilot.pause(0.2)
                assert await unseen_focus(pilot) == [], type(dialog).__name__
                app.pop_screen()

    async def test_first_run_dialog_shows_focus_and_a_whole_footer(self, make_app):
        app = make_app(folder=None)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WelcomeScreen))
            await pilot.pause(0.2)
            assert await unseen_focus(pilot) == []
            footer = app.screen.query_one("Footer")
            await wait_for(pilot, lambda: bool(footer.query("FooterKey")))
            await pilot.pause(0.2)
            keys = {(k.key_display, k.description) for k in footer.query("FooterKey")}
            assert ("esc", "Later") in keys  # the dialog's own keys
            assert not any(d in ("Ask", "Search") for _, d in keys)  # no tab switching under a dialog
            # every key's text fits: nothing is cut ("f1 Hel f2 As …")
            for key in footer.query("FooterKey"):
                assert key.size.width >= len(f"{key.key_display} {key.description}"), key.description


class TestKeys:
    async def test_a_citation_opens_from_the_keyboard(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await answered(pilot)
            assert app.focused is app.query_one("#question")
            await pilot.press("ctrl+o")  # to the sources
            assert app.focused is app.query_one("#citations")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded)
            assert app.screen.session_id == LISBON and app.screen.highlight_turn == 2
            await pilot.press("escape")
            # Tab alone gets there too: question → history → answer → sources
            app.query_one("#question").focus()
            for _ in range(3):
                await pilot.press("tab")
            assert app.focused is app.query_one("#citations")

    async def test_tab_from_search_results_never_lands_on_the_status_bar(self, make_app, chats):
        (chats / "broken.json").write_text("{ not json", encoding="utf-8")
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            bar = app.query_one(StatusBar)
            await wait_for(pilot, lambda: bar.stats.skipped == 1)
            await pilot.press("f3")
            pane = app.query_one(SearchPane)
            pane.query_one("#search-query", Input).value = "flight"
            await pilot.press("enter")
            await wait_for(pilot, lambda: pane.last is not None)
            assert app.focused is pane.query_one("#results")
            for _ in range(8):  # round the whole chain and back
                await pilot.press("tab")
                assert bar not in app.focused.ancestors_with_self
            assert not isinstance(app.screen, SkippedScreen)
            await pilot.press("f6")  # the skipped files open on their key (or a click)
            assert isinstance(app.screen, SkippedScreen)
            await pilot.press("escape")
            assert not isinstance(app.screen, SkippedScreen)

    async def test_settings_save_with_ctrl_s(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f5")
            assert app.focused is app.query_one("#set-folder")
            app.query_one("#set-mode", Select).value = "one-search"
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert app.settings.mode == "one-search"

    async def test_help_and_palette_list_each_action_once(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)
            keys = {what: key for key, what, _ in app.screen.rows}
            assert keys["Skipped files"] == "f6" and keys["Sources"] == "^o"
            assert keys["Save settings"] == "^s"
            hint = str(app.screen.query_one("#help-hint").render())
            assert "below" not in hint and "palette" in hint
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert len(titles) == len(set(titles)) and "Keys" in titles and "Skipped files" in titles


class TestTexts:
    async def test_history_questions_wrap_at_words(self, make_app):
        long = (
            "When is my flight to Lisbon and which terminal does it leave from, and did I book "
            "the hotel near Alfama or the one in Baixa that Maya recommended?"
        )
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            pane = await answered(pilot, long)
            item = pane.query_one(HistoryItem)
            shown = str(item.query_one("Label").render())
            assert shown.endswith(" …") and long.startswith(shown[:-2])  # cut between two words
            assert long[len(shown) - 2] == " "
            assert item.size.height >= 2  # wrapped, not cut at the pane's edge

    def test_an_empty_folder_setting_reads_as_empty(self):
        assert SettingsPane(Settings()).folder_hint() == "not set — type a folder, e.g. ~/chat-exports"
        recorded = Settings(sources=("/home/me/.claude/projects", "/home/me/.codex/sessions"))
        assert SettingsPane(recorded).folder_hint().startswith("not set — indexing 2 recorded sources")
        watching = SettingsPane(Settings(), watching="/tmp/chats").folder_hint()
        assert watching == "not saved — this run watches /tmp/chats (--folder)"

    async def test_settings_say_what_is_empty_and_what_is_not_downloaded(self, make_app, chats):
        missing = next(e for e in catalog.list_models() if not e.embedded and not e.sha256)
        app = make_app()
        async with app.run_test(size=(120, 50)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f5")
            pane = app.query_one(SettingsPane)
            folder = pane.query_one("#set-folder", Input)
            assert folder.value == "" and folder.placeholder.startswith("not saved — this run watches ")
            assert str(chats) in folder.placeholder  # started with --folder: the box says so
            x, y = folder.region.x + 4, folder.region.y + 1  # a cell of the placeholder's text
            assert app.screen.get_style_at(x, y).italic  # drawn as a hint, unlike a value
            folder.value = "~/my-exports"
            await pilot.pause()
            assert not app.screen.get_style_at(x, y).italic
            folder.value = ""
            model = pane.query_one("#set-model", Select)
            labels = {value: str(label) for label, value in model._options}
            assert "not downloaded" in labels[missing.name]
            model.value = missing.name
            await pilot.pause()
            note = str(pane.query_one("#set-model-note").render())
            assert f"refind models pull {missing.name}" in note and pane.has_class("-model-missing")
            path = locations.models_dir() / missing.file  # once pulled, it is on this computer
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"GGUF")
            write_marker(path, "0" * 64, verified=False)
            model.value = catalog.embedded_entry().name
            await pilot.pause()
            model.value = missing.name
            await pilot.pause()
            note = str(pane.query_one("#set-model-note").render())
            assert "is on this computer" in note and not pane.has_class("-model-missing")

    async def test_history_list_follows_the_question_shown(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            pane = await answered(pilot)
            assert pane.query_one("#history", ListView).index == 0
