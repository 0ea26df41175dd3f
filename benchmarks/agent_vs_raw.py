"""The agent's model calls against raw llama.cpp doing the same token work, interleaved in one run.

`llama_throughput.py` measures raw rates in one run and prices the agent's calls of another run at
them; on a shared 2-core machine the raw rates move by up to a quarter between runs, so that ratio
says as much about the machine as about the agent. Here each of the agent's calls (through the
product's own back end, `refind eval qa`'s harness and runner) is followed at once by the same work
on a second, plain `llama_cpp.Llama` of the same model and settings: the same prompt tokens, with
the longest cached prefix kept exactly as llama-cpp-python keeps it, then one greedy sample and one
evaluation per token the agent generated (the agent's own tokens, so both caches hold the same
text for the next call). No chat template, no grammar, no Python agent around it: the raw figure is
llama.cpp's time for the agent's tokens, measured seconds after the agent's, on the same machine.

    python benchmarks/agent_vs_raw.py --data ../shared/benchmarks/longmemeval_s_dev.json.gz \\
        --limit 24 --sample stratified --mode refind --out /tmp/avr

Prints JSON (per call and totals) and a Markdown table by stage. Ratio = raw seconds / agent
seconds (1.0: the agent runs at llama.cpp's speed for its own tokens).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path


def trim_cache(raw, keep: int) -> None:
    """Drop raw's cached tokens after the first `keep` (what `Llama.generate` does on a new prompt)."""
    raw.n_tokens = keep
    raw._ctx.kv_cache_seq_rm(-1, keep, -1)


def replay(raw, greedy, tokens: list[int], prompt_len: int) -> dict:
    """The same work on a plain Llama: evaluate the uncached part of the prompt, then for each token
    the agent evaluated after it, one greedy sample (llama.cpp's own C sampler, `greedy`) and one
    evaluation of the agent's token, and the final sample the agent stopped on."""
    import llama_cpp

    from refind_desktop.llm.llama import reused_prefix

    t0 = time.perf_counter()
    keep = reused_prefix(raw.input_ids[: raw.n_tokens].tolist(), tokens[:prompt_len])
    trim_cache(raw, keep)
    raw.eval(tokens[keep:prompt_len])
    t1 = time.perf_counter()
    for tok in tokens[prompt_len:]:
        llama_cpp.llama_sampler_sample(greedy, raw._ctx.ctx, -1)
        raw.eval([tok])
    llama_cpp.llama_sampler_sample(greedy, raw._ctx.ctx, -1)
    t2 = time.perf_counter()
    return {"evaluated": prompt_len - keep, "prompt_seconds": t1 - t0, "gen_seconds": t2 - t1}


class Replaying:
    """The product's LlamaBackend, each call followed by the same token work on a raw Llama."""

    def __init__(self, backend, raw) -> None:
        import llama_cpp

        self.backend = backend
        self.raw = raw
        self.greedy = llama_cpp.llama_sampler_init_greedy()
        self.calls: list[dict] = []
        self.name, self.supports_schema, self.can_stream = backend.name, backend.supports_schema, True

    def __getattr__(self, name: str):
        return getattr(self.backend, name)

    def _after(self, usage, json_reply: bool) -> None:
        llm = self.backend._llm
        tokens = llm.input_ids[: llm.n_tokens].tolist()
        prompt_len = usage.prompt_tokens
        r = replay(self.raw, self.greedy, tokens, prompt_len)
        self.calls.append(
            {
                "json": json_reply,
                "prompt_tokens": prompt_len,
                "agent_evaluated": usage.reprocessed_prompt_tokens,
                "raw_evaluated": r["evaluated"],
                "generated": len(tokens) - prompt_len,
                "completion_tokens": usage.completion_tokens,
                "agent_seconds": usage.seconds,
                "raw_seconds": r["prompt_seconds"] + r["gen_seconds"],
                "raw_prompt_seconds": r["prompt_seconds"],
                "raw_gen_seconds": r["gen_seconds"],
            }
        )

    def complete(self, messages, *, schema=None, max_tokens=512, temperature=0.0):
        c = self.backend.complete(messages, schema=schema, max_tokens=max_tokens, temperature=temperature)
        self._after(c.usage, schema is not None)
        return c

    def stream(self, messages, *, max_tokens=512, temperature=0.0):
        for piece in self.backend.stream(messages, max_tokens=max_tokens, temperature=temperature):
            if not isinstance(piece, str):
                self._after(piece.usage, False)
            yield piece


