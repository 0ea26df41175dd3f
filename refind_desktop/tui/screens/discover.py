"""DiscoverScreen: the first-run list of chat logs found on this computer, with checkboxes.

Pushed by `RefindApp` when no chat folder or source is set. It looks for known locations in a
thread (core: `ingest.known_sources.find_known_sources`, names and sizes only) and returns the
ticked paths; None means "let me type a folder instead". Nothing is read before the user confirms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Label, SelectionList, Static

from ...ingest import known_sources
from ...ingest.known_sources import KnownSource

_CONTROL = {c: "?" for c in [*range(32), *range(127, 160)]}


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return ""


def describe(source: KnownSource, home: Path) -> Text:
    """One checkbox label: tool, path (home as ~), files and size; control characters replaced."""
    try:
        where = "~/" + source.path.relative_to(home).as_posix()
    except ValueError:
        where = str(source.path)
    files = f"{source.files} file{'s' if source.files != 1 else ''}"
    label = Text(f"{source.tool}  ", style="bold")
    label.append(where.translate(_CONTROL))
    label.append(f"  {files}, {_size(source.size)} · {source.reads}".translate(_CONTROL), style="dim")
    return label


class DiscoverScreen(ModalScreen[list[str] | None]):
    """Tick the found chat locations to index; returns their paths, [] for later, None to type a folder."""

    BINDINGS = [Binding("escape", "later", "Later", id="discover.later")]
    DEFAULT_CSS = """
    DiscoverScreen #discover-list { height: auto; max-height: 20; margin: 1 0; }
    DiscoverScreen #discover-status { color: $text-muted; }
    """

    @dataclass
    class SourcesFound(Message):
        """The background scan finished with these locations."""

        sources: list[KnownSource]

    def __init__(
        self, finder: Callable[[], list[KnownSource]] | None = None, home: Path | None = None
    ) -> None:
        super().__init__(classes="modal")
        self.finder = finder
        self.home = home or Path.home()
        self.found: list[KnownSource] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Chat logs found on this computer", id="dialog-title")
            yield Static(
                "refind can index the coding-agent logs and chat exports below. Nothing has been "
                "read yet: tick what it may read, and it stays on this computer. Recorded sources "
                "are read again at every start; change them with `refind sources`."
            )
            yield Label("Looking for chat logs…", id="discover-status")
            yield SelectionList[str](id="discover-list")
            with Horizontal(classes="buttons"):
                yield Button("Index selected", id="discover-add", variant="primary", disabled=True)
                yield Button("Choose a folder instead", id="discover-folder")
                yield Button("Later", id="discover-skip")
        yield Footer()

    def on_mount(self) -> None:
        self.scan()

    @work(
        thread=True,
        exclusive=True,
        group="discover",
        exit_on_error=False,
        description="looking for chat logs",
    )
    def scan(self) -> None:
        finder = self.finder or (lambda: known_sources.find_known_sources(self.home))
        self.post_message(self.SourcesFound(finder()))

    def on_discover_screen_sources_found(self, message: SourcesFound) -> None:
        self.found = message.sources
        if not self.found:
            self.dismiss(None)  # nothing known here: ask for a folder instead
            return
        listing = self.query_one("#discover-list", SelectionList)
        for n, source in enumerate(self.found):
            listing.add_option((describe(source, self.home), str(n), True))
        self.query_one("#discover-status", Label).update(
            f"{len(self.found)} places found; untick what to leave out."
        )
        self.query_one("#discover-add", Button).disabled = False
        listing.focus()

    @on(SelectionList.SelectedChanged, "#discover-list")
    def selection_changed(self) -> None:
        chosen = self.query_one("#discover-list", SelectionList).selected
        self.query_one("#discover-add", Button).disabled = not chosen

    @on(Button.Pressed, "#discover-add")
    def add_selected(self) -> None:
        chosen = self.query_one("#discover-list", SelectionList).selected
        self.dismiss([str(self.found[int(i)].path) for i in sorted(chosen, key=int)])

    @on(Button.Pressed, "#discover-folder")
    def choose_folder(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#discover-skip")
    def action_later(self) -> None:
        self.dismiss([])
