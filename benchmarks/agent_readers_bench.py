"""Ingest throughput of the coding-agent readers against the Claude Code reader on the same sizes.

Each agent's builder (in `benchmarks/agent_builders/*.py`, a dict `BUILDERS` of
`name -> build(folder, sessions, exchanges, text) -> Path`) writes `sessions` synthetic
sessions of `exchanges` prompt/reply pairs in the layout that agent writes, under `folder`, and
returns the path to ingest. The same number of Claude Code sessions with the same words is written
beside it. Both are ingested with refind's real `Ingestor` into fresh data folders, one after the
other in this run, so the ratio holds on a loaded machine. Prints, per agent: bytes on disk, turns
indexed, wall and CPU seconds, MB/s, turns/s, and the ratio of its seconds per MB to Claude Code's
(the goal is at most 2.0), and of its seconds per turn (the same sessions and words: a compressed
store is smaller on disk for the same chat). Example:

    python benchmarks/agent_readers_bench.py --sessions 200 --exchanges 10
    python benchmarks/agent_readers_bench.py --only pi,amp --json out.json
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from refind_desktop.bench import Synthetic  # noqa: E402
from refind_desktop.bench_files import cpu_s, write_sessions  # noqa: E402

Builder = Callable[[Path, int, int, Callable[[], str]], Path]


def builders() -> dict[str, Builder]:
    """Every builder of every module in `benchmarks/agent_builders/`."""
    import agent_builders  # noqa: PLC0415  (a folder beside this script)

    found: dict[str, Builder] = {}
    for mod in pkgutil.iter_modules(agent_builders.__path__):
        module = importlib.import_module(f"agent_builders.{mod.name}")
        found.update(getattr(module, "BUILDERS", {}))
    return found


def words(seed: int) -> Callable[[], str]:
    """A source of synthetic message texts (20 to 60 words of a Zipf-like vocabulary)."""
    syn, rng = Synthetic(seed=seed, vocab=5000), random.Random(seed)
    return lambda: " ".join(rng.choices(syn.words, cum_weights=syn.cum, k=rng.randint(20, 60)))


def size_of(path: Path) -> int:
    """Bytes of a file, or of every file under a folder."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def ingest(home: Path, target: Path) -> dict:
    """One real ingest of `target` into a fresh data folder: seconds and what it did."""
    os.environ["REFIND_HOME"] = str(home)
    os.environ["REFIND_TIMEZONE"] = "UTC"
    from refind_desktop.services import build_services

    svc = build_services()
    try:
        t0, c0 = time.perf_counter(), cpu_s()
        report = svc.ingestor.ingest([target])
        wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    finally:
        svc.close()
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "files_read": report.ingested_files,
        "turns": report.added_turns,
        "skipped": len(getattr(report, "skipped", []) or []),
    }


def best_of(home: Path, target: Path, repeat: int) -> dict:
    """The fastest of `repeat` ingests of `target`, each into a fresh data folder."""
    runs = [ingest(home / f"run{i}", target) for i in range(repeat)]
    return min(runs, key=lambda r: r["wall_s"])


def measure(name: str, build: Builder, work: Path, sessions: int, exchanges: int, repeat: int = 3) -> dict:
    """Build and ingest one agent's sessions and the same Claude Code sessions, alternating, the fastest
    of `repeat` runs each; the ratio of their seconds per MB."""
    folder = work / name
    target = build(folder / "data", sessions, exchanges, words(7))
    ref_folder = folder / "claude"
    write_sessions(ref_folder, sessions, exchanges, one_file=False, seed=7)
    ours = best_of(folder / "home", target, repeat)
    ours["bytes"] = size_of(target)
    ref = best_of(folder / "home-claude", ref_folder, repeat)
    ref["bytes"] = size_of(ref_folder)
    for row in (ours, ref):
        mb = row["bytes"] / 1e6
        row["mb_s"] = round(mb / max(row["wall_s"], 1e-6), 2)
        row["turns_s"] = round(row["turns"] / max(row["wall_s"], 1e-6))
    ratio = (ours["wall_s"] / max(ours["bytes"], 1)) / (ref["wall_s"] / max(ref["bytes"], 1))
    # the same sessions, turns and words: a compressed store (Zed's zstd) is smaller on disk for the same chat
    per_turn = (ours["wall_s"] / max(ours["turns"], 1)) / (ref["wall_s"] / max(ref["turns"], 1))
    return {
        "agent": name,
        "reader": ours,
        "claude_code": ref,
        "s_per_mb_ratio": round(ratio, 2),
        "s_per_turn_ratio": round(per_turn, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--exchanges", type=int, default=10)
    ap.add_argument("--only", default="", help="comma-separated builder names")
    ap.add_argument("--repeat", type=int, default=3, help="ingests of each folder; the fastest counts")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    found = builders()
    names = [n for n in args.only.split(",") if n] or sorted(found)
    unknown = [n for n in names if n not in found]
    if unknown:
        ap.error(f"unknown builder(s): {', '.join(unknown)}; known: {', '.join(sorted(found))}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="refind-agent-bench-") as tmp:
        warm = Path(tmp) / "warm-up"  # imports and first index creation, paid once before any timing
        write_sessions(warm / "data", 2, 1, one_file=False)
        ingest(warm / "home", warm / "data")
        for name in names:
            row = measure(name, found[name], Path(tmp), args.sessions, args.exchanges, args.repeat)
            rows.append(row)
            r, c = row["reader"], row["claude_code"]
            print(
                f"{name:16} {r['bytes'] / 1e6:7.2f} MB {r['turns']:6} turns {r['wall_s']:7.2f} s "
                f"({r['mb_s']:6.2f} MB/s) | claude_code {c['bytes'] / 1e6:7.2f} MB {c['turns']:6} turns "
                f"{c['wall_s']:7.2f} s ({c['mb_s']:6.2f} MB/s) | s/MB ratio {row['s_per_mb_ratio']:.2f} "
                f"| s/turn ratio {row['s_per_turn_ratio']:.2f}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    worst = max((r["s_per_mb_ratio"] for r in rows), default=0.0)
    worst_turn = max((r["s_per_turn_ratio"] for r in rows), default=0.0)
    print(
        f"worst ratio against Claude Code: {worst:.2f} by seconds per MB on disk, {worst_turn:.2f} by seconds per turn"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
