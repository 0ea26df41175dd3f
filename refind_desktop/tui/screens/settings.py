"""SettingsPane: back end, model, OpenAI-compatible server and key (never shown), mode and chat folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, Label, Select, Static

from ...config import Settings
from ...llm.factory import BACKENDS
from .ask import UI_MODES

EMBEDDED = "(embedded default)"
CUSTOM = "(a GGUF file path…)"


def catalog_names() -> list[str]:
    """Model names of the packaged catalog (empty when it cannot be read)."""
    return list(catalog_labels())


def catalog_labels() -> dict[str, str]:
    """Model name → menu label with its measured seconds per question and accuracy, when known."""
    try:
        from ...llm.catalog import list_models

        return {m.name: f"{m.name} ({m.speed_note})" if m.speed_note else m.name for m in list_models()}
    except Exception:  # noqa: BLE001 - a broken catalog must not break the settings screen
        return {}


class SettingsPane(VerticalScroll):
    """Edits a copy of the settings; Save posts `SettingsSaved` with what changed."""

    @dataclass
    class SettingsSaved(Message):
        """The user saved the settings form."""

        changes: dict = field(default_factory=dict)

    def __init__(self, settings: Settings, **kwargs) -> None:
        super().__init__(**kwargs)
        self.settings = settings
        self.labels = catalog_labels()
        self.names = list(self.labels)

    def compose(self) -> ComposeResult:
        s = self.settings
        model_choice = EMBEDDED if not s.model else (s.model if s.model in self.names else CUSTOM)
        yield Label("Chat folder (watched while the app runs)", classes="field-label")
        yield Input(s.chat_folder, placeholder="~/chat-exports", id="set-folder")
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

    def collect(self) -> dict | None:
        """The form's values as settings changes, or None (with the reason shown) when invalid."""
        error = self.query_one("#settings-error", Static)
        folder = self.query_one("#set-folder", Input).value.strip()
        if folder and not Path(folder).expanduser().is_dir():
            error.update(f"{folder} is not a folder; type the folder that holds your chat exports.")
            self.set_class(True, "-invalid")
            return None
        choice = self.query_one("#set-model", Select).value
        model = "" if choice == EMBEDDED else str(choice)
        if choice == CUSTOM:
            model = self.query_one("#set-model-path", Input).value.strip()
            if not model.endswith(".gguf") or not Path(model).expanduser().is_file():
                error.update("The model path must be an existing .gguf file (or pick a catalog model).")
                self.set_class(True, "-invalid")
                return None
        self.set_class(False, "-invalid")
        error.update("")
        changes = {
            "chat_folder": str(Path(folder).expanduser().resolve()) if folder else "",
            "mode": str(self.query_one("#set-mode", Select).value),
            "backend": str(self.query_one("#set-backend", Select).value),
            "model": model,
            "openai_base_url": self.query_one("#set-base-url", Input).value.strip(),
            "openai_model": self.query_one("#set-openai-model", Input).value.strip() or "gpt-4o-mini",
        }
        key = self.query_one("#set-api-key", Input).value.strip()
        if key:
            changes["openai_api_key"] = key
        return changes

    @on(Button.Pressed, "#settings-save")
    def save(self, event: Button.Pressed) -> None:
        event.stop()
        changes = self.collect()
        if changes is not None:
            self.query_one("#set-api-key", Input).value = ""
            self.post_message(self.SettingsSaved(changes))

    @on(Button.Pressed, "#settings-clear-key")
    def clear_key(self, event: Button.Pressed) -> None:
        event.stop()
        self.query_one("#set-api-key", Input).placeholder = "not set (or set OPENAI_API_KEY)"
        self.post_message(self.SettingsSaved({"openai_api_key": ""}))
