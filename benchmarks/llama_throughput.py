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
            flag = k.strip() in ("flash_attn", "extra_buffers")
            out[k.strip()] = bool(int(v)) if flag else _value(v.strip())
    return out


def measure(model: Path, params: dict, sizes: tuple[int, ...], gen: int, repeat: int, n_ctx: int) -> dict:
    """Prompt tokens/s per size and generation tokens/s for one setting."""
    import llama_cpp

    from refind_desktop.llm.llama import new_llama

    threads = os.cpu_count() or 1
    kw = {"n_threads": threads, "n_threads_batch": threads, "n_batch": 512, "n_ubatch": 512} | params
    t0 = time.perf_counter()
    llm = new_llama(llama_cpp, model_path=str(model), n_ctx=n_ctx, verbose=False, **kw)
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
        out.setdefault("gen_tps_at", {})[str(n)] = generation(llm, tokens, gen)
    out["gen_tps"] = generation(llm, [llm.token_bos()] + base[:64], gen)
    out["gen_json_tps"] = json_generation(llm, gen)
    del llm
    return out


def generation(llm, prompt: list[int], gen: int) -> float:
    """Greedy generation tokens/s after `prompt` (attention over a longer context costs more). The
    prompt is not evaluated again when the cache already holds it (llama-cpp-python reuses the common
    prefix); the clock starts at the first generated token either way."""
    t = time.perf_counter()
    made = 0
    first = None
    for _tok in llm.generate(prompt, temp=0.0, reset=True):
        if first is None:
            first = time.perf_counter()
        made += 1
        if made >= gen + 1:
            break
    return round(gen / (time.perf_counter() - (first or t)), 1)


JSON_NOTES = " ".join(
    f"[S{i} T{j}] I paid ${10 * i + j} for the {w} on day {i + j}."
    for i in range(1, 5)
    for j, w in enumerate(("umbrella", "bike lock", "museum ticket"))
)


def json_generation(llm, gen: int) -> dict:
    """Generation tokens/s under a JSON-schema grammar (the agent's reading reply for a total), with
    llama-cpp-python's own sampler ("stock": the grammar over every token of the vocabulary) and
    with the product's grammar-first check (llm/grammar_first.py); the prompt's time is measured
    apart and taken off."""
    import llama_cpp

    from refind_desktop.agent.reading import schema
    from refind_desktop.llm.grammar_first import GrammarFirst

    tags = [f"T{j}" for j in range(12)]
    msgs = [{"role": "user", "content": JSON_NOTES + "\nList every amount with its turn as JSON."}]
    fmt = {"type": "json_object", "schema": schema("total", tags)}

    def timed(max_tokens: int) -> tuple[float, int]:
        llm.reset()
        t = time.perf_counter()
        r = llm.create_chat_completion(
            messages=msgs, max_tokens=max_tokens, temperature=0.0, response_format=fmt
        )
        return time.perf_counter() - t, r["usage"]["completion_tokens"]

    rates = {}
    for name in ("stock", "grammar_first"):
        if name == "grammar_first":
            GrammarFirst(llm, llama_cpp)
        prompt_s, _ = timed(1)
        total_s, made = timed(max(gen, 96))
        rates[name] = round((made - 1) / max(total_s - prompt_s, 1e-6), 1)
    return rates


def _along(points: list[tuple[int, float]], at: float) -> float:
    """The rate at `at` from measured (size, rate) points: linear between them, held at the ends."""
    points = sorted(points)
    if at <= points[0][0]:
        return points[0][1]
    for (n0, r0), (n1, r1) in zip(points, points[1:], strict=False):
        if at <= n1:
            return r0 + (r1 - r0) * (at - n0) / (n1 - n0)
    return points[-1][1]


def pp_rate(raw: dict, prompt: int, evaluated: int) -> float:
    """The raw prompt rate for evaluating the last `evaluated` of `prompt` tokens: the measured rate
    of a whole prompt whose tokens sit, on average, where these do (2·prompt − evaluated tokens)."""
    return _along([(int(n), r) for n, r in raw["prompt_tps"].items()], 2 * prompt - evaluated)


def gen_rate(raw: dict, prompt: int) -> float:
    """The raw generation rate after a prompt of `prompt` tokens: measured after a 65-token prompt
    and after each measured prompt size."""
    return _along(
        [(65, raw["gen_tps"])] + [(int(n), r) for n, r in (raw.get("gen_tps_at") or {}).items()], prompt
    )


