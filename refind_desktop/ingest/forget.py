"""Forgetting: `forget` (physical purge plus the ignore list), `unforget`, and the repair of a killed forget.

Mixed into `Ingestor` (it uses the ingestor's index, catalog, source book, lock and listeners).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..index.catalog import FileRecord


def under(path: str, root: str) -> bool:
    """Whether `path` is `root` or lies inside it."""
    return path == root or path.startswith(root + "/")


class Forgetting:
    """The forget half of the ingestor."""

    def forget(self, target: Path) -> int:
        """Remove every session of a source path (or of every source under a folder) from disk.

        Returns the number of turns removed (0 for an existing path that is not indexed: it is
        still put on the ignore list), or -1 when `target` neither exists nor was ever ingested.
        The text is physically deleted (see `TurnIndex.purge`), not only hidden from results.
        The path goes on the ignore list (`refind forget --list`), so no later ingest, watcher
        or app brings it back until `unforget`. Copies of its sessions that other files hold
        (kept once while this file's copy was indexed), and turns that resumed sessions in other
        files replay from it, are indexed from those files.
        """
        with self._lock, self.index.write_lock():
            key = str(Path(target).expanduser().resolve())
            pending = self.index.journal.pending()
            self._sync_ignored(pending["ignore"])
            revive: list[str] = []
            if pending["forget"]:
                revive += self._forget_paths(pending["forget"])[1]
            known = [f.path for f in self.catalog.files()] + pending["ingest"]
            files = sorted({p for p in known if under(p, key)})
            if not files and not Path(key).exists() and self.catalog.ignored_root(key) is None:
                return -1
            self.index.journal.add("ignore", [key])  # a killed forget still ends on the ignore list
            self.book.forget(key)
            self.catalog.ignore(key)
            removed, more = self._forget_paths(files) if files else (0, [])
            if not files:
                self.catalog.commit()
            self.index.journal.done("ignore", [key])
            revive += more
        revive = [p for p in revive if Path(p).exists() and self.catalog.ignored_root(p) is None]
        if revive:
            self.ingest([Path(p) for p in revive])
        return removed

    def _sync_ignored(self, pending: list[str]) -> None:
        """Put on the ignore list what a killed forget or reindex left only in the journal or source book."""
        missing = [
            p
            for p in sorted(set(pending) | set(self.book.forgotten()))
            if p not in set(self.catalog.ignored())
        ]
        for p in missing:
            self.catalog.ignore(p)
            self.book.forget(p)
        if missing:
            self.catalog.commit()
        if pending:
            self.index.journal.done("ignore", pending)

    def unforget(self, target: Path) -> bool:
        """Take a path off the ignore list (its files are indexed at the next ingest); False if it was not on it."""
        with self._lock, self.index.write_lock():
            key = str(Path(target).expanduser().resolve())
            listed = key in self.book.forgotten()
            self.book.unforget(key)  # first: a kill in between leaves the path forgotten, never half
            done = self.catalog.unignore(key) or listed
            self.catalog.commit()
            return done

    def _forget_paths(self, paths: list[str]) -> tuple[int, list[str]]:
        """Purge sources; returns (turns removed, other files holding copies of their sessions)."""
        recs = [r for f in paths for r in self.catalog.sessions_of_source(f)]
        self.index.journal.add("forget", paths)  # finished by the next writer if we are killed
        sources: dict[int, str] = {}

        def source_of(sord: int) -> str:
            if sord not in sources:
                rec = self.catalog.get_session_by_ord(sord)
                sources[sord] = rec.source if rec else ""
            return sources[sord]

        self.index.purge([r.sid for r in recs], paths, source_of)
        sids = [r.sid for r in recs]
        # files holding copies of these sessions, or replays of their turns (a resumed session)
        held = set(self.catalog.dupe_sources(sids)) | set(self.catalog.replay_sources(sids))
        revive = sorted(p for p in held if p not in set(paths))
        for p in revive:  # read again: their copies of the forgotten sessions become the indexed ones
            rec = self.catalog.get_file(p)
            if rec is not None:
                self.catalog.put_file(FileRecord(p, rec.format, rec.size, -1, ""))
        self.catalog.drop_dupes(sids)
        for r in recs:
            self.catalog.delete_session(r.sid)
            self._removed(r.ord)
        for f in paths:
            self.catalog.delete_file(f)
            self.catalog.clear_skipped(f)
            self.catalog.clear_note(f)
            self.catalog.drop_dupes(source=f)
            self.catalog.drop_transcripts(f)
        self.catalog.commit()
        self.catalog.checkpoint()
        for trash in self.index.path.parent.glob("trash-*"):  # what a killed reindex left behind
            shutil.rmtree(trash, ignore_errors=True)
        self.index.journal.done("forget", paths)
        self.index.journal.done("ingest", paths)
        return sum(r.n_turns for r in recs), revive
