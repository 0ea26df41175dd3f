"""Measure the terminal app: cold start to interactive, idle RSS, and watched-file-to-searchable latency.

Start-up and memory run the real `refind tui` in a tmux pane (needs tmux); the watch latency runs the
app headless (Textual's run_test) and appends lines to a watched Claude Code JSONL. Example:

    python benchmarks/tui_bench.py --runs 5 --appends 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "refind_desktop" / "samples"
SESSION = "7d3c1b2a-1111-4222-8333-444455556666"


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def rss_kib(pid: int) -> int:
    """VmRSS of a process and its children, in KiB."""
    total = 0
    pids = [pid]
    while pids:
        p = pids.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
            pids += [int(c) for c in children]
        except OSError:
            continue
    return total


SOCKET = f"refind-bench-{os.getpid()}"


def tmux(*args: str, check: bool = True) -> str:
    """Run tmux on the benchmark's own server (a keeper session keeps it up between runs)."""
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=check).stdout


def start_once(home: Path, folder: Path, settle: float) -> tuple[float, float, int]:
    """(ms to the first frame with the question box, ms to index totals shown, idle RSS KiB)."""
    name = f"refind-bench-{os.getpid()}"
    env = {**os.environ, "REFIND_HOME": str(home), "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    command = f"{sys.executable} -m refind_desktop tui --folder {folder}"
    t0 = time.perf_counter()
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", name, "-x", "120", "-y", "36", command],
        check=True,
        env=env,
    )
    first = ready = None
    try:
        while ready is None and time.perf_counter() - t0 < 60:
            screen = tmux("capture-pane", "-p", "-t", name)
            now = time.perf_counter()
            if first is None and "Ask about your chats" in screen:
                first = now
            if (
                first is not None
                and " sessions · " in screen
                and "indexing…" not in screen
                and " 0 sessions" not in screen
            ):
                ready = now
            time.sleep(0.01)
        time.sleep(settle)
        pid = int(tmux("display", "-p", "-t", name, "#{pane_pid}").strip())
        rss = rss_kib(pid)
    finally:
        tmux("kill-session", "-t", name, check=False)
    if first is None or ready is None:
        raise SystemExit("the app never became interactive (is refind importable?)")
    return (first - t0) * 1000, (ready - t0) * 1000, rss


def claude_line(n: int, word: str) -> str:
    return (
        json.dumps(
            {
                "parentUuid": None,
                "type": "user",
                "sessionId": SESSION,
                "uuid": f"bench-{n}",
                "message": {"role": "user", "content": f"benchmark note {word} number {n}"},
                "timestamp": "2025-08-06T09:00:00.000Z",
            }
        )
        + "\n"
    )


async def watch_latency(folder: Path, appends: int, debounce: float) -> list[float]:
    """ms from a line appended to the watched JSONL to its turn being returned by the app's search."""
    from refind_desktop.services import build_services
    from refind_desktop.tui import RefindApp

    svc = build_services()
    app = RefindApp(svc, folder=str(folder), debounce=debounce)
    out: list[float] = []
    target = folder / "claude-code" / f"{SESSION}.jsonl"
    async with app.run_test(size=(120, 36)) as pilot:
        while app.watcher is None or not app.watcher.wait_idle(0.01):
            await pilot.pause(0.05)
        for n in range(appends):
            word = f"zqx{n:03d}marker"
            t0 = time.perf_counter()
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(claude_line(n, word))
            while not svc.engine.search(word):
                if time.perf_counter() - t0 > 30:
                    raise SystemExit(f"append {n} never became searchable")
                await pilot.pause(0.005)
            out.append((time.perf_counter() - t0) * 1000)
            await pilot.pause(0.05)
    svc.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold starts to time")
    parser.add_argument("--appends", type=int, default=50, help="lines appended for the watch latency")
    parser.add_argument("--debounce", type=float, default=None, help="watch debounce (default: the app's)")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds idle before reading RSS")
    parser.add_argument("--skip-start", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="refind-tui-bench-"))
    folder = work / "chats"
    shutil.copytree(SAMPLES, folder)
    os.environ["REFIND_HOME"] = str(work / "home")
    report: dict = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    if not args.skip_start:
        if shutil.which("tmux") is None:
            raise SystemExit(
                "tmux is needed for the start-up measures (apt-get install tmux) or --skip-start"
            )
        tmux("new-session", "-d", "-s", "keeper", "sleep 3600")
        try:
            runs = [start_once(work / "home", folder, args.settle) for _ in range(args.runs)]
        finally:
            tmux("kill-server", check=False)
        first, ready, rss = zip(*runs, strict=True)
        report["cold_start_first_frame_ms"] = {
            "median": round(statistics.median(first)),
            "all": [round(x) for x in first],
        }
        report["cold_start_to_interactive_ms"] = {
            "median": round(statistics.median(ready)),
            "all": [round(x) for x in ready],
        }
        report["idle_rss_mib"] = {
            "median": round(statistics.median(rss) / 1024, 1),
            "all": [round(x / 1024, 1) for x in rss],
        }
    from refind_desktop.tui.app import DEBOUNCE

    debounce = DEBOUNCE if args.debounce is None else args.debounce
    lat = asyncio.run(watch_latency(folder, args.appends, debounce))
    report["watch_append_to_searchable_ms"] = {
        "debounce_s": debounce,
        "n": len(lat),
        "p50": round(pct(lat, 50)),
        "p95": round(pct(lat, 95)),
        "min": round(min(lat)),
        "max": round(max(lat)),
    }
    print(json.dumps(report, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
