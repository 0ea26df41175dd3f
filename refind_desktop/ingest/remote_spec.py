"""Remote sources as data: `ssh://USER@HOST[:PORT]/PATH` parsed, and where each host's mirror lives.

A remote folder is pulled into a local mirror under the data folder,
`<data>/remotes/<USER@HOST[_PORT]>/<path as given, `~` kept as a folder named `~`>`, and ingested
from there like any local folder. A session's machine is the host whose mirror holds its source
file (`host_of`), so nothing in the index needs to store it twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from ..errors import RefindError

MIRRORS = "remotes"
"""Folder under the data folder that holds one mirror folder per host."""
_HOST = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9-]{1,63})*$|^\[[0-9A-Fa-f:.]+\]$"
)
_USER = re.compile(r"^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$")


class RemoteSpecError(RefindError):
    """A remote source string that is not `ssh://USER@HOST[:PORT]/PATH`."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "Not a remote source")


@dataclass(frozen=True)
class RemoteSpec:
    """One remote folder: who, where, which port (None: ssh's own default or ~/.ssh/config), what path."""

    user: str | None
    host: str
    port: int | None
    path: str
    """Absolute (`/home/u/.claude/projects`) or home-relative (`~/.claude/projects`), never with `..`."""

    @property
    def host_key(self) -> str:
        """`USER@HOST[:PORT]`, the name a person uses for the machine (shown and matched by `--host`)."""
        who = f"{self.user}@{self.host}" if self.user else self.host
        return f"{who}:{self.port}" if self.port else who

    @property
    def url(self) -> str:
        """The canonical `ssh://` form."""
        path = self.path if self.path.startswith("/") else "/" + self.path
        return f"ssh://{self.host_key}{path}"

    def mirror_dir(self, data_dir: Path) -> Path:
        """The local folder this remote folder is mirrored into."""
        parts = [p for p in PurePosixPath(self.path).parts if p != "/"]
        return host_dir(data_dir, self.host_key).joinpath(*parts)


def host_dir(data_dir: Path, host_key: str) -> Path:
    """The mirror folder of one host (`:` of a port becomes `_`, a name safe on every file system)."""
    return Path(data_dir) / MIRRORS / host_key.replace(":", "_")


def parse_remote(text: str) -> RemoteSpec:
    """`ssh://USER@HOST[:PORT]/PATH` (PATH may start with `~/`) as a RemoteSpec, or RemoteSpecError."""
    if not text.startswith("ssh://"):
        raise RemoteSpecError(f"{text!r} does not start with ssh:// (write ssh://USER@HOST[:PORT]/PATH)")
    parts = urlsplit(text)
    if parts.query or parts.fragment:
        raise RemoteSpecError("a remote source has no ?query or #fragment")
    user = unquote(parts.username) if parts.username else None
    if parts.password is not None:
        raise RemoteSpecError("refind never stores a password: use an SSH key or agent, not USER:PASSWORD@")
    host = parts.hostname or ""
    if parts.netloc.rsplit("@", 1)[-1].startswith("["):
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError as e:
        raise RemoteSpecError(f"bad port in {text!r}: {e}") from None
    if not host or not _HOST.match(host) or host.startswith("-"):
        raise RemoteSpecError(f"bad host name in {text!r}")
    if user is not None and not _USER.match(user):
        raise RemoteSpecError(f"bad user name in {text!r}")
    path = unquote(parts.path)
    if path.startswith("/~"):
        path = path[1:]
    if not path or path == "/":
        raise RemoteSpecError(f"{text!r} names no folder: add its path, e.g. ssh://me@box/~/.claude/projects")
    if any(p == ".." for p in PurePosixPath(path).parts) or "\x00" in path or "\n" in path:
        raise RemoteSpecError(f"{text!r}: a remote path may not contain '..' or control characters")
    return RemoteSpec(user, host, port, path.rstrip("/") or "/")


def host_of(source: str | Path, data_dir: Path) -> str | None:
    """The host key whose mirror holds `source` (a file refind ingested), or None for a local file."""
    root = Path(data_dir) / MIRRORS
    try:
        rel = Path(source).relative_to(root)
    except ValueError:
        return None
    if not rel.parts:
        return None
    name = rel.parts[0]
    who, _, port = name.rpartition("_")
    return f"{who}:{port}" if who and port.isdigit() else name
