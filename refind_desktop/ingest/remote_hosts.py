"""Per-host summaries of the remote sources: what each machine added to the archive and how its last pull went.

The core of the host lines of `refind stats`, `refind sources list`, the MCP `stats` tool and the TUI
status line. A host counts when a remote source names it or its mirror holds files (a host whose
sources were removed keeps its mirror and its turns until `refind forget`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..index.catalog import Catalog
from .remote_spec import MIRRORS, host_dir, host_of
from .remote_store import HostStatus, RemoteStore


@dataclass(frozen=True)
class HostSummary:
    """One machine: its sources, what the archive holds from it, and its last pull."""

    host: str
    """`USER@HOST[:PORT]`."""
    sources: tuple[str, ...] = ()
    """Its remote sources' `ssh://` URLs (none: removed, its turns kept)."""
    files: int = 0
    sessions: int = 0
    turns: int = 0
    last_pull: HostStatus | None = None

    @property
    def state(self) -> str:
        """`ok`, `failed` (the last pull did not work), `not pulled yet`, or `removed` (no source left)."""
        if not self.sources:
            return "removed"
        if self.last_pull is None:
            return "not pulled yet"
        return "ok" if self.last_pull.ok else "failed"

    def to_json(self) -> dict:
        """Plain dict for `--json` and MCP."""
        return {
            "host": self.host,
            "state": self.state,
            "sources": list(self.sources),
            "files": self.files,
            "sessions": self.sessions,
            "turns": self.turns,
            "last_pull": self.last_pull.to_json() if self.last_pull else None,
        }


def host_summaries(data_dir: Path, catalog: Catalog) -> list[HostSummary]:
    """Every machine with a remote source or a mirror, sorted by host key."""
    data = Path(data_dir).resolve()
    store = RemoteStore(data)
    sources: dict[str, list[str]] = {}
    for spec in store.list():
        sources.setdefault(spec.host_key, []).append(spec.url)
    hosts = set(sources)
    root = data / MIRRORS
    if root.is_dir():
        hosts |= {h for h in (host_of(p / "x", data) for p in root.iterdir() if p.is_dir()) if h}
    status = store.status()
    out = []
    for host in sorted(hosts):
        files, sessions, turns = catalog.totals_under(str(host_dir(data, host)))
        out.append(HostSummary(host, tuple(sources.get(host, ())), files, sessions, turns, status.get(host)))
    return out
