"""Questions asked of an export set (eval/exportset.py): single-shot retrieval and the product's answers.

Called by benchmarks/export_qa.py, which injects the services factory and the answer-mode runner (the
`modes.py` registry `refind ask` uses; eval sits below both). The set's files are ingested through the
normal readers into a fresh home; each question's evidence messages are placed on the ingested turns
(`resolve_evidence`). Then, per question:

- single-shot retrieval (no model): one search with the question as the query, as `refind search`
  gives it (the top k hit turns, each with its context); recall_any@k / recall_all@k: some / every
  evidence turn is among the turns returned;
- the answer (unless retrieval only): the mode's runner with the question's `now`, scored by the
  deterministic judge (eval/scoring.py; LoCoMo's category rules for a LoCoMo set), by the share of
  gold items found (eval/items.py), with evidence recall (the evidence turns within 2 turns of a
  noted turn), false abstentions (it said "not in your chats" with an evidence turn noted), and the
  prompt tokens, model calls and seconds it took. Answers are cached per question in --out (a rerun
  resumes).

A runner sees the services with the question's gold evidence turns attached (`WithGold`), which only the
eval oracle reads (eval/baselines.py: the answer stage given those turns, ±2).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import ConfigError, RefindError
from .exportset import QUESTIONS, ExportSet, SetQuestion, load_set, resolve_evidence, stratified, turn_table
from .items import abstains, covered, false_abstention, items_share
from .outcomes import OUTCOME_KEYS, score_record
from .qa import backend_label, make_model
from .runner import ProgressLine, ResultCache, ServicesView, data_fingerprint
from .scoring import deterministic

Runner = Callable[..., Any]
"""runner(services, backend, mode, question, now, on_event) -> result with `.to_json()`."""
KS = (5, 10)
SAMPLES = ("first", "stratified")


def choose(questions: list[SetQuestion], limit: int | None, sample: str) -> list[SetQuestion]:
    """The questions to ask: all, the first `limit`, or `limit` round-robin across categories."""
    if sample not in SAMPLES:
        raise ConfigError(f"unknown sample {sample!r}; choose one of {', '.join(SAMPLES)}")
    if sample == "stratified":
        return stratified(questions, limit)
    return list(questions[:limit] if limit else questions)


def single_shot(svc: Any, q: SetQuestion, evidence: list[tuple[str, int]], ks: tuple[int, ...] = KS) -> dict:
    """recall_any@k / recall_all@k / evidence_share@k (the share of the evidence turns shown, as
    `refind eval retrieval` reports ctx_turn_recall@k) of one search with the question as the
    query (no model)."""
    out: dict = {}
    for k in ks:
        blocks = svc.engine.search(q.question, options=svc.search_options(top_k=k))
        shown = {(b.session_id, t.turn) for b in blocks for t in b.turns}
        out[f"recall_any@{k}"] = float(any(e in shown for e in evidence))
        out[f"recall_all@{k}"] = float(all(e in shown for e in evidence))
        out[f"evidence_share@{k}"] = sum(1 for e in evidence if e in shown) / len(evidence)
    return out


def _aware(when):
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


@dataclass(frozen=True)
class Gold:
    """One export question's gold labels as the eval oracle reads them: its evidence turns."""

    evidence_refs: list[tuple[str, int]]


class WithGold(ServicesView):
    """The services as one export question sees them: the set's services and its gold evidence (read only
    by the eval oracle, eval/baselines.py)."""

    OWN = ("_base", "gold")

    def __init__(self, base: Any, evidence: list[tuple[str, int]]) -> None:
        super().__init__(base)
        self.gold = Gold(list(evidence))


