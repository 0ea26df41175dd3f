"""Where answers are lost: the turn that holds the answer not found, found but never read, or read and
still not answered right, from the records of one `refind eval qa` run. Prints ONLY aggregates (never a
question, an answer or an id), so it is safe on the check half.

    python benchmarks/evidence_read.py RECORDS.jsonl --data FILE [--by-type]

FILE is the LongMemEval file the run asked (its `has_answer` turns, mapped to the index's turns by the
project's own loader: `EvalQuestion.evidence_refs`). A record's read events list the turns each reading
was shown; its note events the results the searches kept. Preference questions (their gold is a
description) and questions whose answer is not in the history are left out, as are questions without an
evidence turn. Each question falls in one row:

- **read**: an answer turn was among the turns a reading was shown; then how many of those drafts were
  right, and how many ended right and wrong;
- **noted, not read**: a result the searches kept comes from an answer session, but no reading was shown
  an answer turn (`session read`: a reading showed other turns of that session);
- **not noted**: no kept result comes from an answer session.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROWS = ("read", "noted, not read: session read", "noted, not read: session unread", "not noted")


def evidence(data: Path) -> dict[str, set[tuple[str, int]]]:
    """Each question's answer turns as (session id, turn index), by the project's own loader."""
    from refind_desktop.eval.datasets import load_units

    return {q.qid: set(q.evidence_refs) for u in load_units("longmemeval", data) for q in u.questions}


def where(rec: dict, gold: set[tuple[str, int]]) -> str:
    """The row a question falls in (see the module docstring)."""
    events = rec.get("trajectory") or []
    reads = [e for e in events if e.get("type") == "read"]
    shown = {(e["session_id"], t) for e in reads for t in e.get("turns") or []}
    if gold & shown:
        return ROWS[0]
    sessions = {s for s, _ in gold}
    kept = {x["session_id"] for e in events if e.get("type") == "note" for x in e.get("saved") or []}
    if not sessions & kept:
        return ROWS[3]
    return ROWS[1] if any(e["session_id"] in sessions for e in reads) else ROWS[2]


def table(recs: list[dict], gold: dict[str, set[tuple[str, int]]]) -> list[str]:
    """The Markdown rows of one group of records."""
    count: Counter = Counter()
    for rec in recs:
        row = where(rec, gold[rec["qid"]])
        count[row] += 1
        for key in ("draft_right", "right", "wrong"):
            count[row, key] += float(rec.get(key) or 0.0)
    n = sum(count[r] for r in ROWS)
    lines = [f"| all | {n} | - | - | - | - |"]
    for r in ROWS:
        lines.append(
            f"| {r} | {count[r]} | {count[r] / n if n else 0:.2f} | {count[r, 'draft_right']:.0f} | "
            f"{count[r, 'right']:.0f} | {count[r, 'wrong']:.0f} |"
        )
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", type=Path)
    ap.add_argument("--data", type=Path, required=True, help="the LongMemEval file the run asked")
    ap.add_argument("--by-type", action="store_true", help="one table per question type too")
    args = ap.parse_args(argv)
    from refind_desktop.eval.runner import last_records

    gold = evidence(args.data)
    recs = [
        r
        for r in last_records(args.records).values()
        if r.get("type") != "single-session-preference" and not r.get("abstention") and gold.get(r["qid"])
    ]
    if recs and not any(r.get("trajectory") for r in recs):
        print("these records keep no trajectory (export_qa.py records): nothing to tell", file=sys.stderr)
        return 2
    groups = {"all questions": recs}
    if args.by_type:
        for t in sorted({r.get("type", "?") for r in recs}):
            groups[f"type {t}"] = [r for r in recs if r.get("type") == t]
    for name, group in groups.items():
        print(f"\n{name}:")
        print("| where the answer turn is | questions | share | drafts right | right | wrong |")
        print("|---|---|---|---|---|---|")
        print("\n".join(table(group, gold)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
