"""Batched ingest writes: many sources per index commit, each source applied whole or not at all.

A tantivy commit costs about a tenth of a second (segment files and fsyncs), so committing once
per source made a folder of thousands of small agent sessions take minutes. `Batch` collects
sources and commits when `CommitPolicy` says so: after `turns` changed turns, `seconds` after the
first uncommitted change, and at the end.

Each source is applied inside `Batch.source()`: its catalog writes go under an SQLite savepoint
and its index changes into a `StagedWriter` in memory; only a source read to the end reaches the
tantivy writer, so a file that fails half-way is undone alone and the batch goes on. A source whose
staged text outgrows `stage_bytes` (a large export) raises `SourceTooLarge`: the caller commits the
batch and applies that source on its own, straight into the writer, as one commit.

Crash safety is the journal's (index/journal.py): before a batch's index commit every source it
covers is recorded (one fsync), and removed after the catalog commit; a killed run leaves them
listed and the next writer re-applies exactly those sources.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..index.catalog import Catalog
from ..index.journal import WriteJournal
from ..index.store import TurnWriter
from ..types import Turn


@dataclass(frozen=True)
class CommitPolicy:
    """When a batch is committed: whichever of `turns` or `seconds` comes first, and at the end."""

    turns: int = 20_000
    """Turns added or replaced (and single turns deleted) since the last commit."""
    seconds: float = 1.0
    """Seconds since the first uncommitted change (how stale a reader's view may get)."""
    stage_bytes: int = 16_000_000
    """Text one source may stage in memory; a larger source is applied on its own."""


class SourceTooLarge(Exception):
    """A source staged more than `CommitPolicy.stage_bytes` of text: apply it on its own."""


class StagedWriter:
    """The index changes of one source, kept in order until the source was read completely.

    Offers the writing half of `TurnWriter` (add, delete by session, turn or source)."""

    def __init__(self, limit: int | None) -> None:
        self.ops: list[tuple] = []
        self.added = 0
        self.changed = 0
        self._bytes = 0
        self._limit = limit

    def add_turns(self, session_id: str, source: str, sord: int, turns: Iterable[Turn]) -> int:
        """Stage turns of one session; returns how many."""
        turns = list(turns)
        self._bytes += sum(len(t.text) for t in turns)
        if self._limit is not None and self._bytes > self._limit:
            raise SourceTooLarge()
        self.ops.append(("add_turns", session_id, source, sord, turns))
        self.added += len(turns)
        self.changed += len(turns)
        return len(turns)

    def delete_session(self, session_id: str) -> None:
        """Stage the removal of every turn of a session."""
        self.ops.append(("delete_session", session_id))

    def delete_turn(self, session_id: str, turn: int) -> None:
        """Stage the removal of one turn."""
        self.ops.append(("delete_turn", session_id, turn))
        self.changed += 1

    def delete_source(self, source: str) -> None:
        """Stage the removal of every turn of one source file."""
        self.ops.append(("delete_source", source))

    def flush_into(self, writer: TurnWriter) -> None:
        """Apply the staged changes, in order, to the tantivy writer."""
        for name, *args in self.ops:
            getattr(writer, name)(*args)
        self.ops = []


class Batch:
    """Sources applied since the last commit, and the commit itself (see the module docstring)."""

    def __init__(
        self,
        writer: TurnWriter,
        catalog: Catalog,
        journal: WriteJournal,
        policy: CommitPolicy | None = None,
    ) -> None:
        self.writer = writer
        self.catalog = catalog
        self.journal = journal
        self.policy = policy or CommitPolicy()
        self.keys: list[str] = []
        self.changed = 0
        self.commits = 0
        self._since: float | None = None

    def _begin(self) -> None:
        """Open the catalog transaction the savepoints nest in (a savepoint outside one would commit)."""
        if not self.catalog.db.in_transaction:
            self.catalog.db.execute("BEGIN")

    @contextmanager
    def source(self, key: str) -> Iterator[StagedWriter]:
        """Apply one source: all of it reaches the batch, or (on any exception) none of it."""
        self._begin()
        self.catalog.db.execute("SAVEPOINT source")
        stage = StagedWriter(self.policy.stage_bytes)
        try:
            yield stage
        except BaseException:
            self.catalog.db.execute("ROLLBACK TO source")
            self.catalog.db.execute("RELEASE source")
            raise
        self.catalog.db.execute("RELEASE source")
        if stage.ops:
            stage.flush_into(self.writer)
            self.touched(key, stage.changed)

    @contextmanager
    def alone(self, key: str) -> Iterator[TurnWriter]:
        """Apply one (large) source straight into the writer, after a commit of what came before; the
        batch is then due (what the source makes others redo joins its commit)."""
        self.commit()
        try:
            yield self.writer
        except BaseException:
            self.writer.rollback()
            self.catalog.rollback()
            raise
        self.touched(key, self.policy.turns)

    def touched(self, key: str, changed: int) -> None:
        """A source changed the index (its turns reach the disk at the next commit)."""
        if key not in self.keys:
            self.keys.append(key)
        self.changed += changed
        if self._since is None:
            self._since = time.monotonic()

    def due(self) -> bool:
        """Whether the policy asks for a commit now."""
        if not self.keys:
            return False
        waited = time.monotonic() - (self._since or time.monotonic())
        return self.changed >= self.policy.turns or waited >= self.policy.seconds

    def commit(self) -> None:
        """Make the batch durable: journal, index commit, catalog commit, journal cleared."""
        keys = self.keys
        if keys:
            self.journal.add("ingest", keys)
            self.writer.commit()
            self.commits += 1
        self.catalog.commit()
        if keys:
            self.journal.done("ingest", keys)
        self.keys, self.changed, self._since = [], 0, None