def answer_one(
    svc: Any, backend: Any, runner: Runner, mode: str, s: ExportSet, q: SetQuestion, evidence: list
) -> dict:
    """Ask one question with the mode's runner and score the answer."""
    rec: dict = {
        "qid": q.qid,
        "category": q.category,
        "question": q.question,
        "gold": q.answer,
        "abstain": q.abstain,
        "evidence_turns": [list(e) for e in evidence],
    }
    t0 = time.perf_counter()
    try:
        result = runner(WithGold(svc, evidence), backend, mode, q.question, _aware(q.now), None)
    except RefindError as exc:
        rec.update(error=f"{exc.title}: {exc.message}", seconds=round(time.perf_counter() - t0, 3))
        return rec
    seconds = time.perf_counter() - t0
    data = result.to_json()
    answer = str(data.get("answer", ""))
    notes = data.get("notes", [])
    found = covered(evidence, notes)
    said_none = bool(data.get("abstained")) or abstains(answer, s.language)
    usage = data.get("usage", {})
    dataset = "locomo" if s.scoring == "locomo" else "export"
    scores = deterministic(answer, q.answer, dataset, q.abstain, q.category_id)
    outcome = data.get("outcome") or ("not_found" if said_none else "answer")
    draft = str(data.get("draft") or answer)
    if q.abstain:  # abstaining is the answer; the phrases of the set's language count too
        scores["det_correct"] = float(said_none)
        share, hit, n = float(said_none), int(said_none), 1
        draft_share = share
    else:  # an unsure outcome claims no item, whatever its quoted turns hold
        share, hit, n = items_share(answer, q.answer, s.language) if outcome == "answer" else (0.0, 0, 1)
        draft_share = items_share(draft, q.answer, s.language)[0]
    rec.update(
        answer=answer,
        outcome=outcome,
        draft=draft,
        verdicts=data.get("verdicts") or {},
        draft_gold_items=round(draft_share, 4),
        abstained=said_none,
        kind=data.get("kind"),
        noted=[[n_["session_id"], n_.get("hit_turn"), n_.get("turns", [])] for n_ in notes],
        evidence_recall=(len(found) / len(evidence)) if evidence else None,
        false_abstention=false_abstention(said_none, q.abstain, bool(found)),
        gold_items=round(share, 4),
        gold_items_found=[hit, n],
        prompt_tokens=usage.get("prompt_tokens", 0),
        completion_tokens=usage.get("completion_tokens", 0),
        llm_calls=usage.get("llm_calls", 0),
        searches=usage.get("searches", 0),
        seconds=round(seconds, 3),
        per_call=usage.get("per_call", []),
        **scores,
    )
    rec.update(
        score_record(
            {**rec, "abstention": q.abstain},
            lambda text: bool(
                deterministic(text, q.answer, dataset, q.abstain, q.category_id)["det_correct"]
            ),
        )
    )
    return rec


@dataclass
class ExportRun:
    """What `run_export` returns: the summary, and the per-question retrieval and answer records."""

    summary: dict
    retrieval: dict[str, dict]
    answers: list[dict] = field(default_factory=list)

    def markdown(self) -> str:
        """The report as Markdown (eval/exportreport.py)."""
        from .exportreport import export_markdown

        return export_markdown(self.summary, self.answers)


def run_export(
    folder: Path,
    settings: Settings,
    runner: Runner | None,
    *,
    factory: Callable[[Path], Any],
    mode: str = "refind",
    backend: str | None = None,
    model: str | None = None,
    limit: int | None = None,
    sample: str = "first",
    out: Path | None = None,
    retrieval_only: bool = False,
    quiet: bool = False,
) -> ExportRun:
    """Ingest the set, score single-shot retrieval and (unless `retrieval_only`) the answers."""
    s = load_set(folder)
    chosen = choose(s.questions, limit, sample)
    name = Path(folder).resolve().name
    label = backend_label(backend, model, settings)
    tmp = None
    if out is not None:
        home = out / f"home-{name}"
        shutil.rmtree(home, ignore_errors=True)  # a fresh home: the readers of this code base
    else:
        tmp = tempfile.TemporaryDirectory(prefix="refind-export-")
        home = Path(tmp.name)
    svc = factory(home)
    try:
        t0 = time.perf_counter()
        report = svc.ingestor.ingest(s.files())
        ingest = {
            "files": report.ingested_files,
            "turns": report.added_turns,
            "sessions": svc.catalog.session_count(),
            "seconds": round(time.perf_counter() - t0, 3),
            "skipped": [sk.reason for sk in report.skipped],
            "warnings": len(report.warnings),
        }
        resolved = resolve_evidence(chosen, turn_table(svc))
        retrieval = {q.qid: single_shot(svc, q, resolved[q.qid][0]) for q in chosen if resolved[q.qid][0]}
        records: list[dict] = []
        if not retrieval_only:
            records = _answers(
                svc, s, chosen, resolved, runner, settings, mode, backend, model, label, out, quiet
            )
    finally:
        svc.close()
        if tmp is not None:
            tmp.cleanup()
    summary = {
        "set": name,
        "description": s.description,
        "language": s.language,
        "scoring": s.scoring,
        "mode": mode,
        "backend": None if retrieval_only else label,
        "questions": len(chosen),
        "sample": sample,
        "ingest": ingest,
        "evidence": {
            "messages": sum(len(q.evidence) for q in chosen),
            "not_found_in_index": sum(m for _, m in resolved.values()),
            "unresolved_in_set": sum(len(q.unresolved) for q in chosen),
        },
        "retrieval": summarize_retrieval(chosen, retrieval),
    }
    if records:
        summary["qa"] = summarize_answers(records)
    run = ExportRun(summary, retrieval, records)
    if out is not None:
        from .exportreport import write_export_report

        stem = f"export-{name}-" + ("retrieval" if retrieval_only else f"{mode}-{label}")
        write_export_report(summary, retrieval, records, out, stem)
    return run


