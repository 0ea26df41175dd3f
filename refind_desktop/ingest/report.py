"""What an ingest run reports: progress while it runs, and what it changed (`refind ingest --json`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .walker import Skipped

ProgressFn = Callable[["IngestProgress"], None]


@dataclass
class IngestProgress:
    """Progress of an ingest run (files done of files total, turns added so far)."""

    files_done: int
    files_total: int
    current: str
    turns_added: int


@dataclass
class IngestReport:
    """What an ingest run changed: the contract behind `refind ingest --json`."""

    added_turns: int = 0
    removed_turns: int = 0
    unchanged_files: int = 0
    ingested_files: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False
    partial: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    commits: int = 0
    """Index commits the run made (batched: many sources per commit)."""

    def to_json(self) -> dict:
        """The stable JSON shape."""
        return {
            "added_turns": self.added_turns,
            "removed_turns": self.removed_turns,
            "unchanged_files": self.unchanged_files,
            "ingested_files": self.ingested_files,
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "warnings": self.warnings,
            "cancelled": self.cancelled,
            "partial": self.partial,
            "held": self.held,
            "commits": self.commits,
        }
