"""SettingsPane: back end, model, OpenAI-compatible server and key (never shown), mode and chat folder."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Static

from ... import locations
from ...config import Settings
from ...errors import RefindError
from ...llm.factory import BACKENDS
from ...terminal import printable
from .ask import UI_MODES

if TYPE_CHECKING:
    from ...llm.catalog import ModelEntry

EMBEDDED = "(embedded default)"
CUSTOM = "(a GGUF file path…)"
MAX_PARALLEL = 32
"""The most requests at a time the settings form takes."""


def catalog_names() -> list[str]:
    """Model names of the packaged catalog (empty when it cannot be read)."""
    return list(catalog_labels())


def on_this_computer(entry: ModelEntry) -> str:
    """Whether a catalog model can run here: "present" (its verified file is in the models folder),
    "parts" (the embedded default: assembled from its installed parts at the first question) or
    "missing" (it must be downloaded first: `refind models pull NAME`)."""
    from ...llm import catalog

    folders = [locations.models_dir()]
    if os.environ.get(catalog.CACHE_ENV):
        folders.append(Path(os.environ[catalog.CACHE_ENV]).expanduser())
    if any(catalog.is_present(entry, folder) for folder in folders):
        return "present"
    if entry.parts:
        try:
            if catalog.part_files(entry.parts):
                return "parts"
        except RefindError:
            pass
    return "missing"


def catalog_labels() -> dict[str, str]:
    """Model name → menu label: measured seconds per question and accuracy when known, and "not
    downloaded" for a model that is not on this computer yet."""
    try:
        from ...llm.catalog import list_models

        labels = {}
        for m in list_models():
            notes = [m.speed_note] if m.speed_note else []
            if on_this_computer(m) == "missing":
                notes.append("not downloaded")
            labels[m.name] = f"{m.name} ({', '.join(notes)})" if notes else m.name
        return labels
    except Exception:  # noqa: BLE001 - a broken catalog must not break the settings screen
        return {}


def model_note(choice: object) -> str:
    """What the settings say under the model menu about the chosen catalog model ("" for others)."""
    try:
        from ...llm.catalog import embedded_entry, get_model

        entry = embedded_entry() if choice == EMBEDDED else get_model(str(choice))
    except Exception:  # noqa: BLE001 - a path, or a broken catalog: nothing to say
        return ""
    size = f"{entry.size / 1e9:.1f} GB" if entry.size >= 1e9 else f"{entry.size / 1e6:.0f} MB"
    state = on_this_computer(entry)
    if state == "present":
        return f"{entry.name} is on this computer."
    if state == "parts":
        return f"{entry.name} is installed; it is put together ({size}) at the first question."
    return (
        f"{entry.name} is not downloaded yet ({size}). Run `refind models pull {entry.name}` in a "
        "terminal, then ask: until then questions fail with the same advice."
    )


