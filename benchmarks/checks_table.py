"""How a run's answers would have ended had some of its checks been off, from the run's own records.

Every check of agent/earn.py is recorded in a record's verdicts, so one run of the answer stage gives
the outcome of each set of checks: a record whose failed checks are all switched off ends as its draft
did (`draft_right` / `draft_wrong`). Prints ONLY aggregates (never a question, an answer or an id), so
it is safe on the check half. Works on `refind eval qa` records and on `export_qa.py` records.

    python benchmarks/checks_table.py RECORDS.jsonl "now=" "no-confirm=-about,-answers" "before=-names"

A variant is NAME=a comma-separated list of checks switched off (-CHECK, as a record's `failed` names
them: the checks of agent/earn.py, and what the program cannot settle about a computed answer,
`whole`, `sum`, `one`, `pair`, `unnamed`: agent/answerers/base.py `Composed.unsettled`). `-names` gives the
rule before a turn that names the thing asked about made the outcome unsure rather than "not in your
history". Seconds and calls of a model stage no remaining check uses are taken
off where the records list each call (the confirming reading: stage "confirm"; the typed reading of the
answer's words: "named"; "slot": the extracting
reading that was measured in stop 41 and removed).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from refind_desktop.eval.runner import last_records

STAGE = {"about": "confirm", "answers": "confirm", "named": "named", "slot": "slot"}
"""The model stage behind a check (a check without one costs no call)."""


def load(path: Path) -> list[dict]:
    """The last record of each question (a harness appends; the last one wins), preference questions left
    out (their gold is a description, not an answer)."""
    return [r for r in last_records(path).values() if r.get("type") != "single-session-preference"]


def off(spec: list[str]) -> set[str]:
    """The checks `spec` switches off."""
    return {c[1:] for c in spec if c.startswith("-")}


def unused_stages(rec: dict, switched: set[str]) -> set[str]:
    """The model stages a variant would not have run for this record."""
    stages = {STAGE[c] for c in switched if c in STAGE}
    still = {stage for c, stage in STAGE.items() if c not in switched}
    return stages - still


def ended(rec: dict, spec: list[str]) -> tuple[str, float, float, float | None, float, int]:
    """(outcome, right, wrong, gold items, seconds, calls) of a record under a variant."""
    v = rec.get("verdicts") or {}
    failed = set(v.get("failed") or [])
    switched = off(spec)
    usage = rec.get("usage") or {}
    seconds = float(usage.get("total_seconds") or rec.get("seconds") or 0.0)
    calls = int(usage.get("llm_calls") or rec.get("llm_calls") or 0)
    gone = unused_stages(rec, switched)
    for c in usage.get("per_call") or rec.get("per_call") or []:
        if c.get("stage") in gone:
            seconds -= float(c.get("seconds") or 0.0)
            calls -= 1
    gold = rec.get("gold_items")
    if "names" in switched and v.get("names") and v.get("spoken") is False:  # the rule before "names"
        none = bool(rec.get("abstention") or rec.get("abstain"))  # "not in your history" is the gold
        return "not_found", float(none), 0.0, float(none) if gold is not None else None, seconds, calls
    if failed and not failed - switched and "compute" not in failed:
        return "answer", rec["draft_right"], rec["draft_wrong"], rec.get("draft_gold_items"), seconds, calls
    if not failed or rec.get("outcome") != "answer":
        return rec["outcome"], rec["right"], rec["wrong"], gold, seconds, calls
    return "unsure", 0.0, 0.0, 0.0 if gold is not None else None, seconds, calls


def row(recs: list[dict], spec: list[str]) -> str:
    got = [ended(r, spec) for r in recs]
    n = len(got) or 1
    secs = sorted(g[4] for g in got)
    gold = [g[3] for g in got if g[3] is not None]
    fnf = sum(
        1
        for r, g in zip(recs, got, strict=True)
        if g[0] == "not_found" and not (r.get("abstention") or r.get("abstain"))
    )
    cells = [
        len(got),
        sum(g[1] for g in got) / n,
        sum(g[2] for g in got) / n,
        sum(g[0] == "unsure" for g in got) / n,
        sum(g[0] == "not_found" for g in got) / n,
        fnf,
        statistics.mean(gold) if gold else None,
        secs[len(secs) // 2] if secs else None,
        secs[min(len(secs) - 1, int(0.9 * len(secs)))] if secs else None,
        statistics.mean(g[5] for g in got) if got else None,
    ]
    return " | ".join("-" if c is None else f"{c:.2f}" if isinstance(c, float) else str(c) for c in cells)


def main(argv: list[str]) -> int:
    recs = load(Path(argv[0]))
    print(
        "| variant | n | right | wrong | unsure | not found | false not found | gold items | p50 s | p90 s | calls |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in argv[1:]:
        name, _, checks = spec.partition("=")
        print(f"| {name} | {row(recs, [c for c in checks.split(',') if c])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