def totals(calls: list[dict]) -> dict:
    """Sums over calls and the raw/agent ratio."""
    agent = sum(c["agent_seconds"] for c in calls)
    raw = sum(c["raw_seconds"] for c in calls)
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "agent_evaluated_tokens": sum(c["agent_evaluated"] for c in calls),
        "raw_evaluated_tokens": sum(c["raw_evaluated"] for c in calls),
        "generated_tokens": sum(c["generated"] for c in calls),
        "agent_seconds": round(agent, 2),
        "raw_seconds": round(raw, 2),
        "raw_prompt_seconds": round(sum(c["raw_prompt_seconds"] for c in calls), 2),
        "raw_gen_seconds": round(sum(c["raw_gen_seconds"] for c in calls), 2),
        "ratio": round(raw / agent, 3) if agent else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="longmemeval")
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=24)
    ap.add_argument("--sample", default="stratified")
    ap.add_argument("--mode", default="refind")
    ap.add_argument("--model", default=None, help="catalog name or GGUF path (default: the embedded model)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    import llama_cpp

    from refind_desktop.cli.evalcmd import qa_runner, services_factory
    from refind_desktop.config import load_settings
    from refind_desktop.eval.datasets import load_units
    from refind_desktop.eval.qa import answer_question, make_model
    from refind_desktop.eval.runner import QuestionServices, unit_services
    from refind_desktop.llm.llama import new_llama

    settings = load_settings()
    backend = make_model(settings, "llama", args.model)
    backend.load()  # the agent's first call is not timed with the model's load
    raw = new_llama(
        llama_cpp,
        model_path=str(backend.model_path),
        n_ctx=backend.n_ctx,
        n_threads=backend.n_threads,
        n_gpu_layers=backend.n_gpu_layers,
        verbose=False,
        **backend.tuning,
    )
    replaying = Replaying(backend, raw)
    runner = qa_runner(args.mode)
    args.out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    records = []
    t0 = time.perf_counter()
    for unit in load_units(args.dataset, args.data, args.limit, sample=args.sample):
        with unit_services(unit, args.dataset, services_factory(settings)) as svc:
            for q in unit.questions:
                first = len(replaying.calls)
                rec = answer_question(
                    QuestionServices(svc, q, False), replaying, runner, args.mode, args.dataset, q
                )
                rec["calls"] = replaying.calls[first:]
                stages = [c.get("stage", "?") for c in (rec.get("usage") or {}).get("per_call") or []]
                for i, c in enumerate(rec["calls"]):  # the eval record lists the same calls in order
                    c["stage"] = stages[i] if i < len(stages) else "?"
                records.append(rec)
                print(f"[{len(records)}] {q.qid} {totals(rec['calls'])}", file=sys.stderr, flush=True)
    wall = time.perf_counter() - t0
    by_stage: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        for c in rec["calls"]:
            by_stage[c["stage"]].append(c)
    report = {
        "model": backend.model_path.name,
        "settings": backend.tuning | {"n_threads": backend.n_threads, "n_ctx": backend.n_ctx},
        "llama_cpp_python": llama_cpp.__version__,
        "questions": len(records),
        "wall_seconds": round(wall, 1),
        "loadavg_before": load,
        "loadavg_after": os.getloadavg(),
        "total": totals([c for r in records for c in r["calls"]]),
        "by_stage": {k: totals(v) for k, v in sorted(by_stage.items())},
        "json_replies": totals([c for r in records for c in r["calls"] if c["json"]]),
        "free_text_replies": totals([c for r in records for c in r["calls"] if not c["json"]]),
    }
    (args.out / "agent_vs_raw.jsonl").write_text(
        "".join(json.dumps({"qid": r["qid"], "calls": r["calls"]}) + "\n" for r in records), encoding="utf-8"
    )
    (args.out / "agent_vs_raw.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(json.dumps(report, indent=2))
    print(
        "\n| calls | n | prompt tokens | evaluated (agent / raw) | generated | agent s | raw s | raw / agent |"
    )
    print("|---|---|---|---|---|---|---|---|")
    rows = [("all", report["total"]), ("JSON replies", report["json_replies"])]
    rows += [("free-text replies", report["free_text_replies"])]
    rows += [(f"stage {k}", v) for k, v in report["by_stage"].items()]
    for name, t in rows:
        print(
            f"| {name} | {t['calls']} | {t['prompt_tokens']} | {t['agent_evaluated_tokens']} / "
            f"{t['raw_evaluated_tokens']} | {t['generated_tokens']} | {t['agent_seconds']} | {t['raw_seconds']} | "
            f"{t['ratio']} |"
        )
    print(f"\nload average before {load[0]:.2f}, after {report['loadavg_after'][0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
