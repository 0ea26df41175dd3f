"""Raw-RAG benchmark: embedding throughput, vector storage per 100k windows, dense/hybrid query latency.

Throughput uses the packaged all-MiniLM-L6-v2 on real 256-token windows of LongMemEval sessions;
storage and latency use synthetic windows (random unit vectors) over a synthetic turn index.

    python benchmarks/rag_bench.py --windows 100000 --threads 2 --out /tmp/rag_bench.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DEFAULT_DATA = Path("/work/shared/benchmarks/longmemeval_s_dev.json.gz")


def pct(ms: list[float]) -> dict[str, float]:
    """p50 / p95 of milliseconds."""
    s = sorted(ms)
    return {"p50_ms": round(statistics.median(s), 2), "p95_ms": round(s[max(0, int(len(s) * 0.95) - 1)], 2)}


def throughput(data: Path, n: int, threads: int, batch: int) -> dict:
    """Windows/s of the packaged model on the first n windows cut from LongMemEval sessions."""
    from refind_desktop.ingest.base import ParseContext
    from refind_desktop.ingest.longmemeval import parse
    from refind_desktop.rag.models import Embedder
    from refind_desktop.rag.windows import session_windows
    from refind_desktop.types import TurnView

    t0 = time.perf_counter()
    emb = Embedder("", threads=threads, batch_size=batch)
    load_s = time.perf_counter() - t0
    items = json.load(gzip.open(data))[:1]
    tmp = Path(tempfile.mkdtemp()) / "q.json"
    tmp.write_text(json.dumps(items))
    wins = []
    t0 = time.perf_counter()
    for s in parse(tmp, ParseContext()):
        views = [TurnView(s.session_id, t.index, t.speaker, t.timestamp, t.text) for t in s.turns]
        wins += session_windows(views, emb.tokenize)
        if len(wins) >= n:
            break
    window_s = time.perf_counter() - t0
    wins = wins[:n]
    n_tokens = sum(w.n_tokens for w in wins)
    emb.encode([w.text for w in wins[:batch]])  # warm-up
    t0 = time.perf_counter()
    emb.encode([w.text for w in wins])
    dt = time.perf_counter() - t0
    q = []
    for text in ["what did I buy for my sister's birthday?", "how long is my commute", "tomato plants"] * 7:
        t1 = time.perf_counter()
        emb.encode([text])
        q.append((time.perf_counter() - t1) * 1000)
    return {
        "model": emb.name,
        "threads": threads,
        "batch": batch,
        "windows": len(wins),
        "load_seconds": round(load_s, 2),
        "tokenize_window_seconds": round(window_s, 2),
        "mean_tokens_per_window": round(n_tokens / max(len(wins), 1), 1),
        "embed_seconds": round(dt, 2),
        "windows_per_second": round(len(wins) / dt, 2),
        "query_encode": pct(q),
    }


class RandomQuery:
    """Stand-in embedder for the latency part: random unit vectors (encoding is timed separately)."""

    name = "synthetic-384"
    dim = 384

    def __init__(self) -> None:
        self.rng = np.random.default_rng(3)

    def encode(self, texts: list[str]) -> np.ndarray:
        v = self.rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def tokenize(self, text: str) -> list[tuple[int, int]]:
        from refind_desktop.rag.windows import whitespace_tokenize

        return whitespace_tokenize(text)


def storage_and_latency(n_windows: int, queries: int) -> dict:
    """Synthetic archive (20-turn sessions, one window per turn pair) → disk bytes and query latency."""
    from refind_desktop.bench import Synthetic
    from refind_desktop.rag.dense import DenseRetriever
    from refind_desktop.rag.hybrid import HybridEngine
    from refind_desktop.rag.rawrag import blocks_from_windows
    from refind_desktop.rag.windows import Window
    from refind_desktop.search.engine import SearchOptions
    from refind_desktop.services import build_services

    home = tempfile.mkdtemp(prefix="rag-bench-")
    os.environ["REFIND_HOME"] = home
    os.environ["REFIND_TIMEZONE"] = "UTC"
    svc = build_services()
    syn = Synthetic()
    t0 = time.perf_counter()
    svc.ingestor.apply_sessions(syn.sessions(n_windows), "synthetic", "generic")  # 1 window per turn
    index_s = time.perf_counter() - t0
    fake = RandomQuery()
    dense = DenseRetriever(svc.index, svc.catalog, embedder=fake, reranker=(None, "benchmark"))
    store = dense.store
    store.check_model(fake.name, fake.dim)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    added = 0
    batch: list = []
    for rec in svc.catalog.iter_sessions():
        store.table.set_content(rec.ord, rec.hashes)
        for t in range(rec.n_turns):
            batch.append(
                (rec.ord, Window(t * 224, 256, t, min(t + 1, rec.n_turns - 1), f"w{rec.ord}:{t}", 0, 10))
            )
        if len(batch) >= 4096:
            v = rng.standard_normal((len(batch), fake.dim)).astype(np.float32)
            added += store.append(batch, v / np.linalg.norm(v, axis=1, keepdims=True))
            batch = []
    if batch:
        v = rng.standard_normal((len(batch), fake.dim)).astype(np.float32)
        added += store.append(batch, v / np.linalg.norm(v, axis=1, keepdims=True))
    write_s = time.perf_counter() - t0
    shards = sum(p.stat().st_size for p in store.shard_dir.glob("*.npy"))
    table = sum(p.stat().st_size for p in store.folder.glob("windows.sqlite*"))
    t0 = time.perf_counter()
    store.load(force=True)
    load_s = time.perf_counter() - t0

    qs = syn.queries(queries)
    cosine, rawrag, hybrid, bm25 = [], [], [], []
    engine = HybridEngine(svc.index, svc.catalog, dense, svc.tz)
    opts = SearchOptions()
    for q in qs:
        t1 = time.perf_counter()
        store.search(fake.encode([q])[0], 128)
        cosine.append((time.perf_counter() - t1) * 1000)
        t1 = time.perf_counter()
        ret = dense.retrieve(q)
        blocks_from_windows(dense, ret.kept)
        rawrag.append((time.perf_counter() - t1) * 1000)
        t1 = time.perf_counter()
        engine.search(q, options=opts)
        hybrid.append((time.perf_counter() - t1) * 1000)
        t1 = time.perf_counter()
        svc.engine.search(q, options=opts)
        bm25.append((time.perf_counter() - t1) * 1000)
    scale = 100_000 / max(added, 1)
    return {
        "windows": added,
        "turns_indexed": svc.index.num_turns(),
        "index_seconds": round(index_s, 1),
        "vector_write_seconds": round(write_s, 2),
        "load_seconds": round(load_s, 3),
        "shard_bytes": shards,
        "table_bytes": table,
        "mb_per_100k_windows": round((shards + table) * scale / 1e6, 1),
        "queries": len(qs),
        "exact_cosine_top128": pct(cosine),
        "rawrag_retrieval_no_rerank_no_encode": pct(rawrag),
        "hybrid_search_no_encode": pct(hybrid),
        "bm25_refind_search": pct(bm25),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--windows", type=int, default=100_000)
    ap.add_argument("--embed-windows", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--skip-embed", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    random.seed(0)
    out = {"load_average_start": os.getloadavg()}
    if not args.skip_embed:
        out["embedding"] = throughput(args.data, args.embed_windows, args.threads, args.batch)
        print(json.dumps(out["embedding"]), file=sys.stderr, flush=True)
    out["latency"] = storage_and_latency(args.windows, args.queries)
    out["load_average_end"] = os.getloadavg()
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
