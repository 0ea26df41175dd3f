"""`refind eval retrieval|qa`: benchmark runs on LongMemEval / LoCoMo files (thin caller of eval/).

The eval harness sits below the services layer, so this module injects what it needs from above:
the services factory (`build_services` over a folder, naive times as UTC), the raw-RAG retrieval
modes, and the lookup of answer-mode runners.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..config import Settings
from ..errors import ConfigError
from ..llm.factory import BACKENDS
from .common import print_json

QA_MODES = ("refind", "generic", "one-search", "rawrag", "hybrid")
SETTINGS = ("haystack", "archive")
RAG_MODES = ("dense", "dense-rrf", "hybrid")


def eval_services(settings: Settings | None, folder: Path):
    """The one services factory over an eval index kept in `folder` (UTC: the benchmarks' dates
    carry no zone), with the same listeners as every front end."""
    from ..locations import Paths
    from ..services import build_services

    return build_services((settings or Settings()).replace(timezone="UTC"), paths=Paths.under(folder))


def services_factory(settings: Settings | None = None) -> Callable[[Path], object]:
    """A picklable factory for the eval harness (process-pool workers rebuild services with it)."""
    return partial(eval_services, settings)


def register_rag_modes() -> None:
    """Register raw-RAG's dense/hybrid rankings as retrieval modes (numpy/torch load only then)."""
    from ..eval.modes import register_mode
    from ..rag.eval_modes import RAG_EVAL_MODES

    for name, (fn, window, note, as_of) in RAG_EVAL_MODES.items():
        register_mode(name, partial(_cut_mode, fn), context_window=window, note=note, as_of=as_of)


def _cut_mode(fn: Callable, services: object, question: str, k: int) -> list:
    from ..eval.modes import cut

    return cut(fn(services, question), k)


def eval_setup() -> None:
    """Run in the harness and in each worker: the lazily registered modes of this build."""
    from ..eval.modes import register_provider

    register_provider(RAG_MODES, register_rag_modes)


def qa_runner(mode: str) -> Callable:
    """The answer-mode runner for `eval qa`: the core's one registry (`modes.py`), injected into the
    harness as `runner(svc, backend, mode, question, now, on_event)`."""
    from ..eval.baselines import RUNNERS
    from ..modes import get_mode, positional_runner

    if mode in RUNNERS:  # a reference measured beside the modes, not a mode of the product
        return RUNNERS[mode]
    get_mode(mode)  # a ConfigError naming the available modes
    return positional_runner


def _ks(value: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(x) for x in value.split(",") if x.strip()}))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--k takes numbers like 1,3,5,10, got {value!r}") from exc
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("--k needs positive numbers")
    return ks


