"""Replay the typed reading (agent/earn.py `named_prompt`) on recorded answers, aggregates only.

For each answer a run stated (its outcome, or the outcome with some checks off: `--off`, as
`checks_table.py` names them) whose single fact must be a person, a place or a thing of a named kind, the
typed reading of its words is read by the embedded model, the prompt rebuilt from the record, the set's
own index and the project's own functions (the cited item as `confirm_weights.py` finds it; a
missing one is counted in "answers", not in "read"). It prints
how many right and wrong answers it would make unsure, and no question, answer or id. Two variants
measured on the check halves (2026-12-06) and not built: `--words-only` reads the words without the
question; `--untyped` also reads the answers of lookups and latest values whose question asks for no
type ("What did I …"), asking whether the words name the thing the question asks for.

    python benchmarks/named_replay.py lme RECORDS.jsonl --data lme-check.json
    python benchmarks/named_replay.py export RECORDS.jsonl --data SET_FOLDER --home HOME
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from refind_desktop.eval.runner import last_records

HERE = Path(__file__).resolve().parent


def siblings():
    """checks_table.py and confirm_weights.py of this folder (scripts, not a package)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import checks_table
    import confirm_weights

    return checks_table, confirm_weights


UNTYPED = "the thing the question asks for"
"""What `--untyped` asks the words to name when the question asks for no type."""


def words_only_prompt(found, item) -> str:
    """The variant without the question: the typed reading's prompt less its first paragraph (the
    question, written on one line)."""
    from refind_desktop.agent.earn import named_prompt

    return named_prompt(found, item).split("\n\n", 1)[1]


def named_one(
    backend, svc, rec: dict, now, item, words_only: bool = False, untyped: bool = False
) -> dict | None:
    """The typed reading of one recorded answer's item: {"names": bool | None}, {"asked": False} when the
    question asks for no person, place or named kind (or is not a single fact), None without its turn.
    `untyped` also reads a lookup's or latest value's answer whose question asks for no type."""
    from refind_desktop.agent import prompts
    from refind_desktop.agent.earn import NAMED_SCHEMA, SINGLE, named_prompt
    from refind_desktop.llm.base import ChatMessage

    held = siblings()[1].rebuilt(svc, rec, now, item)
    if held is None:
        return None
    found, it, _ = held
    q = found.question
    typed = q.expects in ("person", "place", "kind") and q.kind in SINGLE
    if not typed and not (untyped and not q.expects and q.kind in ("lookup", "latest")):
        return {"asked": False}
    text = words_only_prompt(found, it) if words_only else named_prompt(found, it)
    if not typed:  # the question asks for no type: the words must name what it asks for
        text = text.replace("name ?", f"name {UNTYPED}?")
    comp = backend.complete(
        [ChatMessage("system", prompts.SYSTEM), ChatMessage("user", text)], schema=NAMED_SCHEMA, max_tokens=16
    )
    data = comp.data if isinstance(comp.data, dict) else {}
    return {"asked": True, "names": data.get("names")}


def summary(rows: list[dict]) -> dict:
    """Aggregates only: the answers read, and the right and wrong ones a "no" makes unsure."""
    asked = [r for r in rows if r.get("asked")]
    no = [r for r in asked if r.get("names") is False]
    return {
        "answers": len(rows),
        "read": len(asked),
        "unsure": {"right": sum(1 for r in no if r["right"]), "wrong": sum(1 for r in no if r["wrong"])},
        "kept": {
            "right": sum(1 for r in asked if r not in no and r["right"]),
            "wrong": sum(1 for r in asked if r not in no and r["wrong"]),
        },
    }


def main(argv: list[str] | None = None) -> int:
    checks_table, confirm_weights = siblings()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    confirm_weights.replay_arguments(ap)
    ap.add_argument("--off", default="", help="checks switched off, as checks_table.py: -null,-negated")
    ap.add_argument("--words-only", action="store_true", help="the variant without the question")
    ap.add_argument("--untyped", action="store_true", help="also the answers of questions asking no type")
    args = ap.parse_args(argv)

    from refind_desktop.config import load_settings
    from refind_desktop.llm.factory import make_backend

    spec = [c for c in args.off.split(",") if c]
    stated = []
    for rec in last_records(args.records).values():
        if rec.get("type") == "single-session-preference":
            continue
        outcome, right, wrong, *_ = checks_table.ended(rec, spec)
        if outcome == "answer":
            stated.append({**rec, "right": right, "wrong": wrong})
    backend = make_backend(load_settings(), "llama")

    def read(backend, svc, rec, now, item, calibrate=False):
        return named_one(backend, svc, rec, now, item, args.words_only, args.untyped)

    if args.kind == "lme":
        rows = confirm_weights.lme_rows(backend, stated, args.data, read=read)
    else:
        home = args.home or args.records.parent
        rows = confirm_weights.export_rows(backend, stated, args.data, home, read=read)
    json.dump(summary(rows), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
