"""`refind bench`: index and search throughput/latency figures, with bm25s measured beside ours."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import json_text, print_json

DEFAULT_LME = (
    Path(__file__).resolve().parents[2].parent / "shared" / "benchmarks" / "longmemeval_s_dev.json.gz"
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add `refind bench`."""
    p = sub.add_parser("bench", help="measure ingest throughput, index size and search latency")
    p.add_argument(
        "--longmemeval",
        type=Path,
        default=DEFAULT_LME,
        help="LongMemEval JSON(.gz) to ingest (skipped when missing)",
    )
    p.add_argument("--turns", type=int, default=1_000_000, help="synthetic turns (checkpoint at 100k)")
    p.add_argument(
        "--chatgpt-mb", type=int, default=1024, help="size of the synthetic ChatGPT export (0=skip)"
    )
    p.add_argument(
        "--small-files",
        type=int,
        default=1200,
        metavar="N",
        help="N agent session files of 2 exchanges against the same sessions in one file, a re-ingest, "
        "and new files in the watched folder (0=skip; 10000 for the large-folder figures)",
    )
    p.add_argument("--no-bm25s", action="store_true", help="skip the bm25s reference")
    p.add_argument("--out", type=Path, default=None, help="folder for bench.json")
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the benchmark and print JSON."""
    from ..bench import run_bench
    from ..bench_files import run_files_bench

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = run_bench(
        args.longmemeval, args.turns, args.chatgpt_mb, None, log=log, with_bm25s=not args.no_bm25s
    )
    if args.small_files:
        result["small_files"] = run_files_bench(args.small_files, log)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bench.json").write_text(json_text(result))
    print_json(result)
    return 0