def register(sub: argparse._SubParsersAction) -> None:
    """Add `eval retrieval` and `eval qa`."""
    p = sub.add_parser("eval", help="evaluate retrieval and answers on LongMemEval / LoCoMo files")
    esub = p.add_subparsers(dest="eval_command", metavar="WHAT")

    r = esub.add_parser("retrieval", help="single-shot retrieval metrics per mode, with the bm25s anchor")
    _common(r)
    r.add_argument(
        "--mode",
        dest="modes",
        action="append",
        default=None,
        metavar="MODE",
        help="bm25, refind, no-rrf, no-context, no-dedup, no-temporal, dense, hybrid "
        "(repeatable; default: all of the engine's modes). bm25s is always added.",
    )
    r.add_argument("--k", type=_ks, default=(1, 3, 5, 10), help="cut-offs, e.g. 1,3,5,10")
    r.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes (one index per haystack each; the archive setting runs in one process)",
    )
    r.set_defaults(func=cmd_retrieval)

    q = esub.add_parser("qa", help="run the agent per question and score its answers")
    _common(q)
    q.add_argument(
        "--mode",
        choices=(*QA_MODES, "one-search+1call", "refind+1call", "oracle"),
        default="refind",
        help="an answer mode, or a reference measured beside them: one-search+1call, refind+1call "
        "(one answer call over the notes) and oracle (the answer stage given the gold evidence)",
    )
    q.add_argument(
        "--backend",
        default=None,
        help=f"{', '.join(BACKENDS)}, or scripted (offline stand-in without a model; default: settings)",
    )
    q.add_argument("--model", default=None, metavar="NAME|PATH")
    q.add_argument(
        "--judge",
        default="exact",
        metavar="BACKEND|exact",
        help=f"LLM judge back end ({', '.join(BACKENDS)}, scripted) with the LongMemEval protocol, or "
        "exact (deterministic only; always reported anyway)",
    )
    q.add_argument("--judge-model", default=None, metavar="NAME|PATH")
    q.add_argument(
        "--workers",
        type=int,
        default=None,
        help="parallel haystacks (default: 1 for llama and scripted, 2 for openai)",
    )
    q.set_defaults(func=cmd_qa)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _sample(text: str) -> str:
    """The --sample value: one of the named samples, or type:NAME."""
    if text in ("first", "stratified", "abstention") or (text.startswith("type:") and len(text) > 5):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: choose first, stratified, abstention or type:NAME")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", choices=("longmemeval", "locomo"), required=True)
    p.add_argument("--data", type=Path, required=True, metavar="FILE", help="benchmark JSON or JSON.gz")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="N questions only (see --sample)")
    p.add_argument(
        "--sample",
        type=_sample,
        default="first",
        metavar="first|stratified|abstention|type:NAME",
        help="with --limit: the first N, or N round-robin across LongMemEval question types; "
        "abstention: only LongMemEval's _abs questions (the answer is not in the history); "
        "type:NAME: only LongMemEval questions of that type (e.g. type:temporal-reasoning)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="results folder: per-question JSONL (resumable), JSON, Markdown, PNG",
    )
    p.add_argument(
        "--setting",
        choices=SETTINGS,
        default="haystack",
        help="haystack: one index per question's haystack (the benchmark); archive: every haystack "
        "in one index (built once, cached in --out), each question as of its date",
    )
    p.add_argument("--json", action="store_true", help="print the summary JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def cmd_retrieval(args: argparse.Namespace) -> int:
    """`refind eval retrieval`"""
    from ..eval.modes import DEFAULT_MODES
    from ..eval.report import retrieval_markdown
    from ..eval.retrieval import run_retrieval

    summary = run_retrieval(
        args.dataset,
        args.data,
        args.modes or list(DEFAULT_MODES),
        args.k,
        args.limit,
        args.out,
        args.workers,
        quiet=args.quiet,
        sample=args.sample,
        factory=services_factory(),
        setup=eval_setup,
        setting=args.setting,
    )
    if args.json:
        print_json(summary)
    else:
        sys.stdout.write(retrieval_markdown(summary))
    return 0


def cmd_qa(args: argparse.Namespace) -> int:
    """`refind eval qa`"""
    from ..config import load_settings
    from ..eval.qa import run_qa
    from ..eval.report import qa_markdown

    runner = qa_runner(args.mode)
    if args.setting == "archive" and args.mode in ("rawrag", "hybrid"):
        raise ConfigError(
            f"mode {args.mode!r} cannot run in the archive setting yet: its dense index does not "
            "apply the as-of bound, so later sessions would leak into its results"
        )
    settings = load_settings()
    summary = run_qa(
        args.dataset,
        args.data,
        settings,
        runner=runner,
        factory=services_factory(settings),
        setting=args.setting,
        mode=args.mode,
        backend=args.backend,
        model=args.model,
        judge=args.judge,
        judge_model=args.judge_model,
        limit=args.limit,
        out=args.out,
        workers=args.workers,
        quiet=args.quiet,
        sample=args.sample,
    )
    if args.json:
        print_json(summary)
    else:
        sys.stdout.write(qa_markdown(summary))
    return 0
