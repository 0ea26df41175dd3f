"""Draw the dev split once (`refind_desktop/eval/split.py`) and write `benchmarks/splits.json`.

Reads only the keys and question types of each set (no question, answer or chat text), and prints
only counts. Run once; the file is committed and never redrawn:

    python benchmarks/make_splits.py --lme A.json.gz --lme B.json.gz --locomo L.json.gz --de benchmarks/sets/de
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from refind_desktop.eval.split import SEED, SPLITS_FILE, draw, read_json


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lme", type=Path, action="append", default=[])
    ap.add_argument("--locomo", type=Path)
    ap.add_argument("--de", type=Path)
    ap.add_argument("--out", type=Path, default=SPLITS_FILE)
    args = ap.parse_args()
    sets: dict[str, dict[str, str]] = {}
    lme = [(q["question_id"], q["question_type"]) for p in args.lme for q in read_json(p)]
    sets["longmemeval"] = draw(lme)
    if args.locomo:
        sets["locomo"] = draw((c["sample_id"], "conversation") for c in read_json(args.locomo))
    if args.de:
        questions = read_json(args.de / "questions.json")["questions"]
        sets["de"] = draw((q["id"], q.get("category", "")) for q in questions)
    out = {"seed": SEED, "drawn": "2026-12-04", "sets": sets}
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, members in sets.items():
        print(name, dict(Counter(members.values())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
