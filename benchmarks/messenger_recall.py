"""Single-shot recall on messenger exports, per conversation rule and speaker weight: no model.

Reads a folder of messenger exports with its `questions.json` (the `refind-export-questions/1` files
that `benchmarks/messenger_export.py` writes: evidence named by file, time, sender and text), ingests
the folder through the normal readers into a fresh home per rule, and for every question that has
evidence and is not an abstention asks the search engine for the question's words: recall@K is the
share of questions with an evidence message among the top K ranked turns (context 0), `all@K` the
share with every evidence message there. It also prints how the chats were cut (conversations, the
largest one) and the ingest's wall time per rule.

`--retime dense` first rewrites each WhatsApp `_chat.txt` into a busier life (two sittings a day,
morning and evening, a late one running past midnight now and then, and one reply in twelve coming
20 minutes to 2.5 hours late), keeping every message's text and order: the stress case for the
rule, where a day holds two talks and a talk crosses midnight. Each rule's cuts are then scored
against the sittings the export was written from (a pause of more than 12 hours in the original file
separates two sittings): `cut P` is the share of its cuts that fall between sittings, `cut R` the
share of sitting boundaries it cuts.

Rules: `whole` (one session per chat: the reading before conversations), `day` (a new calendar day),
`gap:N` (a pause of N hours), `day|gap:N` (either), `gap:N+night:M` (a pause of N hours, or of M
hours across midnight). The same script runs on code without conversations (rules other than
`whole` then change nothing, and are reported as such).

    python benchmarks/messenger_recall.py /tmp/locomo-exports/whatsapp --rules whole,gap:4 --weights 0,2
    python benchmarks/messenger_recall.py /tmp/locomo-exports/whatsapp --retime dense --rules 'day,gap:4,day|gap:4'
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import re
import shutil
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from refind_desktop.config import Settings
from refind_desktop.locations import Paths
from refind_desktop.services import build_services

_STAMP = re.compile(r"^(\u200e?)\[(\d+)/(\d+)/(\d+), (\d+):(\d+):(\d+)\u202f([AP]M)\] ")


def rule_hours(rule: str) -> tuple[float, float]:
    """(gap hours, night gap hours) of a rule name; negative = that part off."""
    if rule == "whole":
        return -1.0, -1.0
    if rule == "day":
        return -1.0, 0.0
    if rule.startswith("day|gap:"):
        return float(rule.split(":")[1]), 0.0
    m = re.fullmatch(r"gap:([\d.]+)(?:\+night:([\d.]+))?", rule)
    if m is None:
        raise SystemExit(f"unknown rule {rule!r}")
    return float(m.group(1)), float(m.group(2)) if m.group(2) else -1.0


def settings_for(rule: str, tz: str) -> Settings:
    gap, night = rule_hours(rule)
    names = {f.name for f in dataclasses.fields(Settings)}
    kw: dict = {"timezone": tz}
    if "conversation_gap_hours" in names:
        kw |= {"conversation_gap_hours": gap, "conversation_night_gap_hours": night}
    return Settings(**kw)


def _parse_stamp(m: re.Match) -> datetime:
    month, day, year, hour, minute, second = (int(m.group(i)) for i in range(2, 8))
    hour = hour % 12 + (12 if m.group(8) == "PM" else 0)
    return datetime(2000 + year, month, day, hour, minute, second)


def _stamp(when: datetime) -> str:
    hour = when.hour % 12 or 12
    half = "AM" if when.hour < 12 else "PM"
    return f"[{when.month}/{when.day}/{when.year % 100:02d}, {hour}:{when.minute:02d}:{when.second:02d}\u202f{half}] "


def retime(src: Path, dst: Path, questions: dict, seed: int) -> dict[str, list[int]]:
    """Rewrite the WhatsApp files of `src` into `dst` with dense times; update the evidence times.

    Returns, per file, the message numbers that open a sitting of the original (ground truth).
    """
    rng = random.Random(seed)
    moved: dict[tuple[str, str], str] = {}
    truth: dict[str, list[int]] = {}
    for chat in sorted(src.rglob("_chat.txt")):
        rel = str(chat.relative_to(src))
        lines = chat.read_text(encoding="utf-8").splitlines()
        out: list[str] = []
        prev_old: datetime | None = None
        clock: datetime | None = None
        sitting = -1
        pending = False
        starts: list[int] = []
        n_msg = -1
        for line in lines:
            m = _STAMP.match(line)
            if m is None:
                out.append(line)
                continue
            old = _parse_stamp(m)
            is_message = not m.group(1)  # the encryption notice and attachments open with U+200E
            if prev_old is None or (old - prev_old) > timedelta(hours=12):
                sitting += 1
                day = datetime(2023, 3, 13) + timedelta(days=sitting // 2)  # day > 12: month-first is clear
                if sitting % 2 == 0:
                    clock = day.replace(hour=rng.randint(8, 11), minute=rng.randint(0, 59))
                elif rng.random() < 0.25:  # a late talk that runs past midnight
                    clock = day.replace(hour=23, minute=rng.randint(20, 50))
                else:
                    clock = day.replace(hour=rng.randint(18, 21), minute=rng.randint(0, 59))
                pending = True
            else:
                step = old - prev_old
                if is_message and rng.random() < 1 / 12:
                    step = timedelta(minutes=rng.randint(20, 150))
                clock = clock + step
            prev_old = old
            if is_message:
                n_msg += 1
                moved[(rel, old.isoformat())] = clock.isoformat()
                if pending:
                    starts.append(n_msg)
                    pending = False
            out.append(m.group(1) + _stamp(clock) + line[m.end() :])
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\r\n".join(out), encoding="utf-8")
        truth[rel] = starts
    for q in questions["questions"]:
        for ev in q["evidence"]:
            ev["timestamp"] = moved.get((ev["file"], ev["timestamp"]), ev["timestamp"])
    return truth


def evaluate(
    folder: Path,
    questions: dict,
    rule: str,
    weight: float | None,
    ks: tuple[int, ...],
    with_abstain: bool = False,
) -> dict:
    tz = questions.get("timezone") or "UTC"
    home = Path(tempfile.mkdtemp(prefix="refind-recall-"))
    try:
        svc = build_services(settings_for(rule, tz), Paths.under(home))
        t0 = time.perf_counter()
        svc.ingestor.ingest([folder])
        ingest_s = time.perf_counter() - t0
        sessions = list(svc.catalog.session_infos())
        opts = svc.search_options(context_window=0, top_k=max(ks))
        if weight is not None:
            if not hasattr(opts, "speaker_weight"):
                raise SystemExit("this code has no speaker weight; leave --weights out")
            opts = opts.with_(speaker_weight=weight)
        hits = {k: 0 for k in ks}
        every = {k: 0 for k in ks}
        share = {k: 0.0 for k in ks}
        n = 0
        for q in questions["questions"]:
            if (q.get("abstain") and not with_abstain) or not q["evidence"]:
                continue
            n += 1
            want = [(e["timestamp"], e["text"]) for e in q["evidence"]]
            blocks = svc.engine.search(q["question"], options=opts)
            ranked = [
                (t.timestamp.astimezone(timezone.utc).replace(tzinfo=None).isoformat(), t.text)
                for b in blocks
                for t in b.turns
                if t.turn in b.hit_turns
            ]
            for k in ks:
                found = [any(_same(e, r) for r in ranked[:k]) for e in want]
                hits[k] += any(found)
                every[k] += all(found)
                share[k] += sum(found) / len(found)
        svc.close()
        return {
            "rule": rule,
            "speaker_weight": weight,
            "questions": n,
            **{f"recall@{k}": round(hits[k] / max(n, 1), 4) for k in ks},
            **{f"all@{k}": round(every[k] / max(n, 1), 4) for k in ks},
            **{f"share@{k}": round(share[k] / max(n, 1), 4) for k in ks},
            "sessions": len(sessions),
            "largest_session": max((s.turns for s in sessions), default=0),
            "ingest_s": round(ingest_s, 2),
            "_cuts": _cuts(svc, sessions),
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _same(evidence: tuple[str, str], turn: tuple[str, str]) -> bool:
    """The turn is the evidence message: same time, and its text (a reader may add a media marker
    line such as Telegram's `[photo]`)."""
    return evidence[0] == turn[0] and (turn[1] == evidence[1] or turn[1].startswith(evidence[1] + "\n"))


def _cuts(svc, sessions) -> dict[str, list[str]]:
    """Per source file, the first-turn times of its sessions (to score the cuts)."""
    out: dict[str, list[str]] = {}
    for s in sessions:
        if s.started_at is not None:
            out.setdefault(s.source, []).append(s.started_at.replace(tzinfo=None).isoformat())
    return out


def boundary_scores(folder: Path, truth: dict[str, list[int]], cuts: dict[str, list[str]]) -> dict:
    """Precision / recall of the rule's cuts against the original sittings (by message number)."""
    tp = fp = fn = 0
    for rel, starts in truth.items():
        path = str((folder / rel).resolve())
        times = []
        for line in (folder / rel).read_text(encoding="utf-8").splitlines():
            m = _STAMP.match(line)
            if m and not m.group(1):
                times.append(_parse_stamp(m).isoformat())
        index = {t: i for i, t in reversed(list(enumerate(times)))}
        got = {index[t] for t in cuts.get(path, []) if t in index} - {0}
        want = set(starts) - {0}
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
    return {
        "cut_precision": round(tp / max(tp + fp, 1), 4),
        "cut_recall": round(tp / max(tp + fn, 1), 4),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="export folder holding questions.json")
    ap.add_argument("--rules", default="whole,gap:4", help="rules separated by commas")
    ap.add_argument("--weights", default="", help="speaker weights to try, e.g. 0,0.25,0.5,1")
    ap.add_argument("--retime", choices=("dense",), default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument(
        "--with-abstain",
        action="store_true",
        help="also score the questions whose gold is to abstain (as `refind eval retrieval` does)",
    )
    args = ap.parse_args(argv)
    questions = json.loads((args.folder / "questions.json").read_text(encoding="utf-8"))
    folder = args.folder
    truth: dict[str, list[int]] = {}
    tmp = None
    if args.retime:
        tmp = Path(tempfile.mkdtemp(prefix="refind-retimed-"))
        truth = retime(args.folder, tmp, questions, args.seed)
        folder = tmp
    rules = [r for r in args.rules.split(",") if r]
    weights: list[float | None] = [float(w) for w in args.weights.split(",") if w] or [None]
    rows = []
    print(
        f"{'rule':<16} {'weight':>6} {'n':>4} {'r@5':>6} {'r@10':>6} {'all@10':>6} {'sh@5':>6} {'sh@10':>6} "
        f"{'sessions':>8} {'largest':>7} {'ingest s':>8} {'cut P':>6} {'cut R':>6}"
    )
    for rule in rules:
        for w in weights:
            row = evaluate(folder, questions, rule, w, (5, 10), args.with_abstain)
            cuts = row.pop("_cuts")
            if truth:
                row |= boundary_scores(folder, truth, cuts)
            rows.append(row)
            print(
                f"{rule:<16} {'' if w is None else w:>6} {row['questions']:>4} {row['recall@5']:>6.3f} "
                f"{row['recall@10']:>6.3f} {row['all@10']:>6.3f} {row['share@5']:>6.3f} {row['share@10']:>6.3f} "
                f"{row['sessions']:>8} "
                f"{row['largest_session']:>7} {row['ingest_s']:>8.2f} "
                f"{row.get('cut_precision', float('nan')):>6.3f} {row.get('cut_recall', float('nan')):>6.3f}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
