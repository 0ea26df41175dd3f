"""Assembly of a model from its PyPI part packages: find the parts, concatenate, verify, rename atomically."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import BackendError, MissingDependencyError
from .model_files import CHUNK, Progress, check_digest, write_marker

__all__ = ["assemble", "part_files"]


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
        check_digest(h.hexdigest(), sha256, f"assembled {dest.name}")
        os.replace(tmp, dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    write_marker(dest, h.hexdigest(), verified=bool(sha256))
    return dest
