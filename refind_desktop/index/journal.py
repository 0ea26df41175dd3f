"""WriteJournal: sources whose index commit may be ahead of the catalog, so a crashed write can be redone.

The index (tantivy) and the catalog (SQLite) cannot commit atomically together. Before an index
commit, the writer records every source it covers here (one fsync for a whole batch of sources);
after the catalog commit it removes them. A source still listed at the next start was interrupted between the two commits and
is re-applied from scratch (ingest) or finished (forget). Only the holder of the writer lock
touches the journal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

JOURNAL_NAME = "writer.journal"
KINDS = ("ingest", "forget", "ignore")  # ignore: a forgotten path to put on the ignore list


class WriteJournal:
    """A tiny JSON file {"ingest": [paths], "forget": [paths]}, replaced atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def pending(self) -> dict[str, list[str]]:
        """Paths per kind; empty lists when nothing was interrupted."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        return {k: [str(p) for p in data.get(k, [])] for k in KINDS}

    def add(self, kind: str, paths: list[str]) -> None:
        """Record paths durably before the index commit that touches them."""
        data = self.pending()
        new = [p for p in paths if p not in data[kind]]
        if new:
            data[kind] += new
            self._write(data, sync=True)

    def done(self, kind: str, paths: list[str]) -> None:
        """Drop paths after the catalog commit (losing this write only causes a harmless redo)."""
        data = self.pending()
        keep = [p for p in data[kind] if p not in set(paths)]
        if keep != data[kind]:
            data[kind] = keep
            self._write(data, sync=False)

    def _write(self, data: dict[str, list[str]], sync: bool) -> None:
        if not any(data.values()):
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        if sync:
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
