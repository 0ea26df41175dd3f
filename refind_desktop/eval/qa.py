"""End-to-end QA evaluation: the full agent per question on its own haystack, then answer scoring.

Called by `refind eval qa` (cli/evalcmd.py). Each question runs with its question date as `now`;
answers are scored by the deterministic rules (always) and an LLM judge (when one is named), and the
run reports evidence recall of the notes and the resources spent (searches, calls, tokens, seconds).
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..config import Settings
from ..errors import ConfigError, RefindError
from .archive import archive_services, build_archive
from .datasets import EvalQuestion, EvalUnit, load_units
from .items import false_abstention
from .outcomes import OUTCOME_KEYS, score_record
from .runner import (
    ProgressLine,
    QuestionServices,
    ResultCache,
    ServicesFactory,
    data_fingerprint,
    unit_services,
)
from .scoring import abstains, deterministic, llm_judge, strip_citations

Runner = Callable[..., object]
"""runner(services, backend, mode, question, now, on_event) -> result with `.to_json()` (cli/ask.py)."""


def make_model(settings: Settings, backend: str | None, model: str | None, judge: bool = False):
    """A back end by name; "scripted" is the offline stand-in (eval/scripted.py)."""
    if (backend or "").lower() == "scripted":
        from .scripted import offline_backend, offline_judge

        return offline_judge() if judge else offline_backend()
    from ..llm.factory import make_backend

    return make_backend(settings, backend=backend, model=model)


def backend_label(backend: str | None, model: str | None, settings: Settings) -> str:
    kind = (backend or settings.backend or "llama").lower()
    name = model or (settings.openai_model if kind == "openai" else settings.model) or "default"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{kind}-{Path(name).name}")[:80]


def evidence_recall(q: EvalQuestion, noted: list[str]) -> float | None:
    """Share of the answer sessions present in the saved notes (None without answer sessions)."""
    if not q.answer_sessions:
        return None
    have = set(noted)
    return sum(1 for s in q.answer_sessions if s in have) / len(q.answer_sessions)


def answer_question(svc, backend, runner: Runner, mode: str, dataset: str, q: EvalQuestion) -> dict:
    """Run the agent on one question and score it deterministically (the judge comes later)."""
    rec: dict = {
        "qid": q.qid,
        "type": q.qtype,
        "question": q.question,
        "gold": q.answer,
        "abstention": q.abstention,
        "category": q.category,
        "answer_sessions": q.answer_sessions,
    }
    t0 = time.perf_counter()
    try:
        result = runner(svc, backend, mode, q.question, q.date, None)  # `now` = the question's date
    except RefindError as exc:
        rec.update(error=f"{exc.title}: {exc.message}", seconds=round(time.perf_counter() - t0, 3))
        return rec
    data = result.to_json()
    noted = list(dict.fromkeys(n["session_id"] for n in data.get("notes", [])))
    rec.update(
        answer=data.get("answer", ""),
        outcome=data.get("outcome") or ("not_found" if data.get("abstained") else "answer"),
        draft=data.get("draft", ""),
        verdicts=data.get("verdicts") or {},
        abstained=bool(data.get("abstained")),
        citations=data.get("citations", []),
        noted_sessions=noted,
        usage=data.get("usage", {}),
        evidence_recall=evidence_recall(q, noted),
        trajectory=data.get("trajectory", []),
    )
    rec.update(deterministic(rec["answer"], q.answer, dataset, q.abstention, q.category))
    rec["false_abstention"] = record_false_abstention(rec)
    rec.update(
        score_record(
            rec,
            lambda text: bool(
                deterministic(text, q.answer, dataset, q.abstention, q.category)["det_correct"]
            ),
        )
    )
    return rec


def record_false_abstention(rec: dict) -> bool:
    """The answer abstained although the question has an answer and an answer session was noted
    (LoCoMo's adversarial questions, category 5, are to be abstained from, like `_abs` ones)."""
    should = bool(rec.get("abstention")) or rec.get("category") == 5
    said = bool(rec.get("abstained")) or abstains(strip_citations(rec.get("answer", "")))
    noted = set(rec.get("noted_sessions") or [])
    return false_abstention(said, should, any(s in noted for s in rec.get("answer_sessions") or []))


def run_qa(
    dataset: str,
    data: Path,
    settings: Settings,
    runner: Runner,
    mode: str = "refind",
    backend: str | None = None,
    model: str | None = None,
    judge: str = "exact",
    judge_model: str | None = None,
    limit: int | None = None,
    out: Path | None = None,
    workers: int | None = None,
    quiet: bool = False,
    sample: str = "first",
    *,
    factory: ServicesFactory,
    setting: str = "haystack",
) -> dict:
    """Answer every question (resuming from the cache in `out`), judge, and summarize.

    `runner` is the answer mode's runner and `factory` the services factory, both injected by the
    CLI. `setting` "archive": one index of every haystack, each question asked as of its date, or of
    the end of its own history when that is later (`EvalQuestion.as_of`; the engine the runner gets
    is bounded there; the runner neither sees nor sets the bound).
    """
    if setting not in ("haystack", "archive"):
        raise ConfigError(f"unknown setting {setting!r}; choose haystack or archive")
    label = backend_label(backend, model, settings)
    kind = label.split("-", 1)[0]
    judge_name = (judge or "exact").lower()
    judge_label = "exact" if judge_name == "exact" else backend_label(judge_name, judge_model, settings)
    stem = f"qa-{dataset}-{mode}-{label}" + ("-archive" if setting == "archive" else "")
    cache = ResultCache(out / f"{stem}.jsonl" if out else None, data_fingerprint(data))
    workers = workers or (2 if kind == "openai" else 1)
    model_backend = judge_backend = None
    lock = threading.Lock()
    bar = ProgressLine(f"eval qa {dataset} {mode}", quiet)
    order: list[str] = []
    units: list[tuple[EvalUnit, list[EvalQuestion]]] = []
    archive = build_archive(dataset, data, limit, sample) if setting == "archive" else None
    for unit in (
        [EvalUnit("archive", [], archive.questions)]
        if archive
        else load_units(dataset, data, limit, sample=sample)
    ):
        order += [q.qid for q in unit.questions]
        todo = [q for q in unit.questions if (r := cache.get(q.qid)) is None or "error" in r]
        if todo:
            units.append((unit, todo))
    if units:
        model_backend = make_model(settings, backend, model)
    if judge_name != "exact":
        # one local model in memory: the judge reuses the answering back end when it is the same one
        same = (
            judge_name != "scripted"
            and judge_name == (backend or settings.backend).lower()
            and (judge_model or None) == (model or None)
        )
        judge_backend = (
            model_backend
            if same and model_backend is not None
            else make_model(settings, judge_name, judge_model, judge=True)
        )
    done = len(order) - sum(len(t) for _, t in units)

    def do_unit(item: tuple[EvalUnit, list[EvalQuestion]]) -> None:
        nonlocal done
        unit, todo = item
        if archive is not None:
            opened = archive_services(archive, dataset, data, factory, out)
        else:
            opened = unit_services(unit, dataset, factory)
        with opened as svc:
            for q in todo:
                view = QuestionServices(svc, q, bounded=archive is not None)
                rec = answer_question(view, model_backend, runner, mode, dataset, q)
                with lock:
                    cache.put(rec)
                    done += 1
                    bar.update(done, len(order), f"{q.qid} {'ok' if rec.get('det_correct') else '-'}")

    try:
        if workers <= 1 or len(units) <= 1:
            for item in units:
                do_unit(item)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(do_unit, units))
        if judge_backend is not None:
            for qid in order:
                rec = cache.get(qid)
                if rec is None or "error" in rec or judge_label in rec.get("judge", {}):
                    continue
                t0 = time.perf_counter()
                try:
                    ok, raw, usage = llm_judge(judge_backend, rec["question"], rec["gold"], rec["answer"])
                except RefindError as exc:
                    ok, raw, usage = None, f"error: {exc.message}", None
                verdict = {
                    "correct": ok,
                    "raw": raw[:400],
                    "seconds": round(time.perf_counter() - t0, 3),
                    "tokens": (usage.prompt_tokens + usage.completion_tokens) if usage else 0,
                }
                cache.put({**rec, "judge": {**rec.get("judge", {}), judge_label: verdict}})
    finally:
        bar.close()
    records = [cache.get(q) for q in dict.fromkeys(order) if cache.get(q)]
    summary = summarize(dataset, records, mode, label, judge_label)
    summary["setting"] = setting
    if archive is not None:
        summary["archive"] = archive.stats()
    if out:
        from .report import write_qa_report

        write_qa_report(summary, out, stem)
    return summary


