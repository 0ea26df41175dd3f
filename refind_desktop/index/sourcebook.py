"""SourceBook: the folders and files the user ingested and forgot, kept beside the catalog.

The catalog knows every ingested file, but a damaged or deleted catalog must not lose the list
of where the chats live, nor which paths the user forgot. This small JSON file (replaced
atomically, 0600) is that second copy: `refind reindex --from-sources` reads it when the
catalog cannot be read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

SOURCES_NAME = "sources.json"


class SourceBook:
    """{"roots": [paths given to ingest], "forgotten": [paths given to forget]}."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, list[str]]:
        """The recorded roots and forgotten paths (empty when never written or unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        return {
            k: sorted({str(p) for p in data.get(k, []) if isinstance(p, str)}) for k in ("roots", "forgotten")
        }

    def roots(self) -> list[str]:
        """Folders and files the user ingested."""
        return self.read()["roots"]

    def forgotten(self) -> list[str]:
        """Paths the user forgot (and did not unforget)."""
        return self.read()["forgotten"]

    def add_roots(self, paths: list[str]) -> None:
        """Remember ingest roots (no write when nothing is new)."""
        self._change("roots", add=paths)

    def forget(self, path: str) -> None:
        """Remember a forgotten path."""
        self._change("forgotten", add=[path])

    def unforget(self, path: str) -> None:
        """Drop a forgotten path."""
        self._change("forgotten", remove=[path])

    def _change(self, key: str, add: list[str] = (), remove: list[str] = ()) -> None:
        data = self.read()
        new = sorted((set(data[key]) | set(add)) - set(remove))
        if new == data[key]:
            return
        data[key] = new
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise


REBUILD_NAME = "rebuild.pending"


class RebuildMarker:
    """`rebuild.pending`: written (fsynced) before a reindex wipes anything, removed when it is done.

    It lists the paths the rebuild re-reads. A writer that finds it (a killed reindex) empties the
    index and catalog and re-reads those paths before anything else, so a half-done rebuild is
    never taken for a complete index.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def pending(self) -> list[str] | None:
        """The paths of an unfinished rebuild, or None."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return []
        paths = data.get("paths", []) if isinstance(data, dict) else []
        return [str(p) for p in paths if isinstance(p, str)]

    def start(self, paths: list[str]) -> None:
        """Record the rebuild durably before the wipe."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"paths": paths}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def done(self) -> None:
        """The rebuild finished."""
        self.path.unlink(missing_ok=True)
