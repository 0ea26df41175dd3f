"""What one decoding step of the batch decoder (`llm/llama_batch.py`) costs by the tokens it feeds:
the seconds of a step of 1 to 24 tokens over one or six sequences, each with its logits, after a
700-token prompt, on one loaded model (best of three). It says how much writing several replies side
by side saves, and what feeding a step more tokens (guessed ones, say) would cost.

    python benchmarks/step_cost.py                 # the embedded model
    python benchmarks/step_cost.py --model PATH.gguf

Prints JSON and a Markdown table (milliseconds a step, and a token).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = [(1, 1), (2, 1), (3, 1), (4, 1), (6, 1), (8, 1), (12, 1), (16, 1), (6, 6), (12, 6), (16, 6), (24, 6)]
"""(tokens a step feeds, sequences they belong to)."""
PROMPT = 700


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, help="a GGUF (default: the embedded model)")
    args = ap.parse_args(argv)

    from refind_desktop.llm.llama import LlamaBackend

    if args.model is None:
        from refind_desktop.llm.catalog import embedded_model_path

        args.model = embedded_model_path()
    backend = LlamaBackend(args.model)
    llm = backend.load()
    dec = backend.batcher()
    dec._context()
    lib = dec.lib
    memory = lib.llama_get_memory(dec._ctx)
    text = "I watered the basil, repotted the fern and bought a new pot for the lemon tree. " * 40
    toks = llm.tokenize(text.encode(), add_bos=False)[:PROMPT]
    dec._feed([(tok, pos, 0, False) for pos, tok in enumerate(toks)])
    for seq in range(1, 6):
        lib.llama_memory_seq_cp(memory, 0, seq, -1, -1)
    rows = []
    for n, seqs in SHAPES:
        best = None
        for _ in range(3):
            entries = [(toks[i % 50], PROMPT + i // seqs, i % seqs, True) for i in range(n)]
            t0 = time.perf_counter()
            dec._feed(entries)
            took = time.perf_counter() - t0
            best = took if best is None else min(best, took)
            for seq in range(seqs):
                lib.llama_memory_seq_rm(memory, seq, PROMPT, -1)
        rows.append({"tokens": n, "sequences": seqs, "ms_a_step": round(best * 1000, 1)})
    print(json.dumps({"model": args.model.name, "prompt_tokens": PROMPT, "steps": rows}, indent=2))
    print("\n| tokens a step | sequences | ms a step | ms a token |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['tokens']} | {r['sequences']} | {r['ms_a_step']} | {r['ms_a_step'] / r['tokens']:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
