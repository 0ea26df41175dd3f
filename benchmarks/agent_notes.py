"""Evidence recall of the agent's notes (stage 1 only, no answer stage) in the eval harness's settings.

The answer stage dominates the time of `refind eval qa` with a small local model (a one-search answer
prompt holds every note); the notes alone say whether the answer sessions were found. Each question
runs its controller over the archive (or its haystack) exactly as `refind eval qa` does (`now` = the
question's date, the engine bounded at `EvalQuestion.as_of` in the archive setting) and the record keeps the answer
sessions, the noted sessions, the searches and the model calls. Example:

    python benchmarks/agent_notes.py --data ../shared/benchmarks/longmemeval_s_dev.json.gz \\
        --setting archive --limit 24 --sample stratified --mode refind --out /tmp/notes

`--mode hybrid` needs the archive's windows embedded (they are, under the same --out, after
`refind eval retrieval --setting archive --mode hybrid --out` that folder); unembedded sessions rank
by BM25 only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def stage_one(view, backend, mode: str, question: str, now, overrides: dict | None = None) -> dict:
    """The controller's notes for one question (what `Agent.run` does before the answer stage);
    mode "hybrid" is the ReFind agent over the four-way RRF engine, as `refind ask --mode hybrid`."""
    from refind_desktop.agent import Agent
    from refind_desktop.modes import agent_config

    engine = view.engine
    if mode == "hybrid":
        from refind_desktop.rag.rawrag import hybrid_engine

        engine, mode = hybrid_engine(view), "refind"  # bounded like view.engine
    agent = Agent(
        engine, backend, mode=mode, options=view.search_options(), config=agent_config(view.settings)
    )
    for key, value in (overrides or {}).items():  # controller fields, e.g. first_k=10
        kind = type(getattr(agent.controller, key))
        setattr(agent.controller, key, value.lower() in ("1", "true", "yes") if kind is bool else kind(value))
    run = agent.new_run(question.strip(), now)
    t0 = time.perf_counter()
    agent._loop(run)
    return {
        "noted_sessions": list(dict.fromkeys(n.block.session_id for n in run.notes)),
        "searches": [list(k) for k in run.used],
        "llm_calls": run.usage.calls,
        "seconds": round(time.perf_counter() - t0, 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="longmemeval")
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--setting", default="archive", choices=("archive",))
    ap.add_argument("--limit", type=int, default=24)
    ap.add_argument("--sample", default="stratified")
    ap.add_argument("--mode", default="refind", choices=("refind", "one-search", "generic", "hybrid"))
    ap.add_argument("--backend", default="llama")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--tag", default="")
    ap.add_argument("--set", action="append", default=[], help="controller field=value (repeatable)")
    args = ap.parse_args(argv)

    from refind_desktop.cli.evalcmd import services_factory
    from refind_desktop.config import load_settings
    from refind_desktop.eval.archive import archive_services, build_archive
    from refind_desktop.eval.qa import make_model
    from refind_desktop.eval.runner import QuestionServices

    settings = load_settings()
    archive = build_archive(args.dataset, args.data, args.limit, args.sample)
    backend = make_model(settings, args.backend, None)
    path = args.out / f"notes-{args.mode}{('-' + args.tag) if args.tag else ''}.jsonl"
    args.out.mkdir(parents=True, exist_ok=True)
    done = set()
    if path.exists():
        done = {json.loads(line)["qid"] for line in path.read_text().splitlines() if line.strip()}
    with archive_services(archive, args.dataset, args.data, services_factory(), args.out) as svc:
        for i, q in enumerate(archive.questions, 1):
            if q.qid in done or q.abstention or not q.answer_sessions:
                continue
            view = QuestionServices(svc, q, bounded=True)
            rec = {"qid": q.qid, "type": q.qtype, "answer_sessions": q.answer_sessions}
            overrides = dict(kv.split("=", 1) for kv in args.set)
            rec.update(stage_one(view, backend, args.mode, q.question, q.date, overrides))
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(f"[{i}/{len(archive.questions)}] {q.qid} {rec['seconds']}s", file=sys.stderr, flush=True)
    recs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    n = len(recs)
    hit_any = sum(bool(set(r["answer_sessions"]) & set(r["noted_sessions"])) for r in recs) / n
    hit_all = sum(set(r["answer_sessions"]) <= set(r["noted_sessions"]) for r in recs) / n
    print(
        json.dumps(
            {
                "questions": n,
                "notes_any": round(hit_any, 3),
                "notes_all": round(hit_all, 3),
                "sessions_per_question": round(sum(len(r["noted_sessions"]) for r in recs) / n, 2),
                "searches_per_question": round(sum(len(r["searches"]) for r in recs) / n, 2),
                "llm_calls_per_question": round(sum(r["llm_calls"] for r in recs) / n, 2),
                "seconds_per_question": round(sum(r["seconds"] for r in recs) / n, 2),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
