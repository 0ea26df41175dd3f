"""Aggregate outcome figures of `refind eval qa` runs on the same questions, side by side, by type.

Reads the per-question JSONL records of each run, keeps the questions every run answered, and prints
ONLY aggregates (never a question, an answer or an id), so it is safe on the check half:

    python benchmarks/outcome_table.py refind=runs/c-d/qa-*.jsonl oracle=runs/c-oracle/qa-*.jsonl

For a run of the product's answer stage it also prints, from the same records, the stage before the
checks (`NAME:draft`) and each check alone (`NAME:program`: the program's checks without the confirming
reading, with the stems check for records made while it existed; `NAME:confirm`: the checks as they are
now, the confirming reading without the stems check), with the confirming reading's seconds taken off
where it is not used.

With `--parts` it prints, for those runs, how the confirming reading of a list's things (and, in records
made while it existed, of a computed answer's turns) would end under each rule, from the same records (`none`: not used; `about`: a turn it says is not about what
is asked makes the answer unsure; `both`: so does an item it says is not one of the things asked
for). These rows use the stored scores, so they work for `export_qa.py` records too.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from refind_desktop.eval.runner import last_records
from refind_desktop.eval.scoring import deterministic

DATASET = "longmemeval"


MODEL_CHECKS = ("confirm", "named")
"""The model stages of agent/earn.py: the confirming reading of the cited turn, the typed reading of the words."""


def abstain(rec: dict) -> bool:
    return bool(rec.get("abstention")) or rec.get("category") == 5


def confirm_seconds(rec: dict) -> float:
    """Seconds of the confirming readings (their own stages, "confirm" and "named", or the last call of a run
    made before they had one)."""
    calls = (rec.get("usage") or {}).get("per_call") or []
    own = [c["seconds"] for c in calls if c.get("stage") in MODEL_CHECKS]
    if own:
        return sum(own)
    v = rec.get("verdicts") or {}
    return (
        calls[-1]["seconds"]
        if calls and (v.get("about") is not None or v.get("answers") is not None)
        else 0.0
    )


def confirm_calls(rec: dict) -> int:
    calls = (rec.get("usage") or {}).get("per_call") or []
    own = sum(1 for c in calls if c.get("stage") in MODEL_CHECKS)
    if own:
        return own
    v = rec.get("verdicts") or {}
    return int(v.get("about") is not None or v.get("answers") is not None)


def variant(rec: dict, name: str) -> tuple[str, bool, float, int]:
    """(outcome, correct, seconds, calls) of a record as a variant of the answer stage would have ended."""
    usage = rec.get("usage") or {}
    seconds, calls = float(usage.get("total_seconds") or 0.0), int(usage.get("llm_calls") or 0)
    outcome, correct = rec.get("outcome", "answer"), bool(rec.get("det_correct"))
    if name == "final":
        return outcome, correct, seconds, calls
    drafted = outcome == "answer" or (
        outcome == "unsure" and rec.get("draft") and rec["draft"] != rec["answer"]
    )
    gold_ok = deterministic(rec.get("draft") or rec.get("answer", ""), rec.get("gold", ""), DATASET)[
        "det_correct"
    ]
    if not drafted:  # not found, or unsure from the closest turn: the same in every variant
        return outcome, correct, seconds - confirm_seconds(rec), calls - confirm_calls(rec)
    v = rec.get("verdicts") or {}
    if not v:  # no check ran (a suggestion): every variant ends as the run did
        return outcome, correct, seconds, calls
    if "compute" in (v.get("failed") or []):
        fails = {"draft": False, "program": True, "confirm": True}[name]
    else:
        typed, news = v.get("typed", True), v.get("news", True)
        stems = v.get("stems", True)  # records made while the stems check existed
        about, answers = v.get("about"), v.get("answers")
        fails = {
            "draft": False,
            "program": not typed or not news or not stems,
            "confirm": not typed or not news or v.get("named") is False or about is False or answers is False,
        }[name]
    if name in ("draft", "program"):
        seconds, calls = seconds - confirm_seconds(rec), calls - confirm_calls(rec)
    if name == "draft":
        fails = False
    if fails:
        return "unsure", False, seconds, calls
    return "answer", bool(gold_ok) and not abstain(rec), seconds, calls


def row(recs: list[dict], name: str) -> dict:
    outs = [variant(r, name) for r in recs]
    n = len(recs)
    right = sum(
        1
        for r, (o, ok, _, _) in zip(recs, outs, strict=True)
        if (o == "not_found" if abstain(r) else o == "answer" and ok)
    )
    wrong = sum(
        1 for r, (o, ok, _, _) in zip(recs, outs, strict=True) if o == "answer" and (abstain(r) or not ok)
    )
    secs = sorted(s for _, _, s, _ in outs)
    tokens = [int((r.get("usage") or {}).get("prompt_tokens") or 0) for r in recs]
    ev = [r["evidence_recall"] for r in recs if r.get("evidence_recall") is not None]
    return {
        "n": n,
        "right": right / n if n else 0.0,
        "wrong": wrong / n if n else 0.0,
        "unsure": sum(1 for o, *_ in outs if o == "unsure") / n if n else 0.0,
        "not_found": sum(1 for o, *_ in outs if o == "not_found") / n if n else 0.0,
        "false_not_found": sum(
            1 for r, (o, *_) in zip(recs, outs, strict=True) if o == "not_found" and not abstain(r)
        ),
        "evidence": statistics.mean(ev) if ev else None,
        "p50_s": secs[len(secs) // 2] if secs else None,
        "p90_s": secs[min(len(secs) - 1, int(0.9 * len(secs)))] if secs else None,
        "median_prompt": statistics.median(tokens) if tokens else None,
        "mean_calls": statistics.mean(c for *_, c in outs) if outs else None,
    }


PART_RULES = {
    "none": lambda parts: False,
    "about": lambda parts: any(a is False for a, _ in parts),
    "both": lambda parts: any(a is False or b is False for a, b in parts),
}


def part_scores(rec: dict, rule: str) -> tuple[float, float, float]:
    """(right, wrong, unsure) of one record had the computed answer's parts been judged by `rule`."""
    v = rec.get("verdicts") or {}
    failed = set(v.get("failed") or [])
    parts = v.get("parts") or []
    stated = float(rec.get("draft_right") or 0) + float(rec.get("draft_wrong") or 0)
    if not parts or failed - {"part"} or not stated:
        return float(rec.get("right") or 0), float(rec.get("wrong") or 0), float(rec.get("unsure") or 0)
    if PART_RULES[rule](parts):
        return 0.0, 0.0, 1.0
    return float(rec.get("draft_right") or 0), float(rec.get("draft_wrong") or 0), 0.0


