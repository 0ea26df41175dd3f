"""The app's settings: apply a change at once, and save it through `load_settings` (the config file's own
layer, validated) when asked (`SettingsEditing`, mixed into `RefindApp`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import Settings, load_settings, save_settings
from ..errors import RefindError
from .model_cache import backend_key
from .screens.modals import ErrorModal

if TYPE_CHECKING:  # the mixin sees the App it is mixed into
    from textual.app import App

    from ..services import Services

    _AppPart = App[None]
else:
    _AppPart = object

__all__ = ["SettingsEditing"]


class SettingsEditing(_AppPart):
    """RefindApp's settings part: `update_settings(persist=..., **changes)`."""

    services: Services
    settings: Settings
    folder: str | None
    folder_override: str | None
    # and open_folder(), from FolderIndexing

    def update_settings(self, persist: bool = False, **changes: object) -> Settings:
        """Apply setting changes now; `persist` also writes them to config.toml."""
        old = self.settings
        self.settings = self.services.settings = old.replace(**changes)
        if persist:
            path = self.services.paths.config_file
            try:  # the file's own layer only: environment and --folder values are not written back
                save_settings(load_settings(path, environment=False).replace(**changes), path)
            except RefindError as exc:
                self.push_screen(
                    ErrorModal("settings not saved", f"{exc.message}\n\nThe change applies until you quit.")
                )
            else:
                self.notify("settings saved", timeout=3)
        folder = changes.get("chat_folder")
        if folder and str(folder) != (self.folder or ""):
            self.folder_override = None
            self.open_folder(str(folder))
        if backend_key(self.settings) != backend_key(old):
            self.model_unloaded()  # type: ignore[attr-defined]  # ModelLoading, beside this mixin
        return self.settings