def agent_figures(path: Path, raw: dict) -> dict:
    """The agent's achieved throughput over an eval results file, against the raw rates.

    With per-call records (`usage.per_call`) each call's prompt is priced at the raw rate for its
    length and its reply at the raw free-text rate after a short prompt ("strict"), or JSON replies at
    the raw grammar-first JSON rate ("json"), or every reply at the raw rate after a prompt of its
    call's length, scaled by the JSON/free ratio for JSON replies ("matched": the same shapes of work
    as the agent's); without them, every prompt token at the 512-token rate ("flat")."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if "usage" in r]
    evaluated = sum(r["usage"].get("reprocessed_prompt_tokens", r["usage"]["prompt_tokens"]) for r in rows)
    prompt = sum(r["usage"]["prompt_tokens"] for r in rows)
    made = sum(r["usage"]["completion_tokens"] for r in rows)
    seconds = sum(r["usage"]["model_seconds"] for r in rows)
    pp = raw["prompt_tps"].get("512") or next(iter(raw["prompt_tps"].values()))
    flat = evaluated / pp + made / raw["gen_tps"]
    calls = [c for r in rows for c in r["usage"].get("per_call") or []]
    out = {
        "questions": len(rows),
        "prompt_tokens": prompt,
        "evaluated_prompt_tokens": evaluated,
        "completion_tokens": made,
        "model_seconds": round(seconds, 1),
        "achieved_tokens_per_s": round((evaluated + made) / seconds, 1) if seconds else None,
        "raw_predicted_seconds_flat": round(flat, 1),
        "achieved_vs_raw_flat": round(flat / seconds, 3) if seconds else None,
    }
    if calls:
        json_rate = (raw.get("gen_json_tps") or {}).get("grammar_first") or raw["gen_tps"]
        prompt_s = sum(
            c["reprocessed_prompt_tokens"] / pp_rate(raw, c["prompt_tokens"], c["reprocessed_prompt_tokens"])
            for c in calls
        )
        free = sum(c["completion_tokens"] for c in calls if not c["json"])
        constrained = sum(c["completion_tokens"] for c in calls if c["json"])
        strict = prompt_s + (free + constrained) / raw["gen_tps"]
        with_json = prompt_s + free / raw["gen_tps"] + constrained / json_rate
        json_factor = json_rate / raw["gen_tps"]
        matched = prompt_s + sum(
            c["completion_tokens"] / (gen_rate(raw, c["prompt_tokens"]) * (json_factor if c["json"] else 1.0))
            for c in calls
        )
        called = sum(c["seconds"] for c in calls)
        out |= {
            "calls": len(calls),
            "call_seconds": round(called, 1),
            "raw_predicted_seconds_strict": round(strict, 1),
            "achieved_vs_raw_strict": round(strict / called, 3) if called else None,
            "raw_predicted_seconds_json": round(with_json, 1),
            "achieved_vs_raw_json": round(with_json / called, 3) if called else None,
            "raw_predicted_seconds_matched": round(matched, 1),
            "achieved_vs_raw_matched": round(matched / called, 3) if called else None,
        }
    return out


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
    head = " | ".join(f"pp{n} tok/s" for n in sizes)
    after = " | ".join(f"gen after {n} tok/s" for n in sizes)
    print(f"\n| setting | {head} | gen tok/s | {after} | JSON gen tok/s (stock / grammar-first) | load s |")
    print("|---" * (2 * len(sizes) + 4) + "|")
    for r in results:
        pps = " | ".join(str(r["prompt_tps"].get(str(n), "-")) for n in sizes)
        gens = " | ".join(str((r.get("gen_tps_at") or {}).get(str(n), "-")) for n in sizes)
        js = r.get("gen_json_tps") or {}
        print(
            f"| {r['name']} | {pps} | {r['gen_tps']} | {gens} | {js.get('stock')} / {js.get('grammar_first')} | "
            f"{r['load_seconds']} |"
        )
    print(f"\nload average before {load[0]:.2f}, after {report['loadavg_after'][0]:.2f} (machine shared)")
    for name, a in (report.get("agent") or {}).items():
        line = (
            f"agent vs {name}: {a['achieved_tokens_per_s']} tok/s achieved over {a['questions']} questions; "
            f"flat (every prompt token at the 512 rate): raw predicts {a['raw_predicted_seconds_flat']} s vs "
            f"{a['model_seconds']} s measured (ratio {a['achieved_vs_raw_flat']})"
        )
        if "calls" in a:
            line += (
                f"; per call ({a['calls']} calls, {a['call_seconds']} s): strict {a['raw_predicted_seconds_strict']}"
                f" s (ratio {a['achieved_vs_raw_strict']}), JSON replies at the raw JSON rate "
                f"{a['raw_predicted_seconds_json']} s (ratio {a['achieved_vs_raw_json']}), every reply at "
                f"the raw rate for its context {a['raw_predicted_seconds_matched']} s (ratio "
                f"{a['achieved_vs_raw_matched']})"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
