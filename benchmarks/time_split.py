"""Where a run's model time goes, stage by stage, from the per-call usage its records keep.

Reads `refind eval qa` or `export_qa.py` records and prints ONLY aggregates (never a question, an answer
or an id), so it is safe on the check half:

    python benchmarks/time_split.py default=runs/d/qa-….jsonl reader=runs/r/qa-….jsonl [--all]

For each run and model stage ("controller": the relevance calls; "answer": the readings; "confirm" and
"named": the checks): calls per question, new prompt tokens (those the model's cache did not hold) and
generated tokens per call, seconds per call and per question, and the stage's share of the model's
seconds. Then the run's own rates, fitted over all its calls by least squares (seconds = a × new prompt
tokens + b × generated tokens): what one more token of each kind costs on the machine that made the run.
Calls decoded together (a "batch" in their record: the readings of a question that reads all its
passages) share their batch's seconds evenly; they count in their stage's seconds, and a stage that has
them says how many calls a batch held on average. The rates are fitted over the calls made alone.
Preference questions are left out unless --all.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from refind_desktop.eval.runner import last_records


def calls(recs: list[dict]) -> list[dict]:
    """Every model call of the records, in order (`eval qa` records keep them under "usage",
    `export_qa.py` records at the top)."""
    return [c for r in recs for c in ((r.get("usage") or r).get("per_call") or [])]


def new_tokens(call: dict) -> int:
    """The prompt tokens of a call its model's cache did not hold (all of them where not recorded)."""
    return int(call.get("reprocessed_prompt_tokens", call.get("prompt_tokens", 0)))


def stages(recs: list[dict]) -> list[dict]:
    """One row per model stage, in the order the stages first appear."""
    n = len(recs) or 1
    by: dict[str, list[dict]] = defaultdict(list)
    for c in calls(recs):
        by[c.get("stage") or "?"].append(c)
    total = sum(c["seconds"] for cs in by.values() for c in cs) or 1.0
    rows = []
    for stage, cs in by.items():
        k = len(cs)
        secs = sum(c["seconds"] for c in cs)
        rows.append(
            {
                "stage": stage,
                "calls_per_q": k / n,
                "new_prompt": sum(new_tokens(c) for c in cs) / k,
                "generated": sum(c["completion_tokens"] for c in cs) / k,
                "s_per_call": secs / k,
                "s_per_q": secs / n,
                "share": secs / total,
                "batch": sum(c.get("batch", 0) for c in cs) / max(1, sum(1 for c in cs if c.get("batch"))),
            }
        )
    return rows


def rates(recs: list[dict]) -> tuple[float, float] | None:
    """(seconds per new prompt token, seconds per generated token) fitted over the calls made alone, or
    None."""
    sxx = sxy = syy = sx = sy = 0.0
    for c in calls(recs):
        if c.get("batch"):
            continue
        p, g, s = float(new_tokens(c)), float(c["completion_tokens"]), float(c["seconds"])
        sxx, sxy, syy, sx, sy = sxx + p * p, sxy + p * g, syy + g * g, sx + p * s, sy + g * s
    det = sxx * syy - sxy * sxy
    if det <= 0:
        return None
    return (sx * syy - sy * sxy) / det, (sy * sxx - sx * sxy) / det


def batched(row: dict) -> str:
    """ " (batches of 5.2)" for a stage whose calls were decoded together, else ""."""
    return f" (batches of {row['batch']:.1f})" if row["batch"] else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="NAME=path/to/records.jsonl")
    ap.add_argument("--all", action="store_true", help="keep the preference questions")
    args = ap.parse_args(argv)
    print(
        "| run | stage | calls a question | new prompt tokens a call | generated a call | s a call | s a question | share |"
    )
    print("|---|---|---|---|---|---|---|---|")
    fitted = []
    for spec in args.runs:
        name, _, path = spec.partition("=")
        recs = [
            r
            for r in last_records(Path(path)).values()
            if args.all or r.get("type") != "single-session-preference"
        ]
        for s in stages(recs):
            print(
                f"| {name} ({len(recs)}) | {s['stage']}{batched(s)} | {s['calls_per_q']:.2f} | {s['new_prompt']:.0f} | "
                f"{s['generated']:.1f} | {s['s_per_call']:.2f} | {s['s_per_q']:.1f} | {s['share']:.2f} |"
            )
        fitted.append((name, rates(recs)))
    for name, r in fitted:
        if r is None or min(r) <= 0:
            print(f"\n{name}: the rates cannot be fitted from these calls")
        else:
            a, b = r
            print(
                f"\n{name}: {a:.4f} s a new prompt token ({1 / a:.0f} tokens/s), "
                f"{b:.4f} s a generated token ({1 / b:.1f} tokens/s)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
