"""Replay the confirming reading of recorded answers and weigh it.

For each answer of an eval run whose single fact the confirming reading judged, the same prompt (rebuilt
from the record, the set's own index and the project's own functions) is read again by the embedded model
with the log-probabilities of its tokens, giving P("true") at "about" and at "answers". It prints only
aggregates: how many replays gave the recorded verdicts, and for each cut-off how many right and wrong
answers the rule "P(answers) below the cut-off: unsure" would turn unsure. Per-record rows (ids, verdicts,
weights, outcome; no question or answer text) go to --rows.

    python benchmarks/confirm_weights.py lme RECORDS.jsonl --data lme-work.json --rows rows.jsonl
    python benchmarks/confirm_weights.py export RECORDS.jsonl --data SET_FOLDER --home HOME
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC
from pathlib import Path


def yes_weight(tokens: list, name: str) -> float | None:
    """P("true") at the value of the boolean field `name` of a JSON reply: the probability of the tokens
    that begin "true" against those that begin "false", among the alternatives the model weighed at the
    value's first token (`Completion.tokens`). None when the tokens are unknown or lack the field."""
    import math
    import re

    key = re.compile(rf'"{re.escape(name)}"\s*:\s*$')

    def mass(top: dict[str, float], word: str) -> float:
        return sum(
            math.exp(lp)
            for t, lp in top.items()
            if (s := t.strip()) and (word.startswith(s) or s.startswith(word))
        )

    text = ""
    for tc in tokens:
        if key.search(text) and tc.token.strip():
            yes, no = mass(tc.top, "true"), mass(tc.top, "false")
            return yes / (yes + no) if yes + no > 0 else None
        text += tc.token
    return None


def read_items(rec: dict) -> list[tuple[str, int, str]]:
    """(session, turn, words) of every item read, in reading order."""
    out = []
    for ev in rec.get("trajectory", []):
        if ev.get("type") == "read":
            out += [(ev["session_id"], int(it["turn"]), it["words"]) for it in ev.get("items", [])]
    return out


def cited(rec: dict) -> tuple[str, int, str] | None:
    """The item the confirming reading read: the first item of the first cited turn (by the record's
    citations, else the first turn whose item's words the answer holds)."""
    from refind_desktop.agent.answerers.base import shown

    items = read_items(rec)
    refs = [(c["session_id"], int(c["turn"])) for c in rec.get("citations") or []]
    if not refs:
        draft = rec.get("draft") or rec.get("answer") or ""
        refs = [(s, t) for s, t, w in items if shown(w) in draft][:1]
    for s, t, w in items:
        if (s, t) in refs[:1]:
            return s, t, w
    return None


def cited_in_export(svc, rec: dict) -> tuple[str, int, str] | None:
    """An export run keeps no trace: the cited turn is the first tag's turn, in the noted chat whose
    turn holds most of the words before the tag, and the item's words are those words (the confirming
    reading is shown only the words its turn holds)."""
    import re

    from refind_desktop.lang import tokens

    draft = rec.get("draft") or ""
    tag = re.search(r"\[S\d+ T(\d+)\]", draft)
    if tag is None:
        return None
    turn = int(tag.group(1))
    words = re.sub(r"\([^)]*\)\s*$", "", draft[: tag.start()].strip()).strip()
    mine = {t.lower() for t in tokens(words)}
    best, held = None, 0
    for session, _, _ in rec.get("noted") or []:
        view = next((v for v in svc.engine.turns_of(session) if v.turn == turn), None)
        if view is None:
            continue
        n = len(mine & {t.lower() for t in tokens(view.text)})
        if n > held:
            best, held = (session, turn, words), n
    return best


def rebuilt(svc, rec: dict, now, item: tuple[str, int, str]):
    """(found, item, turn view) as the answer stage held them for a recorded answer's `item`: the question
    understood again, the item over its turn's text from the set's index; None when the turn is gone."""
    from refind_desktop.agent.answerers.base import Found
    from refind_desktop.agent.question import understand
    from refind_desktop.agent.reading import Item

    session, turn, words = item
    view = next((v for v in svc.engine.turns_of(session) if v.turn == turn), None)
    if view is None:
        return None
    q = understand(rec["question"], now, UTC, svc.engine.language())
    it = Item((session, turn), words, None, "", None, None, 0, text=view.text)
    return Found(q, [it], 0, now, UTC, None), it, view


def replay(backend, svc, rec: dict, now, item: tuple[str, int, str], calibrate: bool = False) -> dict | None:
    """One confirming reading of `item`, as the answer stage asks it, with its weights; with `calibrate`,
    also the same reading with the turn's text taken away ("N/A")."""
    from refind_desktop.agent import prompts
    from refind_desktop.agent.earn import CONFIRM_SCHEMA, confirm_prompt
    from refind_desktop.agent.render import neutralise
    from refind_desktop.llm.base import ChatMessage

    held = rebuilt(svc, rec, now, item)
    if held is None:
        return None
    found, it, view = held
    real = confirm_prompt(found, it, view.speaker)

    def weigh(prompt: str):
        messages = [ChatMessage("system", prompts.SYSTEM), ChatMessage("user", prompt)]
        return backend.complete(messages, schema=CONFIRM_SCHEMA, max_tokens=24, logprobs=5)

    comp = weigh(real)
    data = comp.data if isinstance(comp.data, dict) else {}
    got = {
        "about": data.get("about"),
        "answers": data.get("answers"),
        "p_about": yes_weight(comp.tokens, "about"),
        "p_answers": yes_weight(comp.tokens, "answers"),
    }
    if calibrate:  # the turn as confirm_prompt shows it (earn.judging cuts it at 900 characters)
        shown_turn = prompts.turn_text(view.speaker, neutralise(it.text, 900))
        blank = real.replace(shown_turn, prompts.turn_text(view.speaker, "N/A"), 1)
        if blank != real:
            null = weigh(blank)
            got["p_about_blank"] = yes_weight(null.tokens, "about")
            got["p_answers_blank"] = yes_weight(null.tokens, "answers")
    return got


