"""Shared eval plumbing: one temporary index per haystack, per-question views, the JSONL cache, progress."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .datasets import EvalQuestion, EvalUnit

ServicesFactory = Callable[[Path], Any]
"""folder → the front ends' services (`build_services`) over an index and catalog kept in that folder,
naive times read as UTC. The CLI injects it (eval sits below the services layer and never imports it);
it must be picklable (a module-level function or a partial of one) for the process pool."""


@contextmanager
def unit_services(unit: EvalUnit, dataset: str, factory: ServicesFactory) -> Iterator[Any]:
    """Services over a fresh index in a temporary folder holding only this unit's haystack (UTC).

    The parsed sessions are left in `services.eval_sessions` for modes with their own index.
    """
    with tempfile.TemporaryDirectory(prefix="refind-eval-") as tmp:
        svc = factory(Path(tmp))
        try:
            svc.ingestor.apply_sessions(unit.sessions, f"eval:{dataset}:{unit.unit_id}", dataset)
            svc.eval_sessions = unit.sessions
            yield svc
        finally:
            svc.close()


class ServicesView:
    """Shared services as one question sees them: the attributes named in `OWN` are the question's own,
    every other one is read from and written to the shared services (the per-haystack caches, bm25s
    anchor, dense retriever, ..., belong to them, so a later question finds them built)."""

    OWN: tuple[str, ...] = ("_base",)

    def __init__(self, base: Any) -> None:
        self._base = base

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self._base, name, value)


class QuestionServices(ServicesView):
    """The services as one question sees them: the engine bounded in the archive setting at the
    question's date, or at the end of its own history when that is later (`EvalQuestion.as_of`), and
    the question's date for modes that read relative dates."""

    OWN = ("_base", "question_date", "engine", "gold")

    def __init__(self, base: Any, question: EvalQuestion, bounded: bool) -> None:
        super().__init__(base)
        self.question_date = question.date
        self.gold = question  # read only by the eval baselines (eval/baselines.py `oracle`)
        self.engine = base.engine.bounded(question.as_of) if bounded else base.engine


def data_fingerprint(path: Path) -> str:
    """Name, size and a hash of the first MB of the data file: cached results of another file are ignored."""
    p = Path(path)
    with open(p, "rb") as fh:
        head = fh.read(1 << 20)
    return f"{p.name}:{p.stat().st_size}:{hashlib.blake2b(head, digest_size=8).hexdigest()}"


def last_records(path: Path) -> dict[str, dict]:
    """The last record of each question in a results file (a harness appends; the last one wins), failed
    questions (an "error" record) left out: what the scripts of benchmarks/ read."""
    out: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            if "qid" in rec and "error" not in rec:
                out[rec["qid"]] = rec
    return out


class ResultCache:
    """Per-question results as JSONL under --out (append-only; the last record of a question wins)."""

    def __init__(self, path: Path | None, data: str) -> None:
        self.path = path
        self.data = data
        self.records: dict[str, dict] = {}
        if path is not None and path.exists():
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        continue  # a torn last line from an interrupted run
                    if isinstance(rec, dict) and rec.get("data") == data and "qid" in rec:
                        self.records[rec["qid"]] = rec

    def get(self, qid: str) -> dict | None:
        """The cached record of a question, if any."""
        return self.records.get(qid)

    def put(self, rec: dict) -> None:
        """Remember (and append to the file) one question's record."""
        rec = {"data": self.data, **rec}
        self.records[rec["qid"]] = rec
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")


class ProgressLine:
    """`[done/total] label` lines on stderr (rewritten in place on a terminal)."""

    def __init__(self, label: str, quiet: bool = False) -> None:
        self.label = label
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.t0 = time.perf_counter()

    def update(self, done: int, total: int | None, note: str = "") -> None:
        """Report progress."""
        if self.quiet:
            return
        spent = time.perf_counter() - self.t0
        of = f"/{total}" if total else ""
        line = f"{self.label} [{done}{of}] {spent:.0f}s {note}"[:120]
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        """End the progress display."""
        if self.tty and not self.quiet:
            sys.stderr.write("\n")
            sys.stderr.flush()
