"""Resumable, verified model downloads (the only network code of the model catalog; `refind models pull`)."""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

from ..errors import BackendError
from .model_files import CHUNK, Progress, check_digest, sha256_file, write_marker

__all__ = ["download"]


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
    check_digest(digest, sha256, f"download of {dest.name}")
    os.replace(part, dest)
    write_marker(dest, digest, verified=bool(sha256))
    return digest
