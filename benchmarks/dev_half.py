"""Write one half of a dev set (the committed split, `benchmarks/splits.json`) for a benchmark run.

Prints only counts: the check half's questions are never shown. Examples:

    python benchmarks/dev_half.py longmemeval check /tmp/lme-check.json A.json.gz B.json.gz
    python benchmarks/dev_half.py locomo check /tmp/locomo-check.json locomo_dev.json.gz
    python benchmarks/dev_half.py de check /tmp/de-check benchmarks/sets/de

LongMemEval and LoCoMo halves are benchmark files for `refind eval qa` and `messenger_export.py`; the
German half is a set folder for `export_qa.py` (the chat file and the half's questions).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from refind_desktop.eval.split import HALVES, load, read_json


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("set", choices=("longmemeval", "locomo", "de"))
    ap.add_argument("half", choices=HALVES)
    ap.add_argument("out", type=Path)
    ap.add_argument("data", type=Path, nargs="+")
    args = ap.parse_args()
    members = load()[args.set]
    if args.set == "de":
        src = args.data[0]
        spec = read_json(src / "questions.json")
        spec["questions"] = [q for q in spec["questions"] if members[q["id"]] == args.half]
        args.out.mkdir(parents=True, exist_ok=True)
        for f in src.iterdir():
            if f.name != "questions.json":
                shutil.copy2(f, args.out / f.name)
        (args.out / "questions.json").write_text(
            json.dumps(spec, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        print(f"de {args.half}: {len(spec['questions'])} questions -> {args.out}")
        return 0
    key = "question_id" if args.set == "longmemeval" else "sample_id"
    items = [it for p in args.data for it in read_json(p) if members[it[key]] == args.half]
    args.out.write_text(json.dumps(items), encoding="utf-8")
    print(f"{args.set} {args.half}: {len(items)} items -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
