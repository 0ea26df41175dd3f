"""Verified model files: sha256 digests and the `<file>.verified` markers that spare re-hashing on each start.

Used by the model catalog (`catalog.py`), assembly from PyPI parts (`assembly.py`) and downloads
(`download.py`). A marker holds the file's digest, size and mtime; it stops matching when the file changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from ..errors import BackendError

__all__ = ["CHUNK", "Progress", "check_digest", "read_marker", "sha256_file", "write_marker"]

Progress = Callable[[int, int], None]
"""progress(done_bytes, total_bytes); total is 0 when unknown."""

CHUNK = 1 << 20
"""Bytes read or written at a time."""


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


def write_marker(path: Path, digest: str, verified: bool) -> None:
    """Record `digest` (and whether it was checked against a pinned one) beside `path`."""
    st = path.stat()
    _marker(path).write_text(
        json.dumps({"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "verified": verified}),
        encoding="utf-8",
    )


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


def check_digest(digest: str, entry_sha: str, what: str) -> None:
    """Raise BackendError when a pinned digest `entry_sha` is given and `digest` differs."""
    if entry_sha and digest != entry_sha:
        raise BackendError(
            f"{what} failed verification: sha256 {digest}, expected {entry_sha}. "
            "Nothing was kept; reinstall the parts or run the pull again (check --url)."
        )
