"""Incremental, idempotent ingest: discover sources, parse them, and apply only what changed."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import tzinfo
from pathlib import Path
from typing import Protocol

from ..errors import describe_failure
from ..index.catalog import Catalog
from ..index.kept import KEPT_NAME, KeptSources
from ..index.sourcebook import REBUILD_NAME, SOURCES_NAME, RebuildMarker, SourceBook
from ..index.store import TurnIndex
from ..terminal import scrub, shell_command
from ..types import Session
from .apply import SourceApplier, digest, fingerprint  # noqa: F401 - digest and fingerprint are public here
from .base import ParseContext
from .batch import Batch, CommitPolicy
from .conversations import SplitRule
from .forget import Forgetting, under
from .limits import Limits
from .prepare import turn_hash  # noqa: F401 - turn_hash is public here
from .remote_spec import MIRRORS
from .report import IngestProgress, IngestReport, ProgressFn
from .walker import Skipped, Source, discover, discover_within

__all__ = ["ChangeListener", "IngestProgress", "IngestReport", "Ingestor", "ProgressFn", "forgotten_reason"]


class ChangeListener(Protocol):
    """Told of every change to indexed turns (the vector store tombstones the windows they cover)."""

    def turns_changed(self, sord: int, from_turn: int) -> None:
        """Turns `from_turn`.. of a session were replaced or removed (an append passes the old length)."""

    def session_removed(self, sord: int) -> None:
        """A session left the index."""


class Ingestor(Forgetting, SourceApplier):
    """Applies chat files to the index and catalog under the cross-process writer lock.

    Sources are applied in batches (ingest/batch.py): many sources per index commit followed by
    one catalog commit. The sources of a batch are recorded in the index's write journal before
    its index commit and removed after its catalog commit; a source left in the journal by a
    killed writer is re-applied from scratch at the next ingest (its old turns deleted by source
    and session, then re-added), so nothing that was committed is lost and nothing is duplicated.
    """

    def __init__(
        self,
        index: TurnIndex,
        catalog: Catalog,
        tz: tzinfo,
        listeners: Iterable[ChangeListener] = (),
        limits: Limits | None = None,
        split: SplitRule | None = None,
        policy: CommitPolicy | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.split = split or SplitRule(tz=tz)
        self.policy = policy or CommitPolicy()
        self.index = index
        self.catalog = catalog
        self.tz = tz
        self.listeners = list(listeners)
        self._lock = threading.Lock()
        self.book = SourceBook(index.path.parent / SOURCES_NAME)
        self._own: tuple[str, str] | None = None  # (data folder, its remote mirrors), resolved once
        self._redo: set[str] = set()  # sessions that hold turns another session holds first

    def _own_file(self, path: str) -> bool:
        """Whether `path` is refind's own data (never ingested); the remote mirrors in it are sources."""
        if self._own is None:
            own = self.index.path.parent.resolve()
            self._own = (str(own), str(own / MIRRORS))
        return under(path, self._own[0]) and not under(path, self._own[1])

    def _changed(self, sord: int, from_turn: int) -> None:
        """Tell the listeners (the vector store) that turns `from_turn`.. of a session changed."""
        for listener in self.listeners:
            listener.turns_changed(sord, from_turn)

    def _removed(self, sord: int) -> None:
        """Tell the listeners that a session left the index."""
        for listener in self.listeners:
            listener.session_removed(sord)

    def ingest(
        self,
        paths: Iterable[Path],
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
        force: bool = False,
        accept_shrink: bool = False,
        within: Iterable[Path] | None = None,
        walk_root: Path | None = None,
    ) -> IngestReport:
        """Ingest files and folders; unchanged files are skipped unless `force`.

        A file that got smaller keeps the turns it no longer holds until `accept_shrink`
        (`refind ingest --accept-shrink PATH`) or until a complete copy at least as large returns.
        Forgotten paths (`refind forget`) are skipped until `unforget`. With `within` (the MCP `ingest`
        tool), nothing whose real path lies outside those folders is read (`walker.discover`). With
        `walk_root` (a folder), the paths inside it are read as a walk of that folder would read them,
        without walking the rest of it (the watcher's new files: `discover_within`).
        """
        revive: list[str] = []
        with self._lock, self.index.write_lock():
            report = IngestReport()
            journal = self.index.journal
            pending = journal.pending()
            self._sync_ignored(pending["ignore"])
            if pending["forget"]:
                revive = self._forget_paths(pending["forget"])[1]
            redo = set(pending["ingest"])
            roots = [Path(p).expanduser().resolve() for p in paths]
            marker = RebuildMarker(self.index.path.parent / REBUILD_NAME)
            rebuilding = marker.pending()
            if rebuilding is not None:  # a reindex was killed: start it over before anything else
                self._empty_everything()
                self._restore_kept(report)  # the turns of files that are gone, saved before the wipe
                roots += [Path(p) for p in rebuilding]
                force = True
                redo = set()
            roots = list(dict.fromkeys(roots))
            inside = (
                Path(walk_root).expanduser().resolve()
                if walk_root is not None and rebuilding is None
                else None
            )
            recorded = [inside] if inside is not None else roots
            self.book.add_roots([str(p) for p in recorded if p.exists() and not self._own_file(str(p))])
            roots += [
                Path(p) for p in sorted(redo | set(revive)) if Path(p).exists()
            ]  # interrupted last time
            missing = [p for p in roots if not p.exists()]
            for p in missing:
                report.skipped.append(Skipped(str(p), "path does not exist"))
            sources: list[Source] = []
            skipped: list[Skipped] = []
            known = None if force else self._unchanged_format
            existing = [p for p in roots if p.exists()]
            targeted = [p for p in existing if inside is not None and under(str(p), str(inside))]
            if targeted:
                try:
                    sources, skipped = discover_within(inside, targeted, self.limits, known, within)
                except Exception as exc:  # a folder that cannot be walked never stops the others
                    skipped = [Skipped(str(inside), describe_failure(exc))]
            for root in [p for p in existing if p not in targeted]:
                try:
                    found, skips = discover([root], self.limits, within, known)
                except Exception as exc:  # a folder that cannot be walked never stops the others
                    found, skips = [], [Skipped(str(root), describe_failure(exc))]
                sources += found
                skipped += skips
            sources = [s for s in sources if not self._own_file(str(s.path))]
            skipped = [s for s in skipped if not self._own_file(s.path)]
            kept: list[Source] = []
            for src in sources:
                if scrub(str(src.path)) != str(src.path):
                    report.skipped.append(
                        Skipped(
                            str(src.path), "the file name is not valid UTF-8; rename the file to ingest it"
                        )
                    )
                    continue
                root = self.catalog.ignored_root(str(src.path))
                if root is None:
                    kept.append(src)
                else:
                    report.skipped.append(Skipped(str(src.path), forgotten_reason(root)))
            sources = list({str(s.path): s for s in kept}.values())
            skipped = [s for s in skipped if self.catalog.ignored_root(s.path) is None]
            report.skipped += skipped
            for s in skipped:
                self.catalog.put_skipped(s.path, s.reason)
            self.catalog.commit()
            if not sources:
                if rebuilding is not None:
                    self._rebuilt(marker)
                return report
            with self.index.writer() as w:
                batch = Batch(w, self.catalog, journal, self.policy)
                for i, src in enumerate(sources):
                    if cancel is not None and cancel.is_set():
                        report.cancelled = True
                        break
                    if progress:
                        progress(IngestProgress(i, len(sources), str(src.path), report.added_turns))
                    self._ingest_source(src, batch, report, force, str(src.path) in redo, accept_shrink)
                    self._reapply_replays(batch, report)
                    if batch.due():
                        batch.commit()
                batch.commit()
                report.commits = batch.commits
                if progress:
                    progress(IngestProgress(len(sources), len(sources), "", report.added_turns))
            if rebuilding is not None and not report.cancelled:
                self._rebuilt(marker)
            return report

    def _rebuilt(self, marker: RebuildMarker) -> None:
        """The rebuild is complete: drop its marker, then the sessions it kept for it."""
        marker.done()
        KeptSources(self.index.path.parent / KEPT_NAME).remove()

    def _empty_everything(self) -> None:
        """Delete every turn and every catalog row but the ignore list (an interrupted rebuild)."""
        with self.index.writer() as w:
            w.delete_everything()
        for rec in self.catalog.iter_sessions():
            self._removed(rec.ord)
        self.catalog.clear_index_rows()
        self.catalog.commit()
        self.index.journal.done("ingest", self.index.journal.pending()["ingest"])

    def apply_sessions(self, sessions: Iterable[Session], source: str, fmt: str) -> IngestReport:
        """Index already-parsed sessions under a pseudo source (benchmarks, tests, eval harness)."""
        with self._lock, self.index.write_lock():
            report = IngestReport()
            ctx = ParseContext(tz=self.tz, split=self.split)
            with self.index.writer() as w:
                for s in sessions:
                    self._apply_session(s, source, fmt, w, report, ctx, hashes=self._prepare(s, source, ctx))
                w.commit()
                self.catalog.commit()
            report.warnings += ctx.warnings
            return report


def forgotten_reason(root: str) -> str:
    """Skip reason of a path on the ignore list."""
    forget, unforget = shell_command("refind", "forget", root), shell_command("refind", "unforget", root)
    return f"forgotten (`{forget}`); run `{unforget}` to index it again"
