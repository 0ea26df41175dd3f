"""Which machine a session came from (for results) and which sessions a `--host` filter keeps.

A session pulled from another machine lives in that host's mirror folder under the data folder
(`ingest/remote_spec.py`); its host is read off its source file's path, so nothing in the index
stores it. The rule that names a mirror file's host comes in from services (`host_of`): search does
not import ingest. `Machines` answers for a whole result page from the catalog rows the page already
read (no query per turn), and turns a `--host` value into the session ids to keep or to leave out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..index.catalog import Catalog

LOCAL = "local"
"""The `--host` value that keeps this machine's own sessions (those in no mirror)."""


@dataclass(frozen=True)
class HostFilter:
    """Sessions a `--host` value selects: `sids` kept (or, with `outside`, every session but them)."""

    hosts: tuple[str, ...]
    """The host keys that matched (empty for `local`)."""
    folders: tuple[str, ...]
    """Their mirror folders (for `local`: every mirror folder, whose sessions are left out)."""
    sids: frozenset[str]
    outside: bool = False


def split_host(text: str) -> tuple[str | None, str, str | None]:
    """`USER@HOST[:PORT]` (each part but HOST optional) as (user, host, port); `[v6]` kept whole."""
    user, _, rest = text.strip().rpartition("@")
    port = None
    if rest.startswith("["):
        host, _, tail = rest.partition("]")
        host += "]"
        port = tail[1:] if tail.startswith(":") and tail[1:].isdigit() else None
    else:
        host, colon, tail = rest.rpartition(":")
        if not colon or not tail.isdigit():
            host, port = rest, None
        else:
            port = tail
    return user or None, host, port


def host_matches(key: str, wanted: str) -> bool:
    """Whether host key `key` (`USER@HOST[:PORT]`) is what `wanted` names: the whole key, or the host
    with only the parts it gives (`box` matches `me@box:2222`; `you@box` does not match `me@box`)."""
    k_user, k_host, k_port = split_host(key)
    w_user, w_host, w_port = split_host(wanted)
    if w_host.lower() != k_host.lower():
        return False
    return (w_user is None or w_user == k_user) and (w_port is None or w_port == k_port)


@dataclass(frozen=True)
class Machines:
    """The hosts of one data folder's mirrors: `root` is the folder holding one mirror per host
    (resolved, as source paths are), `host_of` names the host of a path inside it (None outside)."""

    root: Path
    host_of: Callable[[str], str | None]

    def host(self, source: str) -> str:
        """The host key a source file came from, or "" for a file of this machine."""
        return self.host_of(source) or ""

    def mirrors(self) -> dict[str, Path]:
        """host key -> mirror folder, for every host that has a mirror on disk."""
        try:
            folders = sorted(p for p in self.root.iterdir() if p.is_dir())
        except OSError:
            return {}
        out: dict[str, Path] = {}
        for folder in folders:
            key = self.host_of(str(folder / "x"))
            if key:
                out[key] = folder
        return out

    def hosts(self) -> list[str]:
        """Every host key with a mirror, sorted."""
        return sorted(self.mirrors())

    def select(self, catalog: Catalog, wanted: str) -> HostFilter:
        """The sessions `wanted` (a host key, a host name, or `local`) selects; no match keeps none."""
        mirrors = self.mirrors()
        if wanted.strip().lower() == LOCAL:
            folders = tuple(str(p) for p in mirrors.values())
            return HostFilter((), folders, frozenset(catalog.sids_under(list(folders))), outside=True)
        keys = tuple(k for k in mirrors if host_matches(k, wanted))
        folders = tuple(str(mirrors[k]) for k in keys)
        return HostFilter(keys, folders, frozenset(catalog.sids_under(list(folders))))

    def unknown(self, wanted: str) -> str | None:
        """Why `wanted` selects no machine ("no host 'x'; hosts: a, b"), or None when it names one."""
        if not wanted.strip() or wanted.strip().lower() == LOCAL:
            return None
        hosts = self.hosts()
        if any(host_matches(k, wanted) for k in hosts):
            return None
        known = ", ".join([LOCAL, *hosts])
        return f"no host {wanted!r} has pulled sessions; hosts: {known} (add one with `refind sources add`)"
