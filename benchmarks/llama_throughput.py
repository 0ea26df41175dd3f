"""Raw llama.cpp throughput of a GGUF (prompt processing at 512/2k/6k tokens, generation) per runtime
setting, and the agent's achieved tokens/s from a `refind eval qa` results file, side by side.

    python benchmarks/llama_throughput.py                      # embedded model, default + tuned settings
    python benchmarks/llama_throughput.py --config n_threads=1 --config flash_attn=1,n_ubatch=256
    python benchmarks/llama_throughput.py --agent DIR/qa-longmemeval-refind-llama-default.jsonl

Each setting loads the model once, processes each prompt size from an empty cache (best of --repeat)
and generates --gen tokens greedily. The agent figure: the run's evaluated (non-cached) prompt tokens
and generated tokens over its model seconds, and the time the raw rates predict for the same tokens
(ratio 1.0 = the agent runs at the raw speed). Prints JSON and a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

SIZES = (512, 2048, 6144)
PRESETS = {
    "default": {},
    "threads1": {"n_threads": 1, "n_threads_batch": 1},
    "batch256": {"n_batch": 256, "n_ubatch": 256},
    "batch1024": {"n_batch": 1024, "n_ubatch": 1024},
    "flash": {"flash_attn": True},
    "flash+q8kv": {"flash_attn": True, "type_k": 8, "type_v": 8},
    "gen1-batch2": {"n_threads": 1, "n_threads_batch": 2},
}
"""type 8 = GGML_TYPE_Q8_0 (a quantised KV cache needs flash attention for V)."""


def _value(text: str) -> object:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_config(text: str) -> dict:
    """ "n_threads=1,flash_attn=1" → {"n_threads": 1, "flash_attn": True}."""
    out: dict = {}
    for part in text.split(","):
        if part.strip():
            k, v = part.split("=", 1)
            out[k.strip()] = _value(v.strip()) if k.strip() != "flash_attn" else bool(int(v))
    return out


def measure(model: Path, params: dict, sizes: tuple[int, ...], gen: int, repeat: int, n_ctx: int) -> dict:
    """Prompt tokens/s per size and generation tokens/s for one setting."""
    import llama_cpp

    threads = os.cpu_count() or 1
    kw = {"n_threads": threads, "n_threads_batch": threads, "n_batch": 512, "n_ubatch": 512} | params
    t0 = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(model), n_ctx=n_ctx, verbose=False, **kw)
    load = time.perf_counter() - t0
    base = llm.tokenize(
        b"The user talked about gardening, bikes, trips and recipes in many old chats. " * 400, add_bos=False
    )
    out: dict = {"params": kw, "load_seconds": round(load, 2), "prompt_tps": {}}
    for n in sizes:
        if n + gen + 8 > n_ctx:
            continue
        tokens = [llm.token_bos()] + base[: n - 1]
        best = None
        for _ in range(repeat):
            llm.reset()
            t = time.perf_counter()
            llm.eval(tokens)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        out["prompt_tps"][str(n)] = round(n / best, 1)
    llm.reset()
    prompt = [llm.token_bos()] + base[:64]
    t = time.perf_counter()
    made = 0
    first = None
    for _tok in llm.generate(prompt, temp=0.0, reset=True):
        if first is None:
            first = time.perf_counter()
        made += 1
        if made >= gen + 1:
            break
    end = time.perf_counter()
    out["gen_tps"] = round(gen / (end - (first or t)), 1)
    del llm
    return out


def agent_figures(path: Path, raw: dict) -> dict:
    """The agent's achieved throughput over an eval results file, against the raw rates."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if "usage" in r]
    evaluated = sum(r["usage"].get("reprocessed_prompt_tokens", r["usage"]["prompt_tokens"]) for r in rows)
    prompt = sum(r["usage"]["prompt_tokens"] for r in rows)
    made = sum(r["usage"]["completion_tokens"] for r in rows)
    seconds = sum(r["usage"]["model_seconds"] for r in rows)
    pp = raw["prompt_tps"].get("512") or next(iter(raw["prompt_tps"].values()))
    predicted = evaluated / pp + made / raw["gen_tps"]
    return {
        "questions": len(rows),
        "prompt_tokens": prompt,
        "evaluated_prompt_tokens": evaluated,
        "completion_tokens": made,
        "model_seconds": round(seconds, 1),
        "achieved_tokens_per_s": round((evaluated + made) / seconds, 1) if seconds else None,
        "raw_predicted_seconds": round(predicted, 1),
        "achieved_vs_raw": round(predicted / seconds, 3) if seconds else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, default=None, help="GGUF (default: the embedded model)")
    p.add_argument("--preset", action="append", default=None, help=f"one of {', '.join(PRESETS)}")
    p.add_argument("--config", action="append", default=[], help="k=v,... llama.cpp parameters")
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--gen", type=int, default=64)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--n-ctx", type=int, default=8192)
    p.add_argument("--agent", type=Path, default=None, help="eval qa JSONL to compare with the raw rates")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    model = args.model
    if model is None:
        from refind_desktop.llm.catalog import embedded_model_path

        model = embedded_model_path()
    sizes = tuple(int(x) for x in args.sizes.split(","))
    settings = [(name, PRESETS[name]) for name in (args.preset or ([] if args.config else ["default"]))]
    settings += [(c, parse_config(c)) for c in args.config]
    load = os.getloadavg()
    results = []
    for name, params in settings:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        r = measure(model, params, sizes, args.gen, args.repeat, args.n_ctx)
        r["name"] = name
        results.append(r)
    report: dict = {"model": model.name, "cpus": os.cpu_count(), "loadavg_before": load, "settings": results}
    report["loadavg_after"] = os.getloadavg()
    if args.agent:
        # against every measured setting: the product runs with flash attention on (llm/llama.py)
        report["agent"] = {r["name"]: agent_figures(args.agent, r) for r in results}
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    print("\n| setting | " + " | ".join(f"pp{n} tok/s" for n in sizes) + " | gen tok/s | load s |")
    print("|---" * (len(sizes) + 3) + "|")
    for r in results:
        pps = " | ".join(str(r["prompt_tps"].get(str(n), "-")) for n in sizes)
        print(f"| {r['name']} | {pps} | {r['gen_tps']} | {r['load_seconds']} |")
    print(f"\nload average before {load[0]:.2f}, after {report['loadavg_after'][0]:.2f} (machine shared)")
    for name, a in (report.get("agent") or {}).items():
        print(
            f"agent vs {name}: {a['achieved_tokens_per_s']} tok/s achieved over {a['questions']} questions; "
            f"raw rates predict {a['raw_predicted_seconds']} s for its tokens vs {a['model_seconds']} s "
            f"measured (ratio {a['achieved_vs_raw']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
