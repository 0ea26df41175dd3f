"""Many-small-files benchmark: an agent folder of session files against the same turns in one file.

`refind bench --small-files N` runs it after the other parts. Coding agents keep one small JSONL per session
(`~/.claude/projects/<project>/<session-uuid>.jsonl`), so the cost that matters there is per file,
not per megabyte. Three figures, measured in one run so their ratios hold on a loaded machine:

- the same sessions and turns ingested from one file and from one file per session;
- a second ingest of the unchanged folder (what every `refind ingest` and app start pays);
- new session files moved into the indexed folder while `FolderWatcher` watches it: seconds until
  a search finds each.
"""

from __future__ import annotations

import json
import os
import random
import resource
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .bench import Synthetic, rss_mb

Log = Callable[[str], None]
PROJECT = ".claude/projects/-home-user-src-app"


def cpu_s() -> float:
    """User plus system CPU seconds of this process so far (every thread)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def session_lines(syn: Synthetic, rng: random.Random, sid: str, exchanges: int, when: datetime) -> list[str]:
    """JSONL lines of one Claude Code session: `exchanges` prompts, each with a text reply."""
    lines, parent = [], None
    for i in range(exchanges):
        for role in ("user", "assistant"):
            uid = str(uuid.UUID(int=rng.getrandbits(128)))
            words = rng.choices(syn.words, cum_weights=syn.cum, k=rng.randint(20, 60))
            text = " ".join(words)
            message = (
                {"role": "user", "content": text}
                if role == "user"
                else {
                    "id": f"msg_{uid[:8]}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                }
            )
            stamp = (
                (when + timedelta(minutes=2 * i + (role == "assistant"))).isoformat().replace("+00:00", "Z")
            )
            lines.append(
                json.dumps(
                    {
                        "type": role,
                        "uuid": uid,
                        "parentUuid": parent,
                        "sessionId": sid,
                        "timestamp": stamp,
                        "isSidechain": False,
                        "cwd": "/home/user/src/app",
                        "message": message,
                    }
                )
            )
            parent = uid
    return lines


def write_sessions(folder: Path, n: int, exchanges: int, one_file: bool, seed: int = 5) -> int:
    """Write `n` Claude Code sessions under `folder` (one file each, or all in one file); returns turns."""
    syn, rng = Synthetic(seed=seed, vocab=5000), random.Random(seed)
    project = folder / PROJECT
    project.mkdir(parents=True, exist_ok=True)
    start = datetime(2025, 3, 1, tzinfo=timezone.utc)
    big = None
    if one_file:
        big = (project / f"{uuid.UUID(int=rng.getrandbits(128))}.jsonl").open("w", encoding="utf-8")
    try:
        for s in range(n):
            sid = str(uuid.UUID(int=rng.getrandbits(128)))
            text = "\n".join(session_lines(syn, rng, sid, exchanges, start + timedelta(hours=3 * s))) + "\n"
            if big is not None:
                big.write(text)
            else:
                (project / f"{sid}.jsonl").write_text(text, encoding="utf-8")
    finally:
        if big is not None:
            big.close()
    return n * exchanges


def run_files_bench(files: int, log: Log) -> dict:
    """`bench_small_files` in a temporary folder, leaving REFIND_HOME as it was."""
    old_home = os.environ.get("REFIND_HOME")
    try:
        with tempfile.TemporaryDirectory(prefix="refind-bench-files-") as tmp:
            return bench_small_files(Path(tmp), files, log)
    finally:
        if old_home is None:
            os.environ.pop("REFIND_HOME", None)
        else:
            os.environ["REFIND_HOME"] = old_home


def _services(home: Path):
    os.environ["REFIND_HOME"] = str(home)
    os.environ["REFIND_TIMEZONE"] = "UTC"
    from .services import build_services

    return build_services()


def _timed_ingest(svc, folder: Path) -> dict:
    """One `Ingestor.ingest` of a folder: wall and CPU seconds, and what it did."""
    t0, c0 = time.perf_counter(), cpu_s()
    report = svc.ingestor.ingest([folder])
    out = {
        "wall_s": round(time.perf_counter() - t0, 2),
        "cpu_s": round(cpu_s() - c0, 2),
        "files_read": report.ingested_files,
        "files_unchanged": report.unchanged_files,
        "turns_added": report.added_turns,
    }
    commits = getattr(report, "commits", None)  # index commits (reported since batched ingest)
    if commits is not None:
        out["index_commits"] = commits
    return out


def bench_small_files(work: Path, files: int, log: Log, exchanges: int = 2, tries: int = 3) -> dict:
    """The same sessions from one file and from `files` files, a re-ingest of the unchanged folder, and
    new files dropped into the watched folder (seconds until a search finds each)."""
    one, many = work / "one", work / "many"
    turns = write_sessions(one, files, exchanges, one_file=True)
    write_sessions(many, files, exchanges, one_file=False)
    svc = _services(work / "home-one")
    single = _timed_ingest(svc, one)
    svc.close()
    svc = _services(work / "home-many")
    several = _timed_ingest(svc, many)
    again = _timed_ingest(svc, many)
    try:
        waits = _new_files(svc, work, many, tries)
    finally:
        svc.close()
    out = {
        "sessions": files,
        "turns": turns,
        "one_file": single,
        "one_file_per_session": several,
        "ratio_many_over_one": round(several["wall_s"] / max(single["wall_s"], 1e-3), 1),
        "goal_within_s": round(3 * single["wall_s"] + 1, 2),
        "reingest_unchanged": again,
        "new_file_searchable_s": waits,
        "watcher_debounce_s": DEBOUNCE,
        "peak_rss_mb": round(rss_mb()),
    }
    log(f"small files x{files}: {out}")
    return out


DEBOUNCE = 0.2


def _new_files(svc, work: Path, folder: Path, tries: int) -> list[float]:
    """Watch `folder` (already indexed), move new session files into it one by one: seconds until each
    is found by a search."""
    from .ingest.watcher import FolderWatcher

    watcher = FolderWatcher(svc, folder, debounce=DEBOUNCE)
    watcher.start()
    waits: list[float] = []
    try:
        if not watcher.wait_idle(600):
            return []
        syn, rng = Synthetic(seed=13, vocab=5000), random.Random(13)
        for i in range(tries):
            word = f"zqxnewfile{i}w{rng.randrange(10**6)}"
            sid = str(uuid.UUID(int=rng.getrandbits(128)))
            lines = session_lines(syn, rng, sid, 1, datetime(2026, 1, 1, tzinfo=timezone.utc))
            row = json.loads(lines[0])
            row["message"]["content"] += " " + word
            lines[0] = json.dumps(row)
            tmp = work / f"{sid}.part"  # outside the watched folder
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
            t0 = time.perf_counter()
            os.replace(tmp, folder / PROJECT / f"{sid}.jsonl")  # lands whole, as an agent's first flush would
            while not svc.engine.search(word) and time.perf_counter() - t0 < 60:
                time.sleep(0.02)
            waits.append(round(time.perf_counter() - t0, 2))
            watcher.wait_idle(60)
    finally:
        watcher.stop()
    return waits