def _answers(
    svc, s, chosen, resolved, runner, settings, mode, backend, model, label, out, quiet
) -> list[dict]:
    if runner is None:
        raise ConfigError("asking the questions needs an answer-mode runner (or ask for retrieval only)")
    cache = ResultCache(
        out / f"export-{Path(s.folder).resolve().name}-{mode}-{label}.jsonl" if out else None,
        data_fingerprint(s.folder / QUESTIONS),
    )
    todo = [q for q in chosen if (r := cache.get(q.qid)) is None or "error" in r]
    model_backend = make_model(settings, backend, model) if todo else None
    bar = ProgressLine(f"export qa {s.folder.name} {mode}", quiet)
    done = len(chosen) - len(todo)
    try:
        for q in todo:
            rec = answer_one(svc, model_backend, runner, mode, s, q, resolved[q.qid][0])
            cache.put(rec)
            done += 1
            bar.update(done, len(chosen), f"{q.qid} {'ok' if rec.get('det_correct') else '-'}")
    finally:
        bar.close()
    return [r for q in chosen if (r := cache.get(q.qid)) is not None]


def _mean(values: list) -> float | None:
    vals = [float(v) for v in values if isinstance(v, int | float)]
    return round(sum(vals) / len(vals), 4) if vals else None


def _pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), 3)


def _retrieval_row(rows: list[dict]) -> dict:
    out: dict = {"n": len(rows)}
    for key in sorted({k for r in rows for k in r}):
        out[key] = _mean([r[key] for r in rows if key in r])
    return out


def summarize_retrieval(chosen: list[SetQuestion], per_q: dict[str, dict]) -> dict:
    """Overall and per-category recall@k over the questions with evidence in the index."""
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for q in chosen:
        if q.qid in per_q:
            by_cat[q.category].append(per_q[q.qid])
    return {
        "overall": _retrieval_row([r for rows in by_cat.values() for r in rows]),
        "by_category": {c: _retrieval_row(rows) for c, rows in sorted(by_cat.items())},
        "without_evidence": sum(1 for q in chosen if q.qid not in per_q),
    }


def answer_row(records: list[dict]) -> dict:
    """Accuracy, gold items, evidence recall, abstentions and resources of some answered questions."""
    ok = [r for r in records if "error" not in r]
    seconds = [r["seconds"] for r in ok]
    tokens = [r["prompt_tokens"] for r in ok]
    return {
        "n": len(records),
        "errors": len(records) - len(ok),
        "det_correct": _mean([r.get("det_correct", 0.0) for r in records]),
        "det_f1": _mean([r.get("det_f1", 0.0) for r in records]),
        "gold_items": _mean([r.get("gold_items", 0.0) for r in records]),
        "draft_gold_items": _mean([r.get("draft_gold_items", 0.0) for r in records]),
        **{k: _mean([r.get(k, 0.0) for r in records]) for k in OUTCOME_KEYS},
        "evidence_recall": _mean([r["evidence_recall"] for r in ok if r.get("evidence_recall") is not None]),
        "abstained": sum(1 for r in ok if r.get("abstained")),
        "false_abstentions": sum(1 for r in ok if r.get("false_abstention")),
        "p50_seconds": _pct(seconds, 0.5),
        "p90_seconds": _pct(seconds, 0.9),
        "median_prompt_tokens": float(statistics.median(tokens)) if tokens else None,
        "mean_llm_calls": _mean([r["llm_calls"] for r in ok]),
        "mean_searches": _mean([r["searches"] for r in ok]),
    }


def summarize_answers(records: list[dict]) -> dict:
    """Overall and per-category answer figures."""
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_cat[r["category"]].append(r)
    return {
        "overall": answer_row(records),
        "by_category": {c: answer_row(v) for c, v in sorted(by_cat.items())},
    }
