"""Every on-disk location the program uses, from platformdirs or moved by REFIND_HOME."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP = "refind-desktop"
MODELS_ENV = "REFIND_MODELS_DIR"
"""Moves the models folder alone: `refind demo` points it at the user's own models folder, so the demo
home and real use share one assembled copy of each model."""


def home_override() -> Path | None:
    """REFIND_HOME moves config, data, index and logs under one folder (created 0700 when missing)."""
    value = os.environ.get("REFIND_HOME")
    if not value:
        return None
    home = Path(value).expanduser()
    if not home.exists():
        try:
            home.mkdir(mode=0o700, parents=True, exist_ok=True)
            home.chmod(0o700)  # mkdir's mode is filtered by the umask
        except OSError:
            pass  # reported by whatever needs to write there
    return home


def _private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    try:
        path.chmod(0o700)
    except OSError:
        pass
    return path


@dataclass(frozen=True)
class Paths:
    """Where one refind home keeps its files: `default_paths()` for the user's, `Paths.under(folder)`
    for another one (tests and the eval harness pass it to `build_services(paths=...)`)."""

    config_dir: Path
    """Folder of config.toml."""
    config_file: Path
    """The TOML config file."""
    data_dir: Path
    """Folder holding the index, catalog, vectors and models."""
    log_dir: Path
    """Logs of the watcher and the app."""

    @classmethod
    def under(cls, home: str | os.PathLike[str], config_file: Path | None = None) -> Paths:
        """The layout of one folder (what REFIND_HOME selects): config/, data/, logs/."""
        home = Path(home).expanduser()
        return cls(
            home / "config", config_file or home / "config" / "config.toml", home / "data", home / "logs"
        )

    @property
    def index_dir(self) -> Path:
        """The tantivy index folder."""
        return self.data_dir / "index"

    @property
    def catalog_file(self) -> Path:
        """SQLite bookkeeping of files and sessions."""
        return self.data_dir / "catalog.sqlite"

    @property
    def models_dir(self) -> Path:
        """Assembled or downloaded GGUF models."""
        return self.data_dir / "models"

    def make_data_dirs(self) -> Paths:
        """Create the data and index folders, readable by the user only; returns self."""
        _private_dir(self.data_dir)
        _private_dir(self.index_dir)
        return self


def default_paths() -> Paths:
    """The user's locations: platformdirs, or one folder when REFIND_HOME is set; REFIND_CONFIG_FILE
    moves the config file alone."""
    value = os.environ.get("REFIND_CONFIG_FILE")
    config_file = Path(value).expanduser() if value else None
    home = home_override()
    if home:
        return Paths.under(home, config_file)
    config = Path(platformdirs.user_config_dir(APP))
    return Paths(
        config,
        config_file or config / "config.toml",
        Path(platformdirs.user_data_dir(APP)),
        Path(platformdirs.user_log_dir(APP)),
    )


def config_dir() -> Path:
    """Folder of config.toml."""
    return _private_dir(default_paths().config_dir)


def config_file() -> Path:
    """The TOML config file (REFIND_CONFIG_FILE overrides)."""
    value = os.environ.get("REFIND_CONFIG_FILE")
    return Path(value).expanduser() if value else config_dir() / "config.toml"


def data_dir() -> Path:
    """Folder holding the index, catalog, vectors and models."""
    return _private_dir(default_paths().data_dir)


def index_dir() -> Path:
    """The tantivy index folder."""
    return _private_dir(data_dir() / "index")


def catalog_file() -> Path:
    """SQLite bookkeeping of files and sessions."""
    return data_dir() / "catalog.sqlite"


def models_dir() -> Path:
    """Assembled or downloaded GGUF models (REFIND_MODELS_DIR overrides)."""
    value = os.environ.get(MODELS_ENV)
    return _private_dir(Path(value).expanduser() if value else data_dir() / "models")


def log_dir() -> Path:
    """Logs of the watcher and the app."""
    return _private_dir(default_paths().log_dir)
