"""Ask an export set's questions: its chat-export files ingested through the normal readers, then
single-shot retrieval (no model) and the product's answers, scored and timed.

A set is a folder holding export files and `questions.json` (refind_desktop/eval/exportset.py says the
format): the LoCoMo conversations written by benchmarks/messenger_export.py, or the German set in
benchmarks/sets/de. Answers come from the answer-mode registry `refind ask` uses (`--mode`, default
refind) with the embedded llama model by default, or from the references of eval/baselines.py
(`--mode one-search+1call`, `refind+1call`, and `oracle`: the answer stage given each question's
evidence turns); `--backend scripted` is the no-model stand-in for a smoke run. Per question:
deterministic accuracy, the share of gold items found, evidence recall of the notes, false abstentions,
prompt tokens, model calls and seconds; the summary adds p50/p90 seconds by category. With --out the answers are cached (a rerun resumes) and the report is written as JSON
and Markdown. Examples:

    python benchmarks/export_qa.py benchmarks/sets/de --out /tmp/de
    python benchmarks/export_qa.py /tmp/locomo-exports/whatsapp --retrieval-only
    python benchmarks/export_qa.py /tmp/locomo-exports/telegram --backend scripted --limit 90 \\
        --sample stratified --out /tmp/locomo-telegram
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from refind_desktop.cli.evalcmd import qa_runner, services_factory
    from refind_desktop.config import load_settings
    from refind_desktop.errors import RefindError
    from refind_desktop.eval.baselines import RUNNERS
    from refind_desktop.eval.exportqa import SAMPLES, run_export
    from refind_desktop.modes import mode_names
    from refind_desktop.terminal import printable

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="the set: export files and questions.json")
    # the references of eval/baselines.py run here too; the oracle reads each question's evidence turns
    ap.add_argument("--mode", default="refind", choices=(*mode_names(), *RUNNERS))
    ap.add_argument("--backend", default=None, help="llama (default from settings), openai, or scripted")
    ap.add_argument("--model", default=None, metavar="NAME|PATH")
    ap.add_argument("--limit", type=int, default=None, metavar="N")
    ap.add_argument(
        "--sample", default="first", choices=SAMPLES, help="with --limit: first N or round-robin by category"
    )
    ap.add_argument("--retrieval-only", action="store_true", help="single-shot retrieval only, no model")
    ap.add_argument("--out", type=Path, default=None, metavar="DIR", help="cache, home and reports")
    ap.add_argument("--json", action="store_true", help="print the summary JSON instead of Markdown")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    settings = load_settings()
    try:
        run = run_export(
            args.folder,
            settings,
            None if args.retrieval_only else qa_runner(args.mode),
            factory=services_factory(settings),
            mode=args.mode,
            backend=args.backend,
            model=args.model,
            limit=args.limit,
            sample=args.sample,
            out=args.out,
            retrieval_only=args.retrieval_only,
            quiet=args.quiet,
        )
    except RefindError as exc:
        print(f"export_qa: {printable(exc.message, one_line=True)}", file=sys.stderr)
        return 2
    sys.stdout.write(
        json.dumps(run.summary, indent=1, ensure_ascii=False) + "\n" if args.json else run.markdown()
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
