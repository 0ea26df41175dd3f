"""The same schema calls made one by one (`LlamaBackend.complete`), decoded together
(`LlamaBackend.complete_many`) without guessed tokens, and decoded together with them (the default), on
the same loaded model in one run: seconds, prompt tokens evaluated, tokens written, decoding steps,
guessed tokens fed and kept, and whether each reply came out the same as one by one.

    python benchmarks/batched_calls.py                       # embedded model, 6 calls, best of 2
    python benchmarks/batched_calls.py --calls 3 --repeat 3 --model PATH.gguf

The calls are readings of a kind that lists things (the answer stage's "count" reading): each gets one
excerpt of the German WhatsApp test set (`benchmarks/sets/de`, 12 messages an excerpt) and asks for the
purchases it names, as JSON under a schema. The calls one by one run first, so the peak RSS after the
batch adds the batch's own llama.cpp context. Prints JSON and a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHAT = next((ROOT / "benchmarks" / "sets" / "de").glob("*.txt"))
SCHEMA = {
    "type": "object",
    "properties": {
        "found": {"type": "boolean"},
        "items": {
            "type": "array",
            "maxItems": 6,
            "items": {
                "type": "object",
                "properties": {
                    "turn": {"type": "string", "maxLength": 4},
                    "words": {"type": "string", "maxLength": 100},
                    "value": {"type": ["number", "null"]},
                },
                "required": ["turn", "words", "value"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["found", "items"],
    "additionalProperties": False,
}


def calls(n: int) -> list:
    """`n` reading calls over consecutive excerpts of the test chat."""
    from refind_desktop.llm.base import ChatMessage

    lines = [ln for ln in CHAT.read_text(encoding="utf-8").splitlines() if " - " in ln and ": " in ln][5:]
    out = []
    for i in range(n):
        part = lines[i * 12 : (i + 1) * 12]
        excerpt = "\n".join(f"[T{k}] {ln.split(' - ', 1)[1]}" for k, ln in enumerate(part))
        prompt = (
            "Question: Wie viele Sachen haben wir für die WG gekauft?\n\nTask: List each purchase this excerpt "
            "names: its turn, a few words naming it, and value: the price if the turn says it, else null.\n"
            'Reply as JSON: {"found": false, "items": []} when it names none.\n\n'
            f"Chat excerpt:\n<<<DATA\n{excerpt}\nDATA>>>"
        )
        out.append(
            ([ChatMessage("system", "You read chat excerpts."), ChatMessage("user", prompt)], SCHEMA, 400)
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, help="a GGUF (default: the embedded model)")
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)

    from refind_desktop.llm.llama import LlamaBackend
    from refind_desktop.llm.llama_batch import MAX_DRAFT

    if args.model is None:
        from refind_desktop.llm.catalog import embedded_model_path

        args.model = embedded_model_path()
    backend = LlamaBackend(args.model)
    batcher = backend.batcher()
    work = calls(args.calls)
    rows: dict = {}
    rss: dict = {}
    for name, budget in (("one by one", 0), ("together", 0), ("together, guessing", MAX_DRAFT)):
        batcher.max_draft = budget
        best = None
        for _ in range(args.repeat):
            backend.load().reset()  # the single calls' cache starts empty, as the batch's context does
            before = (batcher.steps, batcher.guessed, batcher.kept)
            t0 = time.perf_counter()
            if name == "one by one":
                got = [backend.complete(m, schema=s, max_tokens=n) for m, s, n in work]
            else:
                got = backend.complete_many(work)
            took = time.perf_counter() - t0
            counts = [
                now - was
                for now, was in zip((batcher.steps, batcher.guessed, batcher.kept), before, strict=True)
            ]
            if best is None or took < best[0]:
                best = (took, got, counts)
        took, got, (steps, guessed, kept) = best
        rss[name] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        written = sum(c.usage.completion_tokens for c in got)
        rows[name] = {
            "seconds": round(took, 2),
            "prompt_tokens_evaluated": sum(c.usage.reprocessed_prompt_tokens for c in got),
            "tokens_written": written,
            "decoding_steps": steps if name != "one by one" else written,
            "guessed_tokens_fed": guessed,
            "guessed_tokens_kept": kept,
            "replies": [c.text for c in got],
        }
    same = {
        name: sum(a == b for a, b in zip(rows["one by one"]["replies"], r["replies"], strict=True))
        for name, r in rows.items()
        if name != "one by one"
    }
    report = {
        "model": args.model.name,
        "calls": args.calls,
        "repeat": args.repeat,
        "same_replies": same,
        "peak_rss_mib": rss,
        "runs": {k: {f: v for f, v in r.items() if f != "replies"} for k, r in rows.items()},
    }
    print(json.dumps(report, indent=2))
    print(
        "\n| calls made | seconds | prompt tokens evaluated | tokens written | decoding steps | "
        "guessed tokens fed / kept | replies as one by one |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, r in report["runs"].items():
        print(
            f"| {name} | {r['seconds']} | {r['prompt_tokens_evaluated']} | {r['tokens_written']} | "
            f"{r['decoding_steps']} | {r['guessed_tokens_fed']} / {r['guessed_tokens_kept']} | "
            f"{same.get(name, args.calls)} of {args.calls} |"
        )
    print(
        f"\npeak RSS after the calls one by one {rss['one by one']} MiB, after the batches "
        f"{rss['together, guessing']} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