_USAGE_KEYS = (
    ("searches", "searches"),
    ("llm_calls", "llm_calls"),
    ("prompt_tokens", "prompt_tokens"),
    ("completion_tokens", "completion_tokens"),
    ("search_seconds", "search_seconds"),
    ("model_seconds", "model_seconds"),
    ("total_seconds", "total_seconds"),
)


def _means(records: list[dict], judge_label: str) -> dict:
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)

    def add(key: str, value: object) -> None:
        if isinstance(value, bool):
            value = float(value)
        if isinstance(value, int | float):
            sums[key] += value
            counts[key] += 1

    for r in records:
        if "error" in r:
            add("det_correct", 0.0)
            add("det_f1", 0.0)
            add("errors", 1)
            continue
        verdict = r.get("judge", {}).get(judge_label)
        if verdict is not None:
            add("judge_correct", bool(verdict["correct"]))
            add("judge_calls", 1)
            add("judge_seconds", verdict.get("seconds", 0.0))
        add("det_correct", r.get("det_correct"))
        add("det_f1", r.get("det_f1"))
        for key in OUTCOME_KEYS:
            add(key, r.get(key))
        add("evidence_recall", r.get("evidence_recall"))
        add("abstained", r.get("abstained"))
        add("false_abstentions", int(record_false_abstention(r)))
        for out_key, key in _USAGE_KEYS:
            add(out_key, (r.get("usage") or {}).get(key))
    out: dict = {"n": len(records)}
    for key in sums:
        if key in ("errors", "judge_calls", "false_abstentions"):
            out[key] = int(sums[key])
        else:
            out[key] = round(sums[key] / counts[key], 4)
    return out


def summarize(dataset: str, records: list[dict], mode: str, backend: str, judge_label: str) -> dict:
    """Overall and per-type means: accuracy by each scorer, evidence recall, resources."""
    by_type: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_type[r["type"]].append(r)
    return {
        "dataset": dataset,
        "mode": mode,
        "backend": backend,
        "judge": judge_label,
        "questions": len(records),
        "scorers": {
            "judge_correct": f"LLM judge ({judge_label}), LongMemEval/STITCH prompt and verdict rule",
            "det_correct": "deterministic: normalized containment of the gold answer "
            "(abstention questions: the answer says it is not in the history)",
            "det_f1": "deterministic: token F1"
            + (" with LoCoMo's category rules" if dataset == "locomo" else ""),
            "false_abstentions": "count: the answer says it is not in the history although the "
            "question has an answer and an answer session is in the notes",
        },
        "overall": _means(records, judge_label),
        "by_type": {t: _means(v, judge_label) for t, v in sorted(by_type.items())},
    }
