"""The archive setting: every haystack of a benchmark file merged into one index, asked as of each question.

A person's archive is one index of thousands of sessions, not a haystack per question. The builder
reads every haystack of the file once, keeps each session id once (the first copy; copies whose
turns differ are counted), indexes them into one folder (cached under --out, keyed by the data
file's fingerprint) and lists the questions to ask. Each question then runs against the whole
archive with the engine bounded at its date (`SearchEngine.bounded`): sessions dated after the
question do not exist for any search.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..index.schema import SCHEMA_VERSION
from ..types import Session
from .datasets import EvalQuestion, load_units
from .runner import ServicesFactory, data_fingerprint

MARKER = "archive.json"


@dataclass
class Archive:
    """The merged archive of one benchmark file and the questions asked of it."""

    sessions: list[Session]
    questions: list[EvalQuestion]
    turn_ids: dict[tuple[str, int], str] = field(default_factory=dict)
    """(session id, turn index) → turn id, of the kept copy of each session."""
    duplicates: int = 0
    """Session copies dropped because their id was already in the archive."""
    conflicts: int = 0
    """Dropped copies whose turns differ from the kept one (their gold turn labels may not match)."""

    @property
    def n_turns(self) -> int:
        """Turns in the archive."""
        return sum(len(s.turns) for s in self.sessions)

    def stats(self) -> dict:
        """Counts for the report."""
        return {
            "sessions": len(self.sessions),
            "turns": self.n_turns,
            "duplicate_sessions_dropped": self.duplicates,
            "conflicting_duplicates": self.conflicts,
            "questions": len(self.questions),
            "undated_questions": sum(1 for q in self.questions if q.date is None),
        }


def _same(a: Session, b: Session) -> bool:
    return [(t.index, t.speaker, t.text) for t in a.turns] == [(t.index, t.speaker, t.text) for t in b.turns]


def build_archive(dataset: str, data: Path, limit: int | None = None, sample: str = "first") -> Archive:
    """Every session of every haystack once (first copy kept), and the questions (`limit`/`sample`
    choose them as in the haystack setting; the archive always holds every haystack)."""
    kept: dict[str, Session] = {}
    duplicates = conflicts = 0
    questions: list[EvalQuestion] = []
    for unit in load_units(dataset, data):
        for s in unit.sessions:
            first = kept.get(s.session_id)
            if first is None:
                kept[s.session_id] = s
                continue
            duplicates += 1
            if not _same(first, s):
                conflicts += 1
        questions += unit.questions
    if limit:
        chosen = [q.qid for u in load_units(dataset, data, limit, sample=sample) for q in u.questions]
        by_id = {q.qid: q for q in questions}
        questions = [by_id[qid] for qid in chosen if qid in by_id]
    sessions = list(kept.values())
    turn_ids = {(s.session_id, t.index): t.turn_id for s in sessions for t in s.turns}
    return Archive(sessions, questions, turn_ids, duplicates, conflicts)


@contextmanager
def archive_services(
    archive: Archive, dataset: str, data: Path, factory: ServicesFactory, cache: Path | None = None
) -> Iterator[Any]:
    """Services over the archive's one index: reused from `cache/archive-<dataset>/` when it was built
    from the same data file, else (re)built there (or in a temporary folder without `cache`).

    The sessions are left in `services.eval_sessions` for modes with their own index.
    """
    tmp = None
    if cache is None:
        tmp = tempfile.TemporaryDirectory(prefix="refind-archive-")
        folder = Path(tmp.name)
    else:
        folder = cache / f"archive-{dataset}"
    want = {
        "data": data_fingerprint(data),
        "schema_version": SCHEMA_VERSION,
        "sessions": len(archive.sessions),
        "turns": archive.n_turns,
    }
    marker = folder / MARKER
    fresh = False
    try:
        have = json.loads(marker.read_text()) if marker.exists() else None
    except (OSError, ValueError):
        have = None
    if have != want:
        shutil.rmtree(folder / "data", ignore_errors=True)
        marker.unlink(missing_ok=True)
        fresh = True
    (folder / "data").mkdir(parents=True, exist_ok=True)
    svc = factory(folder / "data")
    try:
        if fresh:
            svc.ingestor.apply_sessions(archive.sessions, f"eval:{dataset}:archive", dataset)
            marker.write_text(json.dumps(want))
        svc.eval_sessions = archive.sessions
        yield svc
    finally:
        svc.close()
        if tmp is not None:
            tmp.cleanup()
