"""Single-shot retrieval evaluation: every mode (and the bm25s anchor) on one index per haystack.

Called by `refind eval retrieval` (cli/evalcmd.py); returns the summary JSON and writes the
per-question JSONL cache, JSON, Markdown and PNG into the output folder when one is given.
"""

from __future__ import annotations

import multiprocessing
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from ..errors import ConfigError, RefindError
from .archive import archive_services, build_archive
from .datasets import EvalQuestion, EvalUnit, load_units
from .metrics import mean_table, score_question
from .modes import ANCHOR, get_mode
from .runner import (
    ProgressLine,
    QuestionServices,
    ResultCache,
    ServicesFactory,
    data_fingerprint,
    unit_services,
)

DEFAULT_KS = (1, 3, 5, 10)
SETTINGS = ("haystack", "archive")


def question_status(q: EvalQuestion) -> str:
    """ "scored", or why the question is left out of the retrieval metrics."""
    if q.abstention:
        return "abstention"
    if not q.answer_sessions:
        return "no_answer_sessions"
    return "scored"


def _needs(rec: dict | None, modes: list[str], ks: tuple[int, ...]) -> list[str]:
    """Modes still to compute for a cached question record."""
    if rec is None:
        return list(modes)
    if rec.get("status") != "scored":
        return []
    done = rec.get("modes", {})
    want = [f"recall_any@{k}" for k in ks]
    return [m for m in modes if m not in done or "error" in done[m] or not all(w in done[m] for w in want)]


def score_record(
    svc: Any,
    q: EvalQuestion,
    unit_id: str,
    turn_key: dict[str, tuple[str, int]],
    modes: list[str],
    ks: tuple[int, ...],
) -> dict:
    """One question's record: its status and, when scored, every pending mode's metrics."""
    status = question_status(q)
    rec = {
        "qid": q.qid,
        "unit": unit_id,
        "type": q.qtype,
        "status": status,
        "unresolved": q.unresolved,
        "n_evidence_turns": len(q.evidence_turns),
        "modes": {},
    }
    if status != "scored":
        return rec
    gold_turns = [turn_key[t] for t in q.evidence_turns if t in turn_key]
    for name in modes:
        mode = get_mode(name)
        try:
            hits = mode.fn(svc, q.question, max(ks))
        except RefindError as exc:
            rec["modes"][name] = {"error": f"{exc.title}: {exc.message}"}
            continue
        rec["modes"][name] = {
            key: round(v, 6)
            for key, v in score_question(hits, q.answer_sessions, gold_turns, ks, mode.context_window).items()
        }
    return rec


def score_unit(
    dataset: str,
    unit: EvalUnit,
    modes: list[str],
    ks: tuple[int, ...],
    todo: dict[str, list[str]],
    factory: ServicesFactory,
    setup: Callable[[], None] | None = None,
) -> list[dict]:
    """Index one haystack and score the questions' pending modes (runs in a worker process;
    `setup` registers the modes the caller added, as a spawned worker starts without them)."""
    if setup is not None:
        setup()
    with unit_services(unit, dataset, factory) as svc:
        turn_key = {tid: key for key, tid in unit.turn_ids().items()}
        return [
            score_record(
                QuestionServices(svc, q, bounded=False), q, unit.unit_id, turn_key, todo.get(q.qid, modes), ks
            )
            for q in unit.questions
        ]


def _units_todo(
    dataset: str,
    data: Path,
    limit: int | None,
    modes: list[str],
    ks: tuple[int, ...],
    cache: ResultCache,
    order: list[str],
    sample: str = "first",
) -> Iterator[tuple[EvalUnit, dict[str, list[str]]]]:
    for unit in load_units(dataset, data, limit, sample=sample):
        todo: dict[str, list[str]] = {}
        for q in unit.questions:
            order.append(q.qid)
            need = _needs(cache.get(q.qid), modes, ks)
            if need:
                todo[q.qid] = need
        if todo:
            yield unit, todo


