"""Measure the coding-agent readers and source discovery on synthetic data of a chosen size.

Builds, in a temporary folder: a Cursor global state.vscdb (composers x bubbles, every other
reply with a tool call), a Copilot Chat .jsonl mutation log, a Cline task, and a fake home
with Claude Code files plus a large project tree for discovery. Prints seconds, MB/s and the
machine-independent counts (sessions, turns, rows, folder entries). Example:

    python benchmarks/readers_bench.py --composers 300 --bubbles 20 --home-files 20000
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from refind_desktop.ingest import cline, copilot_chat, cursor
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.known_sources import find_known_sources

WORDS = "soil moisture sensor valve schedule pump frost humidity relay threshold".split()


def text(n: int, i: int) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(n))


def build_cursor(path: Path, composers: int, bubbles: int) -> int:
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);")
    rows = 0
    for c in range(composers):
        cid = f"c{c:06d}"
        heads = [{"bubbleId": f"b{b}", "type": 1 if b % 2 == 0 else 2} for b in range(bubbles)]
        db.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (
                f"composerData:{cid}",
                json.dumps(
                    {
                        "composerId": cid,
                        "name": f"chat {c}",
                        "createdAt": 1738402201000 + c,
                        "fullConversationHeadersOnly": heads,
                    }
                ),
            ),
        )
        for b in range(bubbles):
            bubble = {
                "type": heads[b]["type"],
                "bubbleId": f"b{b}",
                "text": text(60, b),
                "createdAt": "2025-02-01T09:30:01Z",
            }
            if b % 4 == 1:
                bubble["toolFormerData"] = {
                    "name": "run_terminal_cmd",
                    "rawArgs": '{"command": "pytest"}',
                    "result": json.dumps({"output": text(200, b)}),
                }
            db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{cid}:b{b}", json.dumps(bubble)))
            rows += 1
    db.commit()
    db.close()
    return rows


def build_copilot(path: Path, requests: int) -> None:
    lines = [
        {"kind": 0, "v": {"version": 3, "sessionId": "s", "creationDate": 1764579600000, "requests": []}}
    ]
    for r in range(requests):
        lines.append(
            {
                "kind": 2,
                "k": ["requests"],
                "v": [
                    {
                        "requestId": f"r{r}",
                        "message": {"text": text(20, r)},
                        "response": [],
                        "timestamp": 1764579600000 + r,
                    }
                ],
            }
        )
        for _ in range(5):
            lines.append({"kind": 2, "k": ["requests", r, "response"], "v": [{"value": text(30, r) + " "}]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def build_cline(folder: Path, messages: int) -> Path:
    folder.mkdir(parents=True)
    rows = []
    for m in range(messages):
        kind = ("say", "task" if m == 0 else "user_feedback") if m % 4 == 0 else ("say", "text")
        rows.append({"ts": 1730451234567 + m, "type": kind[0], "say": kind[1], "text": text(50, m)})
        if m % 4 == 1:
            rows.append(
                {"ts": 1730451234567 + m, "type": "say", "say": "command_output", "text": text(300, m)}
            )
    (folder / "ui_messages.json").write_text(json.dumps(rows))
    return folder / "ui_messages.json"


def build_home(home: Path, files: int) -> None:
    proj = home / ".claude" / "projects" / "-home-x-src-app"
    proj.mkdir(parents=True)
    for i in range(files // 10):
        (proj / f"{i:08d}-0000-4000-8000-000000000000.jsonl").write_text("{}\n")
    big = home / "src" / "monorepo"
    for i in range(files):
        d = big / f"pkg{i % 50}" / f"mod{i % 400}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.py").write_text("")
    (home / "src" / "monorepo" / ".aider.chat.history.md").write_text(
        "# aider chat started at 2025-01-01 10:00:00\n"
    )


def timed(label: str, fn, size: int = 0) -> tuple:
    t0 = time.perf_counter()
    result = fn()
    dt = time.perf_counter() - t0
    rate = f"{size / dt / 1e6:7.1f} MB/s" if size else " " * 12
    return label, dt, rate, result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--composers", type=int, default=300)
    ap.add_argument("--bubbles", type=int, default=20)
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--cline-messages", type=int, default=2000)
    ap.add_argument("--home-files", type=int, default=20000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db = root / "state.vscdb"
        rows = build_cursor(db, args.composers, args.bubbles)
        log = root / "chatSessions" / "s.jsonl"
        log.parent.mkdir()
        build_copilot(log, args.requests)
        task = build_cline(root / "tasks" / "1730451234567", args.cline_messages)
        build_home(root / "home", args.home_files)

        def run(parser, path):
            sessions = list(parser(path, ParseContext()))
            return f"{len(sessions)} sessions, {sum(len(s.turns) for s in sessions)} turns"

        results = [
            timed(f"cursor ({rows} bubble rows)", lambda: run(cursor.parse, db), db.stat().st_size),
            timed(
                f"copilot_chat jsonl ({args.requests} requests)",
                lambda: run(copilot_chat.parse, log),
                log.stat().st_size,
            ),
            timed(
                f"cline ui_messages ({args.cline_messages} entries)",
                lambda: run(cline.parse, task),
                task.stat().st_size,
            ),
            timed(
                f"discover (fake home, ~{args.home_files + args.home_files // 10} files)",
                lambda: f"{len(find_known_sources(root / 'home', env={}, system='linux'))} locations",
            ),
        ]
    print(f"{'what':48} {'seconds':>8} {'rate':>12}  result")
    for label, dt, rate, result in results:
        print(f"{label:48} {dt:8.3f} {rate}  {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
