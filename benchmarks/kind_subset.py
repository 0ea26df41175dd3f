"""The questions of a dev set whose kind two checkouts read differently, so a change that only alters
some questions' kind is measured on those questions alone (the rest run exactly as before). Prints only
counts, so it is safe on the check half.

    PYTHONPATH=CHECKOUT_A python benchmarks/kind_subset.py kinds DATA A.json
    PYTHONPATH=CHECKOUT_B python benchmarks/kind_subset.py kinds DATA B.json
    python benchmarks/kind_subset.py subset DATA A.json B.json RECORDS.jsonl OUT

DATA is a LongMemEval JSON list (OUT: a JSON file) or an export set's folder (OUT: a folder with the
same export files and the chosen questions); RECORDS are a run's records, whose questions are kept.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def questions(data: Path) -> tuple[list[dict], str, str]:
    """(questions, id key, text key) of a LongMemEval file or an export set's questions.json."""
    if data.is_dir():
        return (
            json.loads((data / "questions.json").read_text(encoding="utf-8"))["questions"],
            "id",
            "question",
        )
    return json.loads(data.read_text(encoding="utf-8")), "question_id", "question"


def kinds(data: Path, out: Path) -> None:
    from refind_desktop.agent.question import understand

    qs, key, text = questions(data)
    got = {str(q.get(key) or f"q{n}"): understand(q[text], NOW, UTC).kind for n, q in enumerate(qs, 1)}
    out.write_text(json.dumps(got), encoding="utf-8")
    print(f"{len(got)} questions: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(got.values()).items())))


def subset(data: Path, a: Path, b: Path, records: Path, out: Path) -> None:
    ka, kb = (json.loads(p.read_text(encoding="utf-8")) for p in (a, b))
    ran = {json.loads(ln)["qid"] for ln in records.read_text(encoding="utf-8").splitlines() if ln.strip()}
    changed = {q for q in ran if ka.get(q) != kb.get(q)}
    qs, key, _ = questions(data)
    kept = [q for n, q in enumerate(qs, 1) if str(q.get(key) or f"q{n}") in changed]
    if data.is_dir():
        out.mkdir(parents=True, exist_ok=True)
        head = json.loads((data / "questions.json").read_text(encoding="utf-8"))
        (out / "questions.json").write_text(json.dumps({**head, "questions": kept}), encoding="utf-8")
        for f in data.iterdir():
            if f.name != "questions.json" and not (out / f.name).exists():
                (out / f.name).symlink_to(f.resolve())
    else:
        out.write_text(json.dumps(kept), encoding="utf-8")
    moved = Counter((ka.get(q), kb.get(q)) for q in changed)
    print(
        f"{len(ran)} questions run, {len(kept)} read differently: "
        + ", ".join(f"{x}->{y} {n}" for (x, y), n in sorted(moved.items()))
    )


if __name__ == "__main__":
    if sys.argv[1] == "kinds":
        kinds(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        subset(*(Path(x) for x in sys.argv[2:7]))
