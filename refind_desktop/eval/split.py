"""The one fixed split of every dev set into a working half and a check half (`benchmarks/splits.json`).

A design is chosen on the check half, whose questions, traces and answers are never read: only its
aggregate figures by type are looked at. The working half may be read as much as one likes. The split
was drawn once (`draw`, seed `SEED`) and is committed; `half_of` reads the committed file, so adding a
rule never moves a question from one half to the other.

- LongMemEval-S: by question, within each question type (each half gets every type in equal shares);
- LoCoMo (asked as messenger exports): by conversation, since a conversation's questions share its chat;
- the German export set: by question.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from ..errors import ConfigError

SEED = 20261204
HALVES = ("work", "check")
SPLITS_FILE = Path(__file__).resolve().parents[2] / "benchmarks" / "splits.json"


def draw(keys: Iterable[tuple[str, str]], seed: int = SEED) -> dict[str, str]:
    """Each key's half: keys grouped by stratum (key, stratum), each group in sorted order shuffled by
    `seed` and dealt alternately, the first to the working half."""
    groups: dict[str, list[str]] = defaultdict(list)
    for key, stratum in keys:
        groups[stratum].append(key)
    rng = random.Random(seed)
    out: dict[str, str] = {}
    turn = 0
    for stratum in sorted(groups):
        members = sorted(set(groups[stratum]))
        rng.shuffle(members)
        for key in members:
            out[key] = HALVES[turn % 2]
            turn += 1
    return out


def read_json(path: Path):
    """A benchmark file's JSON (`.gz` or plain)."""
    opener = gzip.open if Path(path).suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def load(path: Path = SPLITS_FILE) -> dict[str, dict[str, str]]:
    """The committed split: set name -> {key: "work" | "check"}."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the dev split {path}: {exc}") from None
    return {name: dict(members) for name, members in data["sets"].items()}


def half_of(set_name: str, key: str, splits: dict[str, dict[str, str]] | None = None) -> str | None:
    """The half a question (or a LoCoMo conversation) belongs to, None when the split does not know it."""
    splits = splits if splits is not None else load()
    return splits.get(set_name, {}).get(key)


def keep(set_name: str, keys: Iterable[str], half: str | None) -> set[str]:
    """The keys of `half` (all of them when `half` is None); a key the split does not know is an error,
    since it would be read without belonging to either half."""
    keys = list(keys)
    if half is None:
        return set(keys)
    if half not in HALVES:
        raise ConfigError(f"unknown half {half!r}; choose {' or '.join(HALVES)}")
    members = load().get(set_name)
    if members is None:
        raise ConfigError(f"the dev split has no set {set_name!r}")
    unknown = [k for k in keys if k not in members]
    if unknown:
        raise ConfigError(f"{len(unknown)} items of {set_name!r} are not in the committed split")
    return {k for k in keys if members[k] == half}
