"""Remote sources: 10,000 small Claude Code session files pulled over SSH and ingested, beside a local ingest.

A real sshd is started on 127.0.0.1 (tests/helpers/sshd.py: throwaway host and user keys, its own
ssh_config), `N` one-file sessions are written into the folder it serves (refind_desktop.bench_files
.write_sessions), and in one run, so the ratios hold on a loaded machine:

- local: `refind ingest FOLDER` of that folder, into a fresh data folder;
- first pull + ingest: `refind ingest` (no paths) with the folder added as `ssh://USER@127.0.0.1:PORT/…`,
  into another fresh data folder (rsync into the mirror, then the ingest of the mirror);
- re-pull, one new file: one more session file written on the remote, then `refind ingest` again;
- re-pull, nothing new: `refind ingest` once more.

The goals (issue 38): first pull + ingest at most 2x local + 10 s; a re-pull with one new file under 3 s.
Over 127.0.0.1 there is no network latency, so the pull figures are what SSH, rsync and the file system
cost, not a WAN. Example:

    python benchmarks/remote_bench.py --files 10000 --json remote.json
    python benchmarks/remote_bench.py --files 2000 --sftp   # the no-rsync fallback too
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from helpers.sshd import SshServer, missing_binaries  # noqa: E402

from refind_desktop.bench_files import PROJECT, cpu_s, session_lines, write_sessions  # noqa: E402


def run_cli(*argv: str) -> tuple[float, float, int, dict]:
    """`refind ARGV --json` in this process: (wall s, CPU s, exit code, its JSON)."""
    from refind_desktop.cli import main

    out, err = io.StringIO(), io.StringIO()
    t0, c0 = time.perf_counter(), cpu_s()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--json"])
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    try:
        data = json.loads(out.getvalue())
    except ValueError:
        data = {"stderr": err.getvalue()[-500:]}
    return round(wall, 2), round(cpu, 2), code, data


def figures(wall: float, cpu: float, code: int, data: dict) -> dict:
    """The part of an ingest's JSON the benchmark reports."""
    out = {"wall_s": wall, "cpu_s_this_process": cpu, "exit": code}
    for key in ("added_turns", "ingested_files", "unchanged_files"):
        out[key] = data.get(key)
    remotes = data.get("remotes") or []
    if remotes:
        out["pull_s"] = round(sum(r["seconds"] for r in remotes), 2)
        out["pulled_files"] = sum(r["files"] for r in remotes)
        out["pulled_bytes"] = sum(r["bytes"] for r in remotes)
        out["method"] = remotes[0]["method"]
        out["errors"] = [r["error"] for r in remotes if r["error"]]
    return out


def use_home(home: Path) -> None:
    """Point refind at a fresh data folder (a new process state for the CLI)."""
    os.environ["REFIND_HOME"] = str(home)
    os.environ["REFIND_TIMEZONE"] = "UTC"


def one_more_session(folder: Path, n: int) -> None:
    """Write one new session file into the served folder, as an agent would (whole, by rename)."""
    import random
    import uuid
    from datetime import datetime, timezone

    from refind_desktop.bench import Synthetic

    rng = random.Random(1000 + n)
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    lines = session_lines(
        Synthetic(seed=77, vocab=5000), rng, sid, 2, datetime(2026, 1, 1, tzinfo=timezone.utc)
    )
    tmp = folder / f".{sid}.tmp"
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, folder / PROJECT / f"{sid}.jsonl")


def bench(work: Path, files: int, sftp: bool) -> dict:
    """Every figure of the module docstring, in one run."""
    served = work / "remote-home"
    turns = write_sessions(served, files, 2, one_file=False)
    folder = served / ".claude" / "projects"
    (work / "sshd").mkdir()
    server = SshServer(work / "sshd").start()
    os.environ["REFIND_SSH_CONFIG"] = str(server.client_config)
    try:
        use_home(work / "home-local")
        local = figures(*run_cli("ingest", str(folder)))
        out = {"files": files, "turns": turns, "local_ingest": local}
        methods = ["rsync"] + (["sftp"] if sftp else [])
        for method in methods:
            use_home(work / f"home-{method}")
            from refind_desktop import locations
            from refind_desktop.ingest.remote_spec import parse_remote
            from refind_desktop.ingest.remote_store import RemoteStore

            RemoteStore(locations.data_dir()).add(parse_remote(server.url(folder)))
            if method == "sftp":  # the remote "has no rsync"
                os.environ["REFIND_RSYNC_PATH"] = "/nonexistent/rsync"
            first = figures(*run_cli("ingest"))
            one_more_session(served, files + len(out))
            again = figures(*run_cli("ingest"))
            idle = figures(*run_cli("ingest"))
            out[method] = {
                "first_pull_and_ingest": first,
                "repull_one_new_file": again,
                "repull_nothing_new": idle,
            }
        rs = out["rsync"]
        goal = 2 * local["wall_s"] + 10
        out["goals"] = {
            "first_within_s": round(goal, 2),
            "first_ok": rs["first_pull_and_ingest"]["wall_s"] <= goal,
            "repull_one_new_under_3s": rs["repull_one_new_file"]["wall_s"] < 3,
        }
        out["cpus"] = os.cpu_count()
        out["loadavg_at_end"] = os.getloadavg()
        return out
    finally:
        server.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=10_000, help="session files on the remote (default 10000)")
    ap.add_argument(
        "--sftp", action="store_true", help="also measure the SFTP fallback (no rsync on the remote)"
    )
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args()
    missing = missing_binaries()
    if missing:
        print(f"needs OpenSSH server/client and rsync; missing: {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="refind-remote-bench-") as tmp:
        out = bench(Path(tmp), args.files, args.sftp)
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
