"""Measure `refind mcp` over stdio: `search` round-trip latency next to the Python API, start-up time, RSS.

Ingests a LongMemEval file (default: the dev split) into a temporary REFIND_HOME with the real CLI, then
uses the official MCP SDK client against a real `refind mcp` subprocess. Example:

    nice -n 10 python benchmarks/mcp_bench.py --calls 200 --out /tmp/mcp_bench.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DATA = Path("/work/shared/benchmarks/longmemeval_s_dev.json.gz")
ROOT = Path(__file__).resolve().parents[1]


def env_for(home: Path) -> dict[str, str]:
    """Environment for the CLI and server subprocesses (this checkout first on the path)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {"REFIND_HOME": str(home), "REFIND_TIMEZONE": "UTC", "PYTHONPATH": path}


def questions(data: Path) -> list[str]:
    """The benchmark's question texts, used as keyword queries (the engine keeps the searchable words)."""
    opener = gzip.open if data.suffix == ".gz" else open
    with opener(data, "rt", encoding="utf-8") as fh:
        return [str(item["question"]) for item in json.load(fh)]


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of `values`, in milliseconds."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return round(ordered[k] * 1000, 3)


def summary(values: list[float]) -> dict:
    """p50 / p95 / mean in ms."""
    return {
        "p50_ms": pct(values, 50),
        "p95_ms": pct(values, 95),
        "mean_ms": round(statistics.fmean(values) * 1000, 3),
    }


def rss_kb(pid: int) -> int:
    """Resident set size of a process, from /proc (kB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def server_pid() -> int:
    """PID of our `refind mcp` child (the SDK client spawned it)."""
    me = str(os.getpid())
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"refind_desktop mcp" in cmd:
            return int(proc.name)
    raise RuntimeError("server process not found")


def api_latency(home: Path, queries: list[str]) -> dict:
    """The same searches through the Python API in this process: the engine alone, and the tool's function."""
    os.environ.update(env_for(home))
    sys.path.insert(0, str(ROOT))
    from refind_desktop.mcp import archive
    from refind_desktop.services import build_services

    svc = build_services()
    for q in queries[:5]:
        svc.engine.search(q, options=svc.search_options())
    engine, tool = [], []
    for q in queries:
        t0 = time.perf_counter()
        svc.engine.search(q, options=svc.search_options())
        engine.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        archive.search(svc, q)  # + index reload, empty check and delimited JSON shaping
        tool.append(time.perf_counter() - t0)
    svc.close()
    return {"engine_search": summary(engine), "archive_search": summary(tool)}


async def mcp_latency(home: Path, queries: list[str], starts: int) -> dict:
    """Start-up (spawn → initialised) over `starts` runs; then the searches over stdio; RSS at rest."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "refind_desktop", "mcp"], env=env_for(home)
    )
    startup, first_call = [], []
    out: dict = {}
    with open(os.devnull, "w") as errlog:
        for run in range(starts):
            t0 = time.perf_counter()
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    startup.append(time.perf_counter() - t0)
                    await session.call_tool("search", {"keywords": queries[0]})
                    first_call.append(time.perf_counter() - t0)
                    if run < starts - 1:
                        continue
                    pid = server_pid()
                    time.sleep(1.0)
                    out["rss_at_rest_after_start_kb"] = rss_kb(pid)
                    for q in queries[:5]:
                        await session.call_tool("search", {"keywords": q})
                    times, sizes = [], []
                    for q in queries:
                        t1 = time.perf_counter()
                        res = await session.call_tool("search", {"keywords": q})
                        times.append(time.perf_counter() - t1)
                        assert not res.is_error, res.content
                        sizes.append(len(res.content[0].text.encode()))
                    time.sleep(1.0)
                    out["rss_at_rest_after_searches_kb"] = rss_kb(pid)
                    out["search"] = summary(times)
                    out["mean_response_bytes"] = round(statistics.fmean(sizes))
    out["startup_to_initialized"] = summary(startup)
    out["startup_to_first_search"] = summary(first_call)
    out["starts"] = starts
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--starts", type=int, default=5, help="server start-ups to time")
    p.add_argument("--home", type=Path, default=None, help="reuse an ingested REFIND_HOME")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    import anyio

    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp) / "home"
        ingest_s = None
        if args.home is None:
            t0 = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "refind_desktop", "ingest", str(args.data)],
                env={**os.environ, **env_for(home)},
                capture_output=True,
                text=True,
            )
            ingest_s = round(time.perf_counter() - t0, 2)
            if done.returncode:
                print(done.stderr, file=sys.stderr)
                return 1
        qs = questions(args.data)
        queries = [qs[i % len(qs)] for i in range(args.calls)]
        stats = json.loads(
            subprocess.run(
                [sys.executable, "-m", "refind_desktop", "stats", "--json"],
                env={**os.environ, **env_for(home)},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        result = {
            "archive": {"sessions": stats["sessions"], "turns": stats["turns"], "ingest_seconds": ingest_s},
            "calls": args.calls,
            "distinct_queries": len(set(queries)),
            "mcp_stdio": anyio.run(mcp_latency, home, queries, args.starts),
            "python_api": api_latency(home, queries),
        }
    mcp, api = result["mcp_stdio"]["search"], result["python_api"]
    result["ratio_mcp_over_engine"] = {
        k: round(mcp[k] / api["engine_search"][k], 2) for k in ("p50_ms", "p95_ms", "mean_ms")
    }
    result["ratio_mcp_over_archive_search"] = {
        k: round(mcp[k] / api["archive_search"][k], 2) for k in ("p50_ms", "p95_ms", "mean_ms")
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