class SettingsPane(VerticalScroll):
    """Edits a copy of the settings; Save (or Ctrl+S) posts `SettingsSaved` with what changed."""

    BINDINGS = [Binding("ctrl+s", "save", "Save settings", id="settings.save")]
    can_focus = False  # Tab goes from field to field; the pane scrolls to the focused one

    @dataclass
    class SettingsSaved(Message):
        """The user saved the settings form."""

        changes: dict = field(default_factory=dict)

    def __init__(self, settings: Settings, watching: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.watching = watching
        """The folder this run watches without it being saved (`refind tui --folder`), if any."""
        self.labels = catalog_labels()
        self.names = list(self.labels)

    def compose(self) -> ComposeResult:
        s = self.settings
        model_choice = EMBEDDED if not s.model else (s.model if s.model in self.names else CUSTOM)
        yield Label("Chat folder (watched while the app runs)", classes="field-label")
        yield Input(s.chat_folder, placeholder=self.folder_hint(), id="set-folder")
        yield Label("Answering mode", classes="field-label")
        yield Select(
            [(m, m) for m in UI_MODES],
            value=s.mode if s.mode in UI_MODES else "refind",
            allow_blank=False,
            id="set-mode",
        )
        yield Label("Back end", classes="field-label")
        yield Select(
            [(f"{name} — {what}", name) for name, what in BACKENDS.items()],
            value=s.backend if s.backend in BACKENDS else "llama",
            allow_blank=False,
            id="set-backend",
        )
        with Horizontal(classes="group -llama"):
            yield Label("Local model", classes="field-label")
            yield Select(
                [(EMBEDDED, EMBEDDED)] + [(self.labels[n], n) for n in self.names] + [(CUSTOM, CUSTOM)],
                value=model_choice,
                allow_blank=False,
                id="set-model",
            )
            yield Static("", id="set-model-note", classes="hint")
            yield Input(
                s.model if model_choice == CUSTOM else "",
                placeholder="/path/to/model.gguf",
                id="set-model-path",
            )
        with Horizontal(classes="group -openai"):
            yield Label("Server base URL", classes="field-label")
            yield Input(
                s.openai_base_url,
                placeholder="empty = api.openai.com, or http://localhost:8080/v1",
                id="set-base-url",
            )
            yield Label("Model name", classes="field-label")
            yield Input(s.openai_model, id="set-openai-model")
            yield Label("Requests at a time (1 = one by one)", classes="field-label")
            yield Input(str(s.openai_parallel), type="integer", id="set-openai-parallel")
            yield Label("API key", classes="field-label")
            yield Input(
                "",
                password=True,
                id="set-api-key",
                placeholder="•••••••• saved; type to replace"
                if s.openai_api_key
                else "not set (or set OPENAI_API_KEY)",
            )
        yield Static("", id="settings-error")
        with Horizontal(classes="buttons"):
            yield Button("Save", id="settings-save", variant="primary")
            yield Button("Forget the API key", id="settings-clear-key")

    def on_mount(self) -> None:
        self._show_backend(self.query_one("#set-backend", Select).value)
        self._show_model(self.query_one("#set-model", Select).value)

    @on(Select.Changed, "#set-backend")
    def backend_changed(self, event: Select.Changed) -> None:
        self._show_backend(event.value)

    @on(Select.Changed, "#set-model")
    def model_changed(self, event: Select.Changed) -> None:
        self._show_model(event.value)

    def _show_backend(self, value: object) -> None:
        self.set_class(value == "openai", "-openai")

    def _show_model(self, value: object) -> None:
        self.set_class(value == CUSTOM, "-custom-model")
        note = model_note(value)
        self.query_one("#set-model-note", Static).update(note)
        self.set_class("not downloaded" in note, "-model-missing")

    def folder_hint(self) -> str:
        """The folder box's placeholder: clearly not a value (the recorded sources, when those are used)."""
        n = len(self.settings.sources)
        if self.watching:
            return f"not saved — this run watches {printable(self.watching, one_line=True)} (--folder)"
        if n:
            return f"not set — indexing {n} recorded source{'s' if n != 1 else ''} (`refind sources`)"
        return "not set — type a folder, e.g. ~/chat-exports"

    def refuse(self, why: str) -> None:
        """Show why the form cannot be saved and mark it invalid; None, for `collect` to return."""
        self.query_one("#settings-error", Static).update(why)
        self.set_class(True, "-invalid")

    def collect(self) -> dict | None:
        """The form's values as settings changes, or None (with the reason shown) when invalid."""
        error = self.query_one("#settings-error", Static)
        folder = self.query_one("#set-folder", Input).value.strip()
        if folder and not Path(folder).expanduser().is_dir():
            return self.refuse(f"{folder} is not a folder; type the folder that holds your chat exports.")
        choice = self.query_one("#set-model", Select).value
        model = "" if choice == EMBEDDED else str(choice)
        if choice == CUSTOM:
            model = self.query_one("#set-model-path", Input).value.strip()
            if not model.endswith(".gguf") or not Path(model).expanduser().is_file():
                return self.refuse("The model path must be an existing .gguf file (or pick a catalog model).")
        backend = str(self.query_one("#set-backend", Select).value)
        parallel = self.query_one("#set-openai-parallel", Input).value.strip()
        if backend == "openai" and not (
            parallel.isascii() and parallel.isdigit() and 1 <= int(parallel) <= MAX_PARALLEL
        ):
            return self.refuse(f"Requests at a time: a whole number from 1 to {MAX_PARALLEL}.")
        self.set_class(False, "-invalid")
        error.update("")
        changes = {
            "chat_folder": str(Path(folder).expanduser().resolve()) if folder else "",
            "mode": str(self.query_one("#set-mode", Select).value),
            "backend": backend,
            "model": model,
            "openai_base_url": self.query_one("#set-base-url", Input).value.strip(),
            "openai_model": self.query_one("#set-openai-model", Input).value.strip() or "gpt-4o-mini",
        }
        if backend == "openai":  # hidden with the other back end: left as it is
            changes["openai_parallel"] = int(parallel)
        key = self.query_one("#set-api-key", Input).value.strip()
        if key:
            changes["openai_api_key"] = key
        return changes

    @on(Button.Pressed, "#settings-save")
    def save(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        """Check the form and post what changed."""
        changes = self.collect()
        if changes is not None:
            self.query_one("#set-api-key", Input).value = ""
            self.post_message(self.SettingsSaved(changes))

    @on(Button.Pressed, "#settings-clear-key")
    def clear_key(self, event: Button.Pressed) -> None:
        event.stop()
        self.query_one("#set-api-key", Input).placeholder = "not set (or set OPENAI_API_KEY)"
        self.post_message(self.SettingsSaved({"openai_api_key": ""}))
