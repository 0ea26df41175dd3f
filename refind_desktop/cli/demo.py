"""`refind demo`: the main job on embedded defaults — ingest the bundled sample chats, search, then ask."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .. import locations
from ..terminal import printable
from . import render

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
DEFAULT_QUESTION = "When is my flight to Lisbon, and which airline and flight number is it?"


def register(sub: argparse._SubParsersAction) -> None:
    """Add `refind demo`."""
    p = sub.add_parser("demo", help="try refind on the bundled sample chats with the embedded local model")
    p.add_argument("--question", default=DEFAULT_QUESTION)
    p.add_argument("--search-only", action="store_true", help="skip the model, only ingest and search")
    p.add_argument(
        "--home",
        type=Path,
        default=None,
        help="folder for the demo index (default: a 'demo' folder in the data dir)",
    )
    p.set_defaults(func=cmd_demo)


def share_models(home: Path) -> None:
    """Make the demo home use the user's models folder (REFIND_MODELS_DIR), so the model the demo
    assembles is the one real use finds, and the other way round. A copy an earlier version assembled
    under the demo home moves there when the user's folder lacks it (a rename: no second 1.1 GB)."""
    shared = locations.models_dir()  # before REFIND_HOME moves to the demo home
    os.environ[locations.MODELS_ENV] = str(shared)
    old = locations.Paths.under(home).models_dir
    if not old.is_dir() or old.resolve() == shared.resolve():
        return
    for gguf in sorted(old.glob("*.gguf")):
        dest = shared / gguf.name
        marker = gguf.with_name(gguf.name + ".verified")
        if dest.exists():
            continue
        try:
            os.replace(gguf, dest)
            if marker.exists():
                os.replace(marker, dest.with_name(marker.name))
        except OSError:  # another disk: leave the copy where it is, it is still a valid model
            continue


def cmd_demo(args: argparse.Namespace) -> int:
    """Ingest the samples into a separate demo home so the user's own index is never touched."""
    from . import main
    from .common import services
    from .core import print_ingest_report, run_ingest

    home = args.home or (locations.data_dir() / "demo")
    share_models(home)
    os.environ["REFIND_HOME"] = str(home)
    print(printable(f"demo index: {home} (your own index is not touched)", one_line=True))
    svc = services()
    print_ingest_report(run_ingest(svc, [SAMPLES]))
    totals = svc.catalog.totals()
    print(f"{totals['sources']} sample files, {totals['sessions']} sessions, {totals['turns']} turns\n")
    blocks = svc.engine.search("flight Lisbon airline")
    print("search 'flight Lisbon airline':")
    for b in blocks[:3]:
        hit = next(t for t in b.turns if t.turn == b.turn)
        text = render.clip(" ".join(hit.text.split()), 110)
        line = f"  [{b.rank}] {b.session_title} turn {b.turn}: {text}"
        print(printable(line, one_line=True))
    svc.close()
    if args.search_only:
        return 0
    print(f"\nask: {args.question}")
    return main(["ask", args.question, "--now", "2025-04-01"])