def run_retrieval(
    dataset: str,
    data: Path,
    modes: list[str],
    ks: tuple[int, ...] = DEFAULT_KS,
    limit: int | None = None,
    out: Path | None = None,
    workers: int = 2,
    log: Callable[[str], None] | None = None,
    quiet: bool = False,
    sample: str = "first",
    *,
    factory: ServicesFactory,
    setup: Callable[[], None] | None = None,
    setting: str = "haystack",
) -> dict:
    """Score every question with every mode plus the bm25s anchor; returns the summary JSON.

    `factory` builds the services over a folder (injected by the CLI); `setup` registers extra modes
    (run here and in every worker process). `setting`: "haystack" (one index per question's
    haystack, the benchmark) or "archive" (every haystack in one index, each question as of its
    date; runs in this process, `workers` is ignored).
    """
    if setting not in SETTINGS:
        raise ConfigError(f"unknown setting {setting!r}; choose one of {', '.join(SETTINGS)}")
    if setup is not None:
        setup()
    modes = list(dict.fromkeys([*modes, ANCHOR]))
    for name in modes:
        mode = get_mode(name)  # unknown modes fail before any work
        if setting == "archive" and not mode.as_of:
            raise ConfigError(
                f"retrieval mode {name!r} cannot run in the archive setting: it does not apply the "
                "as-of bound, so later sessions would leak into its results"
            )
    ks = tuple(sorted(set(ks)))
    stem = f"retrieval-{dataset}" + ("-archive" if setting == "archive" else "")
    cache = ResultCache(out / f"{stem}.jsonl" if out else None, data_fingerprint(data))
    order: list[str] = []
    bar = ProgressLine(f"eval retrieval {dataset} {setting}", quiet)
    done = 0
    extra: dict = {}

    def collect(records: list[dict]) -> None:
        nonlocal done
        for rec in records:
            old = cache.get(rec["qid"])
            if old and old.get("status") == rec["status"] == "scored":
                rec["modes"] = {**old.get("modes", {}), **rec["modes"]}
            cache.put(rec)
            done += 1
        bar.update(done, limit, records[-1]["qid"] if records else "")

    try:
        if setting == "archive":
            archive = build_archive(dataset, data, limit, sample)
            extra["archive"] = archive.stats()
            pending = []
            for q in archive.questions:
                order.append(q.qid)
                need = _needs(cache.get(q.qid), modes, ks)
                if need:
                    pending.append((q, need))
            if pending:
                turn_key = {tid: key for key, tid in archive.turn_ids.items()}
                with archive_services(archive, dataset, data, factory, out) as svc:
                    for q, need in pending:
                        view = QuestionServices(svc, q, bounded=True)
                        collect([score_record(view, q, "archive", turn_key, need, ks)])
        else:
            units = _units_todo(dataset, data, limit, modes, ks, cache, order, sample)
            if workers <= 1:
                for unit, todo in units:
                    collect(score_unit(dataset, unit, modes, ks, todo, factory))
            else:
                ctx = multiprocessing.get_context("spawn")
                with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
                    running: set[Future] = set()
                    for unit, todo in units:
                        running.add(pool.submit(score_unit, dataset, unit, modes, ks, todo, factory, setup))
                        if len(running) >= 2 * workers:
                            finished, running = wait(running, return_when=FIRST_COMPLETED)
                            for f in finished:
                                collect(f.result())
                    for f in running:
                        collect(f.result())
    finally:
        bar.close()
    records = [cache.get(q) for q in dict.fromkeys(order) if cache.get(q)]
    summary = summarize(dataset, records, modes, ks)
    summary["setting"] = setting
    summary.update(extra)
    if out:
        from .report import write_retrieval_report

        write_retrieval_report(summary, out, stem)
    return summary


def summarize(dataset: str, records: list[dict], modes: list[str], ks: tuple[int, ...]) -> dict:
    """Overall and per-type means per mode, the skip counts and each mode's note."""
    skipped: dict[str, int] = defaultdict(int)
    unresolved_ids = 0
    unresolved_q = 0
    for r in records:
        if r["status"] != "scored":
            skipped[r["status"]] += 1
        if r.get("unresolved"):
            unresolved_ids += len(r["unresolved"])
            unresolved_q += 1
    scored = [r for r in records if r["status"] == "scored"]
    skipped["unresolved_evidence_ids"] = unresolved_ids
    skipped["questions_with_unresolved_ids"] = unresolved_q
    skipped["no_turn_labels"] = sum(1 for r in scored if not r.get("n_evidence_turns"))
    out_modes: dict[str, dict] = {}
    for name in modes:
        rows = [r["modes"][name] for r in scored if name in r.get("modes", {})]
        errors = sorted({row["error"] for row in rows if "error" in row})
        rows = [row for row in rows if "error" not in row]
        by_type: dict[str, list[dict]] = defaultdict(list)
        for r in scored:
            row = r.get("modes", {}).get(name)
            if row and "error" not in row:
                by_type[r["type"]].append(row)
        entry = {
            "overall": mean_table(rows),
            "by_type": {t: mean_table(v) for t, v in sorted(by_type.items())},
            "context_window": get_mode(name).context_window,
            "note": get_mode(name).note,
        }
        if errors:
            entry["errors"] = errors
        out_modes[name] = entry
    return {
        "dataset": dataset,
        "questions": len(records),
        "scored": len(scored),
        "ks": list(ks),
        "modes": out_modes,
        "skipped": dict(skipped),
    }