def part_rows(name: str, recs: list[dict]) -> None:
    """The three part rules side by side for one run (aggregates only)."""
    n = len(recs) or 1
    checked = sum(1 for r in recs if (r.get("verdicts") or {}).get("parts"))
    for rule in PART_RULES:
        got = [part_scores(r, rule) for r in recs]
        right, wrong, unsure = (sum(g[i] for g in got) / n for i in range(3))
        print(f"| {name}:parts-{rule} | {len(recs)} | {right:.2f} | {wrong:.2f} | {unsure:.2f} | {checked} |")


def fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def variants_of_names(spec: str, runs: dict) -> list[str]:
    """The run names `--variants` lists that were given."""
    return [n for n in spec.split(",") if n in runs]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="NAME=path/to/qa-….jsonl")
    ap.add_argument("--variants", default="refind", help="runs whose draft and single checks are shown too")
    ap.add_argument("--by-type", action="store_true")
    ap.add_argument("--parts", action="store_true", help="the part-checking rules of computed answers")
    args = ap.parse_args()
    runs = {}
    for spec in args.runs:
        name, _, path = spec.partition("=")
        runs[name] = last_records(Path(path))
    common = set.intersection(*(set(r) for r in runs.values()))
    non_pref = {q for q in common if runs[next(iter(runs))][q].get("type") != "single-session-preference"}
    if args.parts:
        print("| rule | n | right | wrong | unsure | computed answers read |\n|---|---|---|---|---|---|")
        for subset_name, subset in (("non-preference", non_pref), ("all", common)):
            for name in variants_of_names(args.variants, runs):
                part_rows(f"{name} {subset_name}", [runs[name][q] for q in sorted(subset)])
        return 0
    print(f"{len(common)} questions answered by every run ({len(non_pref)} non-preference)")
    keys = [
        "n",
        "right",
        "wrong",
        "unsure",
        "not_found",
        "false_not_found",
        "evidence",
        "p50_s",
        "p90_s",
        "median_prompt",
        "mean_calls",
    ]
    print("| design | " + " | ".join(keys) + " |")
    print("|" + "---|" * (len(keys) + 1))
    variants_of = {n for n in args.variants.split(",") if n}

    def emit(label: str, recs: list[dict], how: str) -> None:
        r = row(recs, how)
        print(f"| {label} | " + " | ".join(fmt(r[k]) for k in keys) + " |")

    for subset_name, subset in (("non-preference", non_pref), ("all", common)):
        print(f"\n{subset_name}:")
        for name, recs in runs.items():
            chosen = [recs[q] for q in sorted(subset)]
            emit(name, chosen, "final")
            if name in variants_of:
                for how in ("draft", "program", "confirm"):
                    emit(f"{name}:{how}", chosen, how)
    if args.by_type:
        types = sorted({runs[next(iter(runs))][q].get("type") for q in common})
        for t in types:
            print(f"\ntype {t}:")
            qs = sorted(q for q in common if runs[next(iter(runs))][q].get("type") == t)
            for name, recs in runs.items():
                emit(name, [recs[q] for q in qs], "final")
                if name in variants_of:
                    emit(f"{name}:draft", [recs[q] for q in qs], "draft")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
