"""Modal screens: copyable ErrorModal, skipped-files list, first-run folder choice and the help screen.

Each has its own footer (its keys, e.g. Esc, beside the app's): the footer of the screen underneath is
covered, not squeezed."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Input, Label, Static, TextArea

from ..widgets.text import plain


class ErrorModal(ModalScreen[None]):
    """A failure with its title and a selectable, copyable message that says what to do next."""

    BINDINGS = [Binding("escape", "dismiss", "Close", id="error.close")]

    def __init__(self, title: str, message: str) -> None:
        super().__init__(classes="modal -error")
        self.error_title = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.error_title.capitalize(), id="dialog-title")
            yield TextArea(self.message, read_only=True, soft_wrap=True, id="error-text")
            with Horizontal(classes="buttons"):
                yield Button("Copy", id="copy")
                yield Button("Close", id="close", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    @on(Button.Pressed, "#copy")
    def copy(self) -> None:
        self.app.copy_to_clipboard(f"{self.error_title}: {self.message}")
        self.notify("copied to the clipboard", timeout=2)

    @on(Button.Pressed, "#close")
    def close(self) -> None:
        self.dismiss(None)


class SkippedScreen(ModalScreen[None]):
    """The files the ingest skipped, with the reason for each."""

    BINDINGS = [Binding("escape", "dismiss", "Close", id="skipped.close")]

    def __init__(self, skipped: list[tuple[str, str]]) -> None:
        super().__init__(classes="modal")
        self.skipped = skipped

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"{len(self.skipped)} skipped files", id="dialog-title")
            yield DataTable(id="skipped-table", cursor_type="row", zebra_stripes=True)
            with Horizontal(classes="buttons"):
                yield Button("Close", id="close", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("file", "reason")
        for path, reason in self.skipped:
            table.add_row(plain(path, one_line=True), plain(reason, one_line=True))
        if not self.skipped:
            table.add_row("(none)", "every file in the folder was read")
        table.focus()

    @on(Button.Pressed, "#close")
    def close(self) -> None:
        self.dismiss(None)


class WelcomeScreen(ModalScreen[str | None]):
    """First run: choose the chat folder, or open the bundled sample chats. Returns the folder."""

    BINDINGS = [Binding("escape", "skip", "Later", id="welcome.skip")]

    def __init__(self, samples: Path) -> None:
        super().__init__(classes="modal")
        self.samples = samples

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Welcome to refind", id="dialog-title")
            yield Static(
                "refind indexes a folder of chat exports (ChatGPT, Claude, WhatsApp, coding agents…) "
                "and keeps it up to date while the app runs. Nothing leaves this computer.\n\n"
                "Type the folder that holds your exports, or try the bundled sample chats first. "
                "You can change it later in Settings."
            )
            yield Input(placeholder="type a folder, e.g. ~/Downloads/chat-exports", id="welcome-folder")
            yield Label("", id="welcome-error")
            with Horizontal(classes="buttons"):
                yield Button("Use this folder", id="use-folder", variant="primary")
                yield Button("Open the sample chats", id="use-samples")
                yield Button("Later", id="skip")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted, "#welcome-folder")
    @on(Button.Pressed, "#use-folder")
    def use_folder(self) -> None:
        raw = self.query_one("#welcome-folder", Input).value.strip()
        path = Path(raw).expanduser() if raw else None
        if path is None or not path.is_dir():
            self.query_one("#welcome-error", Label).update(
                "That is not a folder; type the full path of the folder with your exports."
            )
            self.set_class(True, "-invalid")
            return
        self.dismiss(str(path.resolve()))

    @on(Button.Pressed, "#use-samples")
    def use_samples(self) -> None:
        self.dismiss(str(self.samples))

    @on(Button.Pressed, "#skip")
    def action_skip(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Every key binding of the app and the current screen, with what it does."""

    BINDINGS = [Binding("escape,f1,q", "dismiss", "Close", id="help.close")]

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="modal")
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Keys", id="dialog-title")
            yield Static(
                "Ctrl+P opens the command palette, where the app's actions (tabs, rescan, stop, load "
                "model, skipped files) can also be run by name.",
                classes="hint",
                id="help-hint",
            )
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "where")
        for key, what, where in self.rows:
            table.add_row(key, what, where)
        table.focus()