def row(rec: dict, got: dict | None) -> dict:
    """One replay's row: no question or answer text."""
    v = rec.get("verdicts") or {}
    return {
        "qid": rec["qid"],
        "kind": rec.get("type") or rec.get("kind") or rec.get("category"),
        "outcome": rec.get("outcome"),
        "right": rec.get("right"),
        "wrong": rec.get("wrong"),
        "failed": v.get("failed"),
        "rec_about": v.get("about"),
        "rec_answers": v.get("answers"),
        **(got or {"missing": True}),
    }


def lme_rows(backend, records: list[dict], data: Path, calibrate: bool = False, read=None) -> list[dict]:
    """Replays over LongMemEval records (one fresh index per question, as `eval qa` builds it); `read`:
    the replay of one item (`replay`, the confirming reading, unless another script gives its own)."""
    from refind_desktop.cli.evalcmd import services_factory
    from refind_desktop.eval.datasets import load_units
    from refind_desktop.eval.runner import unit_services

    want = {r["qid"]: r for r in records}
    rows = []
    for unit in load_units("longmemeval", data):
        for q in unit.questions:
            rec = want.get(q.qid)
            if rec is None:
                continue
            item = cited(rec)
            if item is None:
                rows.append(row(rec, None))
                continue
            with unit_services(unit, "longmemeval", services_factory()) as svc:
                rows.append(row(rec, (read or replay)(backend, svc, rec, q.date, item, calibrate)))
    return rows


def export_rows(
    backend, records: list[dict], folder: Path, home: Path, calibrate: bool = False, read=None
) -> list[dict]:
    """Replays over an export set's records, on the index the run left in `home` (`read`: as `lme_rows`)."""
    from refind_desktop.cli.evalcmd import services_factory
    from refind_desktop.eval.exportqa import _aware
    from refind_desktop.eval.exportset import load_set

    nows = {q.qid: _aware(q.now) for q in load_set(folder).questions}
    svc = services_factory()(home)
    rows = []
    try:
        for rec in records:
            item = cited_in_export(svc, rec)
            got = (read or replay)(backend, svc, rec, nows[rec["qid"]], item, calibrate) if item else None
            rows.append(row(rec, got))
    finally:
        svc.close()
    return rows


def summary(rows: list[dict], cuts: list[float]) -> dict:
    """Aggregates only."""
    done = [r for r in rows if not r.get("missing")]
    same = sum(1 for r in done if (r["about"], r["answers"]) == (r["rec_about"], r["rec_answers"]))
    passed = [r for r in done if r["outcome"] == "answer"]
    out: dict = {
        "replayed": len(done),
        "missing": len(rows) - len(done),
        "same_verdicts": same,
        "answers_judged": len(passed),
        "right": sum(1 for r in passed if r["right"]),
        "wrong": sum(1 for r in passed if r["wrong"]),
    }
    for cut in cuts:
        low = [r for r in passed if r["p_answers"] is not None and r["p_answers"] < cut]
        out[f"below {cut}"] = {
            "right": sum(1 for r in low if r["right"]),
            "wrong": sum(1 for r in low if r["wrong"]),
        }
    return out


def replay_arguments(ap: argparse.ArgumentParser) -> None:
    """The arguments of a replay over recorded answers: the set's kind, the records, the set, its index."""
    ap.add_argument("kind", choices=("lme", "export"))
    ap.add_argument("records", type=Path, help="an eval run's .jsonl records")
    ap.add_argument("--data", type=Path, required=True, help="the LongMemEval file, or the export set folder")
    ap.add_argument("--home", type=Path, help="export sets: the home the run left (its index)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    replay_arguments(ap)
    ap.add_argument("--cuts", type=float, nargs="*", default=[0.6, 0.7, 0.8, 0.9])
    ap.add_argument("--rows", type=Path, help="write per-record rows (no question text) here")
    ap.add_argument("--calibrate", action="store_true", help="also read each turn's prompt without its text")
    args = ap.parse_args(argv)

    from refind_desktop.config import load_settings
    from refind_desktop.llm.factory import make_backend

    records = [json.loads(line) for line in args.records.open(encoding="utf-8") if line.strip()]
    judged = [r for r in records if (r.get("verdicts") or {}).get("about") is not None]
    backend = make_backend(load_settings(), "llama")  # the embedded model: it tells log-probabilities
    if args.kind == "lme":
        rows = lme_rows(backend, judged, args.data, args.calibrate)
    else:
        rows = export_rows(backend, judged, args.data, args.home or args.records.parent, args.calibrate)
    if args.rows:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    json.dump(summary(rows, args.cuts), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
