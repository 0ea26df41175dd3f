"""Index and search benchmark: ingest throughput, index size, peak RSS, latency at 100k/1M turns, bm25s anchor."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .search.engine import SearchOptions
from .types import Session, Turn

Log = Callable[[str], None]


def rss_mb() -> float:
    """Peak resident set size of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_mb(path: Path) -> float:
    """Size of a folder on disk in MB."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def percentiles(ms: list[float]) -> dict[str, float]:
    """p50/p95 of a list of milliseconds."""
    ordered = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 3),
    }


class Synthetic:
    """Deterministic synthetic chat archive: Zipf-distributed pseudo-words, 20-turn sessions."""

    def __init__(self, seed: int = 7, vocab: int = 20000) -> None:
        rng = random.Random(seed)
        syll = [
            "ka",
            "lo",
            "mi",
            "ra",
            "te",
            "su",
            "ven",
            "dor",
            "pli",
            "gar",
            "nu",
            "zel",
            "bo",
            "fi",
            "tra",
            "mon",
            "qui",
            "sel",
            "wa",
            "yo",
            "an",
            "er",
            "ist",
            "ul",
        ]
        words: set[str] = set()
        while len(words) < vocab:
            words.add("".join(rng.choice(syll) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        self.cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(vocab)))
        self.rng = rng

    def sessions(self, n_turns: int, per_session: int = 20, words: int = 60) -> Iterator[Session]:
        """Sessions totalling n_turns turns."""
        start = datetime(2020, 1, 1, tzinfo=timezone.utc)
        made, s = 0, 0
        while made < n_turns:
            k = min(per_session, n_turns - made)
            when = start + timedelta(hours=7 * s)
            turns = []
            for i in range(k):
                toks = self.rng.choices(
                    self.words, cum_weights=self.cum, k=self.rng.randint(words // 2, words * 3 // 2)
                )
                turns.append(Turn(i, " ".join(toks), "user+assistant", when + timedelta(minutes=i)))
            yield Session(f"syn:{s}", f"synthetic {s}", when, turns=turns)
            made += k
            s += 1

    def queries(self, n: int, seed: int = 11) -> list[str]:
        """Keyword queries of 2-4 mid-frequency words."""
        rng = random.Random(seed)
        mid = self.words[50:3000]
        return [" ".join(rng.sample(mid, rng.randint(2, 4))) for _ in range(n)]


def time_queries(engine, queries: list[str], options: SearchOptions) -> dict[str, float]:
    """Latency of full engine searches (BM25 pool, RRF, context fetch)."""
    for q in queries[:10]:
        engine.search(q, options=options)  # warm caches
    ms = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search(q, options=options)
        ms.append((time.perf_counter() - t0) * 1000)
    return percentiles(ms)


def bm25s_anchor(texts: list[str], queries: list[str], k: int = 5) -> dict:
    """Index and query the same texts with bm25s (English stop-words + Snowball stemmer)."""
    try:
        import bm25s
        import Stemmer
    except ImportError:
        return {"error": 'bm25s not installed: pip install "refind-desktop[bench]"'}
    stemmer = Stemmer.Stemmer("english")
    t0 = time.perf_counter()
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    model = bm25s.BM25(k1=1.2, b=0.75)
    model.index(tokens, show_progress=False)
    index_s = time.perf_counter() - t0
    ms = []
    for q in queries:
        t1 = time.perf_counter()
        qt = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        model.retrieve(qt, k=k, show_progress=False)
        ms.append((time.perf_counter() - t1) * 1000)
    return {"index_s": round(index_s, 2), "turns_per_s": round(len(texts) / index_s), **percentiles(ms)}


def _fresh_services(home: Path):
    os.environ["REFIND_HOME"] = str(home)
    os.environ["REFIND_TIMEZONE"] = "UTC"
    from .services import build_services

    return build_services()


def bench_longmemeval(data: Path, work: Path, log: Log) -> dict:
    """Ingest every distinct session of the LongMemEval dev file; pool-vs-exhaustive top-5 check."""
    from .ingest.base import ParseContext
    from .ingest.longmemeval import parse

    svc = _fresh_services(work / "lme")
    sessions = list(parse(data, ParseContext()))
    raw = sum(len(t.text.encode()) for s in sessions for t in s.turns)
    n = sum(len(s.turns) for s in sessions)
    t0 = time.perf_counter()
    svc.ingestor.apply_sessions(sessions, str(data), "longmemeval")
    dt = time.perf_counter() - t0
    out = {
        "sessions": len(sessions),
        "turns": n,
        "raw_mb": round(raw / 1e6, 2),
        "ingest_s": round(dt, 2),
        "turns_per_s": round(n / dt),
        "mb_per_s": round(raw / 1e6 / dt, 2),
        "index_mb": round(dir_mb(svc.index.path), 2),
    }
    opener = gzip.open if str(data).endswith(".gz") else open
    with opener(data, "rt", encoding="utf-8") as fh:
        questions = [q["question"] for q in json.load(fh)]
    differ = 0
    for q in questions:
        pooled = svc.engine.candidates(q, options=SearchOptions(pool=1000))[:5]
        full = svc.engine.candidates(q, options=SearchOptions(pool=0))[:5]
        differ += [(r.sord, r.turn) for r in pooled] != [(r.sord, r.turn) for r in full]
    out["pool1000_vs_exhaustive_top5_differs"] = f"{differ}/{len(questions)}"
    log(f"longmemeval: {out}")
    texts = [t.text for s in sessions for t in s.turns]
    out["bm25s"] = bm25s_anchor(texts, questions)
    svc.close()
    return out


def bench_synthetic(
    total: int,
    work: Path,
    log: Log,
    n_queries: int = 200,
    checkpoints: tuple[int, ...] = (100_000, 1_000_000),
    with_bm25s: bool = True,
) -> dict:
    """Ingest `total` synthetic turns; measure latency at each checkpoint, with bm25s beside it."""
    syn = Synthetic()
    queries = syn.queries(n_queries)
    svc = _fresh_services(work / "syn")
    out: dict = {"checkpoints": {}}
    raw, done, ingest_s = 0, 0, 0.0
    texts: list[str] = []
    gen = syn.sessions(total)
    targets = sorted(c for c in checkpoints if c <= total) or [total]
    for target in targets:
        batch: list[Session] = []
        while done < target:
            s = next(gen)
            batch.append(s)
            done += len(s.turns)
            if len(batch) >= 500 or done >= target:
                raw += sum(len(t.text.encode()) for x in batch for t in x.turns)
                if with_bm25s:
                    texts += [t.text for x in batch for t in x.turns]
                t0 = time.perf_counter()
                svc.ingestor.apply_sessions(batch, "synthetic", "generic")
                ingest_s += time.perf_counter() - t0
                batch = []
        svc.index.reload()
        point = {
            "turns": done,
            "raw_mb": round(raw / 1e6, 1),
            "ingest_s": round(ingest_s, 1),
            "turns_per_s": round(done / ingest_s),
            "mb_per_s": round(raw / 1e6 / ingest_s, 2),
            "index_mb": round(dir_mb(svc.index.path), 1),
            "peak_rss_mb": round(rss_mb()),
            "search_rrf_context": time_queries(svc.engine, queries, SearchOptions()),
            "search_bm25_only": time_queries(svc.engine, queries, SearchOptions(rrf=False, context_window=0)),
        }
        log(f"synthetic @ {done}: {point}")
        if with_bm25s:
            point["bm25s"] = bm25s_anchor(texts, queries)
            b = point["bm25s"]
            if "p50_ms" in b:
                point["ratio_ours_over_bm25s_p50"] = round(
                    point["search_rrf_context"]["p50_ms"] / b["p50_ms"], 2
                )
                point["ratio_ingest_ours_over_bm25s"] = round(point["turns_per_s"] / b["turns_per_s"], 2)
            log(f"bm25s @ {done}: {point['bm25s']}")
        out["checkpoints"][str(done)] = point
    svc.close()
    return out


def write_chatgpt_export(path: Path, target_mb: int) -> int:
    """A synthetic ChatGPT conversations.json of about `target_mb` MB (minified, one line)."""
    syn = Synthetic(seed=3)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        while fh.tell() < target_mb * 1_000_000:
            mapping, parent = (
                {"root": {"id": "root", "message": None, "parent": None, "children": []}},
                "root",
            )
            for i, s_turn in enumerate(next(syn.sessions(10, per_session=10, words=80)).turns):
                for role in ("user", "assistant"):
                    nid = f"{n}-{i}-{role}"
                    mapping[nid] = {
                        "id": nid,
                        "parent": parent,
                        "children": [],
                        "message": {
                            "id": nid,
                            "author": {"role": role},
                            "create_time": 1.7e9 + n * 100 + i,
                            "content": {"content_type": "text", "parts": [s_turn.text]},
                            "metadata": {},
                        },
                    }
                    mapping[parent]["children"].append(nid)
                    parent = nid
            conv = {
                "title": f"conv {n}",
                "create_time": 1.7e9 + n * 100,
                "mapping": mapping,
                "current_node": parent,
                "conversation_id": f"bench-{n}",
                "id": f"bench-{n}",
            }
            fh.write(("," if n else "") + json.dumps(conv, separators=(",", ":")))
            n += 1
        fh.write("]")
    return n


def bench_chatgpt_rss(work: Path, target_mb: int, log: Log) -> dict:
    """Ingest a large ChatGPT export in a child `refind ingest` and report its peak RSS."""
    export = work / "gpt" / "conversations.json"
    export.parent.mkdir(parents=True)
    (export.parent / "user.json").write_text("{}")
    t0 = time.perf_counter()
    convs = write_chatgpt_export(export, target_mb)
    log(
        f"wrote {export.stat().st_size / 1e6:.0f} MB ChatGPT export ({convs} conversations) "
        f"in {time.perf_counter() - t0:.0f}s"
    )
    env = dict(os.environ, REFIND_HOME=str(work / "gpt-home"))
    t0 = time.perf_counter()
    # The child reports its own peak RSS from /proc/self/status VmHWM: getrusage's ru_maxrss is kept
    # across fork+exec on Linux, so it would report this (large) benchmark process instead.
    code = (
        "import resource, sys; from refind_desktop.cli import main; rc = main(sys.argv[1:]); "
        "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')] "
        "if sys.platform == 'linux' else [resource.getrusage(resource.RUSAGE_SELF).ru_maxrss]; "
        "print('PEAK_RSS_KB', hwm[0], file=sys.stderr); sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "ingest", "--json", str(export)], env=env, capture_output=True, text=True
    )
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    peak = int(proc.stderr.rsplit("PEAK_RSS_KB", 1)[1].split()[0])
    rep = json.loads(proc.stdout)
    size = export.stat().st_size / 1e6
    out = {
        "file_mb": round(size),
        "conversations": convs,
        "turns": rep["added_turns"],
        "ingest_s": round(dt, 1),
        "mb_per_s": round(size / dt, 2),
        "child_peak_rss_mb": round(peak / 1024),
    }
    export.unlink()
    log(f"chatgpt export: {out}")
    return out


def run_bench(
    lme: Path | None, turns: int, chatgpt_mb: int, out_dir: Path | None, log: Log, with_bm25s: bool = True
) -> dict:
    """Run every part and return the figures (also written as JSON when out_dir is given)."""
    result: dict = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    with tempfile.TemporaryDirectory(prefix="refind-bench-") as tmp:
        work = Path(tmp)
        old_home = os.environ.get("REFIND_HOME")
        try:
            if lme and lme.exists():
                result["longmemeval"] = bench_longmemeval(lme, work, log)
            if turns:
                checkpoints = tuple(c for c in (100_000, 1_000_000) if c < turns) + (turns,)
                result["synthetic"] = bench_synthetic(
                    turns, work, log, checkpoints=checkpoints, with_bm25s=with_bm25s
                )
            if chatgpt_mb:
                result["chatgpt_export"] = bench_chatgpt_rss(work, chatgpt_mb, log)
        finally:
            if old_home is None:
                os.environ.pop("REFIND_HOME", None)
            else:
                os.environ["REFIND_HOME"] = old_home
    result["peak_rss_mb"] = round(rss_mb())
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "bench.json").write_text(json.dumps(result, indent=2))
    return result
