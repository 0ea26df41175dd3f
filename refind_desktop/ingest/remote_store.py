"""RemoteStore: the remote sources a person added and each host's last pull, in one small JSON file.

The file is `<data>/remotes.json`, written whole to a temporary file and renamed over the old one
(mode 0600), so a crash never leaves half a list. It holds only `ssh://` URLs and what the last pull
of each host did; never a password, a key or any remote file's contents.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import NotFoundError
from .remote_spec import RemoteSpec, RemoteSpecError, parse_remote

STORE_NAME = "remotes.json"
"""File under the data folder that lists the remote sources and each host's last pull."""


@dataclass(frozen=True)
class HostStatus:
    """What the last pull of one host did: ok or why not, when, how much, how long, and how."""

    host: str
    """The host key, `USER@HOST[:PORT]`."""
    ok: bool
    when: str
    """ISO time (UTC) the pull ended."""
    error: str | None = None
    """A short human reason when the pull failed (never a remote file's contents)."""
    files: int = 0
    """Files copied or updated by that pull."""
    bytes: int = 0
    """Bytes that crossed the network for those files."""
    seconds: float = 0.0
    method: str = ""
    """`rsync` or `sftp` (the fallback when the remote has no rsync); empty when no connection was made."""

    def to_json(self) -> dict:
        """Plain dict for `--json` output and the store file."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> HostStatus:
        """Read back what `to_json` wrote (unknown keys ignored)."""
        return cls(
            host=str(data.get("host", "")),
            ok=bool(data.get("ok")),
            when=str(data.get("when", "")),
            error=data.get("error") if isinstance(data.get("error"), str) else None,
            files=int(data.get("files") or 0),
            bytes=int(data.get("bytes") or 0),
            seconds=float(data.get("seconds") or 0.0),
            method=str(data.get("method") or ""),
        )


def now_iso() -> str:
    """The current time in UTC as ISO text, seconds precision."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class RemoteStore:
    """The remote sources (`ssh://` URLs) of one data folder, and each host's last pull status."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / STORE_NAME

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"sources": [], "status": {}}
        except (OSError, ValueError) as exc:
            raise NotFoundError(
                f"the list of remote sources at {self.path} cannot be read ({type(exc).__name__}); "
                "fix or delete it and add the remote sources again"
            ) from None
        if not isinstance(data, dict):
            data = {}
        sources = [s for s in data.get("sources", []) if isinstance(s, str)]
        status = {k: v for k, v in (data.get("status") or {}).items() if isinstance(v, dict)}
        return {"sources": sources, "status": status}

    def _write(self, data: dict) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{STORE_NAME}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def list(self) -> list[RemoteSpec]:
        """The remote sources in the order they were added (entries that no longer parse are left out)."""
        out = []
        for url in self._read()["sources"]:
            try:
                out.append(parse_remote(url))
            except RemoteSpecError:
                continue
        return out

    def add(self, spec: RemoteSpec) -> bool:
        """Record a remote source; False when it was recorded already."""
        data = self._read()
        if spec.url in data["sources"]:
            return False
        data["sources"].append(spec.url)
        self._write(data)
        return True

    def remove(self, key_or_url: str) -> list[RemoteSpec]:
        """Forget one source (its `ssh://` URL) or every source of a host (its `USER@HOST[:PORT]`).

        Returns what was removed (NotFoundError when nothing matched). The mirror and the turns
        already indexed stay: `refind forget` is the one way to delete them."""
        data = self._read()
        wanted = key_or_url.strip()
        if wanted.startswith("ssh://"):
            wanted = parse_remote(wanted).url
        gone, kept = [], []
        for url in data["sources"]:
            try:
                spec = parse_remote(url)
            except RemoteSpecError:
                kept.append(url)
                continue
            (gone if wanted in (spec.url, spec.host_key) else kept).append(url)
        if not gone:
            raise NotFoundError(f"{key_or_url} is not a remote source; see `refind sources list`")
        data["sources"] = kept
        hosts = {parse_remote(u).host_key for u in kept}
        data["status"] = {k: v for k, v in data["status"].items() if k in hosts}
        self._write(data)
        return [parse_remote(u) for u in gone]

    def status(self) -> dict[str, HostStatus]:
        """The last pull of each host that has been pulled, by host key."""
        return {k: HostStatus.from_json(v) for k, v in self._read()["status"].items()}

    def set_status(self, status: HostStatus) -> None:
        """Record the outcome of a host's pull (replaces its previous one)."""
        data = self._read()
        data["status"][status.host] = status.to_json()
        self._write(data)
