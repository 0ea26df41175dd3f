"""Measure the ReFind agent on LongMemEval questions: cost (calls, tokens, seconds) and note recall.

One index per question (its own haystack) in a temporary REFIND_HOME. Example:

    python benchmarks/agent_lme.py --n 20 --threads 2 --out /tmp/agent_lme.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC
from pathlib import Path

DEFAULT_DATA = Path("/work/shared/benchmarks/longmemeval_s_dev.json.gz")


def pick(items: list[dict], n: int, how: str, offset: int) -> list[dict]:
    """The first n questions, or n taken round-robin over question types (stratified)."""
    if how == "first":
        return items[offset : offset + n]
    by_type: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        by_type[it["question_type"]].append(it)
    out, i = [], offset
    while len(out) < n and any(i < len(v) for v in by_type.values()):
        for t in sorted(by_type):
            if i < len(by_type[t]) and len(out) < n:
                out.append(by_type[t][i])
        i += 1
    return out


def load_sessions(item: dict, workdir: Path):
    """The question's haystack as Sessions (through the project's LongMemEval parser)."""
    from refind_desktop.ingest.base import ParseContext
    from refind_desktop.ingest.longmemeval import parse

    path = workdir / "q.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    return list(parse(path, ParseContext(tz=UTC)))


def run_one(item: dict, backend, mode: str, max_searches: int, judge: str) -> dict:
    """Index one haystack, run the agent, return the per-question record."""
    from refind_desktop.agent import Agent, AgentConfig
    from refind_desktop.ingest.longmemeval import parse_date
    from refind_desktop.services import build_services

    with tempfile.TemporaryDirectory() as home:
        os.environ["REFIND_HOME"] = home
        os.environ["REFIND_TIMEZONE"] = "UTC"
        svc = build_services()
        t0 = time.perf_counter()
        svc.ingestor.apply_sessions(load_sessions(item, Path(home)), "lme", "longmemeval")
        index_s = time.perf_counter() - t0
        now = parse_date(item["question_date"], UTC)
        agent = Agent(
            svc.engine,
            backend,
            mode=mode,
            options=svc.search_options(),
            config=AgentConfig(max_searches=max_searches, judge=judge),
        )
        result = agent.run(item["question"], now=now)
        svc.close()
    gold = {f"lme:{s}" for s in item.get("answer_session_ids", [])}
    noted = set(result.noted_sessions)
    u = result.usage
    return {
        "question_id": item["question_id"],
        "type": item["question_type"],
        "question": item["question"],
        "gold_answer": str(item["answer"]),
        "answer": result.answer,
        "abstained": result.abstained,
        "citations": result.citations,
        "searches": len(result.searches),
        "keywords": [e.keywords for e in result.searches],
        "retries": sum(e.type == "retry" for e in result.trajectory),
        "finish": result.trajectory[-1].reason if result.trajectory else None,
        "llm_calls": u.calls,
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "reprocessed_prompt_tokens": u.reprocessed_prompt_tokens,
        "answer_prompt_tokens": result.stage_usage["answer"].prompt_tokens,
        "search_s": result.timings["search_seconds"],
        "model_s": result.timings["model_seconds"],
        "total_s": result.timings["total_seconds"],
        "index_s": index_s,
        "noted_sessions": len(noted),
        "gold_sessions": len(gold),
        "any_gold_noted": bool(gold & noted),
        "all_gold_noted": bool(gold) and gold <= noted,
        "gold_in_answer": str(item["answer"]).lower() in result.answer.lower(),
    }


def summarize(rows: list[dict]) -> dict:
    """Means over the questions, and the note-recall shares."""

    def mean(key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 2) if rows else 0.0

    with_gold = [r for r in rows if r["gold_sessions"]]
    return {
        "questions": len(rows),
        **{
            f"mean_{k}": mean(k)
            for k in (
                "searches",
                "llm_calls",
                "retries",
                "prompt_tokens",
                "completion_tokens",
                "reprocessed_prompt_tokens",
                "answer_prompt_tokens",
                "noted_sessions",
                "search_s",
                "model_s",
                "total_s",
                "index_s",
            )
        },
        "share_any_answer_session_noted": round(
            sum(r["any_gold_noted"] for r in with_gold) / max(len(with_gold), 1), 3
        ),
        "share_all_answer_sessions_noted": round(
            sum(r["all_gold_noted"] for r in with_gold) / max(len(with_gold), 1), 3
        ),
        "share_gold_string_in_answer": round(sum(r["gold_in_answer"] for r in rows) / max(len(rows), 1), 3),
        "abstained": sum(r["abstained"] for r in rows),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the questions, print one JSON line per question and the summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--offset", type=int, default=0)
    ap.add_argument("--pick", choices=("stratified", "first"), default="stratified")
    ap.add_argument("--mode", default="refind", choices=("refind", "generic", "one-search"))
    ap.add_argument("--judge", default="auto", choices=("auto", "each", "batch"))
    ap.add_argument("--max-searches", type=int, default=4)
    ap.add_argument("--backend", default="llama")
    ap.add_argument("--model", default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--budget-s", type=float, default=0, help="stop starting questions after this many s")
    ap.add_argument("--out", type=Path, default=None, help="JSONL of per-question records")
    args = ap.parse_args(argv)

    from refind_desktop.config import Settings
    from refind_desktop.llm.factory import make_backend

    with gzip.open(args.data, "rt", encoding="utf-8") as f:
        items = json.load(f)
    chosen = pick(items, args.n, args.pick, args.offset)
    os.environ.setdefault("REFIND_MODEL_CACHE", str(Path(tempfile.gettempdir()) / "refind-model-cache"))
    settings = Settings(n_threads=args.threads, n_ctx=args.n_ctx)
    backend = make_backend(settings, backend=args.backend, model=args.model)
    rows: list[dict] = []
    out = args.out.open("w", encoding="utf-8") if args.out else None
    start = time.perf_counter()
    for item in chosen:
        if args.budget_s and time.perf_counter() - start > args.budget_s:
            print(f"budget reached after {len(rows)} questions", file=sys.stderr)
            break
        row = run_one(item, backend, args.mode, args.max_searches, args.judge)
        rows.append(row)
        line = json.dumps(row, ensure_ascii=False, default=str)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()
    summary = summarize(rows)
    summary["wall_s"] = round(time.perf_counter() - start, 1)
    print(json.dumps({"summary": summary}), flush=True)
    if out:
        out.write(json.dumps({"summary": summary}) + "\n")
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
