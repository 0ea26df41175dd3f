"""Every on-disk location the program uses, from platformdirs or moved by REFIND_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "refind-desktop"


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


def config_dir() -> Path:
    """Folder of config.toml."""
    home = home_override()
    return _private_dir(home / "config" if home else Path(platformdirs.user_config_dir(APP)))


def config_file() -> Path:
    """The TOML config file (REFIND_CONFIG_FILE overrides)."""
    value = os.environ.get("REFIND_CONFIG_FILE")
    return Path(value).expanduser() if value else config_dir() / "config.toml"


def data_dir() -> Path:
    """Folder holding the index, catalog, vectors and models."""
    home = home_override()
    return _private_dir(home / "data" if home else Path(platformdirs.user_data_dir(APP)))


def index_dir() -> Path:
    """The tantivy index folder."""
    return _private_dir(data_dir() / "index")


def catalog_file() -> Path:
    """SQLite bookkeeping of files and sessions."""
    return data_dir() / "catalog.sqlite"


def models_dir() -> Path:
    """Assembled or downloaded GGUF models."""
    return _private_dir(data_dir() / "models")


def log_dir() -> Path:
    """Logs of the watcher and the app."""
    home = home_override()
    return _private_dir(home / "logs" if home else Path(platformdirs.user_log_dir(APP)))
