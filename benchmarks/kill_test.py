"""Crash-safety benchmark: SIGKILL `refind ingest` at random points, then check every turn is indexed once.

    python benchmarks/kill_test.py --kills 200 --jsonl 120 --chatgpt 6
    python benchmarks/kill_test.py --kills 60 --ops ingest forget reindex   # also kill forget, reindex

Builds a folder of generated JSONL and ChatGPT-export files, then repeatedly grows some of them,
starts `python -m refind_desktop ingest`, and kills it with SIGKILL after a random delay. After
every kill the committed index must hold no duplicate turn; after a final uninterrupted ingest
every turn of a fresh parse of the folder must be in the index exactly once, with the same text
(checked through TurnIndex for all sessions and through `refind show --json` for a sample).

With `--ops ingest forget reindex`, each run is one of `refind ingest`, `refind forget FILE` (a
random JSONL chat) or `refind reindex`, killed the same way. At the end the forgotten files are
those on `refind forget --list`: none of their turns may be indexed (resurrected), none of their
unique words may appear in any byte under the data dir, and every forget that finished must be on
the list; every other file's turns are checked as above (lost, duplicates, changed).
tests/ops/test_kill.py runs a short version of this in the default test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS = (
    "garlic harvest chain lube rain bike lisbon tram fado sourdough starter kettle python tantivy "
    "index merge commit segment river walk bridge coffee grinder piano scale tempo"
).split()


def _sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + f" w{rng.randrange(10**9)}"


def _jsonl_line(rng: random.Random, role: str, minute: int) -> str:
    ts = f"2024-05-{1 + minute // 1440 % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:00Z"
    return json.dumps({"role": role, "content": _sentence(rng), "timestamp": ts}) + "\n"


def _append_jsonl(path: Path, rng: random.Random, pairs: int) -> None:
    start = sum(1 for _ in path.open()) if path.exists() else 0
    with path.open("a") as fh:
        for i in range(pairs):
            fh.write(_jsonl_line(rng, "user", start + 2 * i))
            fh.write(_jsonl_line(rng, "assistant", start + 2 * i + 1))


def _chatgpt_conv(cid: str, rng: random.Random, n_msgs: int, t0: float) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for i in range(n_msgs):
        mid = f"{cid}-m{i}"
        mapping[parent]["children"].append(mid)
        mapping[mid] = {
            "id": mid,
            "parent": parent,
            "children": [],
            "message": {
                "id": mid,
                "author": {"role": "user" if i % 2 == 0 else "assistant", "name": None, "metadata": {}},
                "create_time": t0 + 60 * i,
                "update_time": None,
                "content": {"content_type": "text", "parts": [_sentence(rng)]},
                "status": "finished_successfully",
                "end_turn": i % 2 == 1,
                "weight": 1.0,
                "metadata": {},
                "recipient": "all",
                "channel": None,
            },
        }
        parent = mid
    return {
        "title": f"conversation {cid}",
        "create_time": t0,
        "update_time": t0 + 60 * n_msgs,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": cid,
        "id": cid,
        "moderation_results": [],
        "plugin_ids": None,
        "gizmo_id": None,
        "is_archived": False,
    }


def _grow_chatgpt(path: Path, rng: random.Random, new_convs: int, grow: int) -> None:
    convs = json.loads(path.read_text()) if path.exists() else []
    for c in rng.sample(convs, min(grow, len(convs))):  # longer conversations: messages appended
        n = len(c["mapping"]) - 1 + 2
        convs[convs.index(c)] = _chatgpt_conv(c["id"], random.Random(c["id"] + str(n)), n, c["create_time"])
    for _ in range(new_convs):
        cid = f"{path.parent.name}-{len(convs):04d}"
        convs.append(
            _chatgpt_conv(cid, random.Random(cid + "2"), 2 + 2 * rng.randrange(4), 1.7e9 + 3600 * len(convs))
        )
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(convs))
    os.replace(tmp, path)


def make_corpus(folder: Path, rng: random.Random, n_jsonl: int, n_chatgpt: int) -> None:
    """Generated chat folder: n_jsonl JSONL chats and n_chatgpt ChatGPT exports (one folder each)."""
    (folder / "jsonl").mkdir(parents=True, exist_ok=True)
    for i in range(n_jsonl):
        _append_jsonl(folder / "jsonl" / f"chat-{i:04d}.jsonl", rng, 1 + rng.randrange(6))
    for i in range(n_chatgpt):
        d = folder / f"chatgpt-{i:02d}"
        d.mkdir(parents=True, exist_ok=True)
        _grow_chatgpt(d / "conversations.json", rng, 10 + rng.randrange(10), 0)


def grow(folder: Path, rng: random.Random) -> int:
    """Append to some JSONL chats and lengthen or add ChatGPT conversations; returns files touched."""
    jsonl = sorted((folder / "jsonl").glob("*.jsonl"))
    touched = rng.sample(jsonl, max(1, len(jsonl) // 3))
    for p in touched:
        _append_jsonl(p, rng, 1 + rng.randrange(3))
    exports = sorted(folder.glob("chatgpt-*/conversations.json"))
    for p in rng.sample(exports, max(1, len(exports) // 2)):
        _grow_chatgpt(p, rng, rng.randrange(3), 1 + rng.randrange(3))
    return len(touched)


def expected_turns(folder: Path, exclude: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """A fresh parse of the folder with the project's own parsers: session id -> turn texts."""
    from refind_desktop.ingest.base import ParseContext
    from refind_desktop.ingest.formats import get_parser
    from refind_desktop.ingest.walker import discover

    out: dict[str, list[str]] = {}
    sources, _ = discover([folder.resolve()])
    for src in sources:
        if str(src.path) in exclude:
            continue
        for s in get_parser(src.format)(src.path, ParseContext(tz=timezone.utc)):
            out.setdefault(s.session_id, [t.text for t in s.turns])
    return out


def indexed_turns(home: Path) -> dict[str, list[tuple[int, str]]]:
    """Every committed turn document, read through TurnIndex: session id -> [(turn, text)]."""
    import tantivy

    from refind_desktop.index.store import TurnIndex, to_view

    index = TurnIndex(home / "data" / "index")
    searcher = index.searcher()
    out: dict[str, list[tuple[int, str]]] = {}
    res = searcher.search(tantivy.Query.all_query(), limit=max(searcher.num_docs, 1), count=False)
    for _, addr in res.hits:
        v = to_view(searcher.doc(addr))
        out.setdefault(v.session_id, []).append((v.turn, v.text))
    return out


def duplicates(got: dict[str, list[tuple[int, str]]]) -> int:
    """Turn documents beyond the first for the same (session, turn)."""
    return sum(n - 1 for turns in got.values() for n in Counter(t for t, _ in turns).values() if n > 1)


def compare(want: dict[str, list[str]], got: dict[str, list[tuple[int, str]]]) -> dict:
    """Lost, duplicated, extra and changed turns of the index against a fresh parse."""
    lost = extra = changed = 0
    for sid, texts in want.items():
        have = dict(got.get(sid, []))
        for i, text in enumerate(texts):
            if i not in have:
                lost += 1
            elif have[i] != text:
                changed += 1
        extra += sum(1 for t in have if t >= len(texts))
    extra += sum(len(v) for sid, v in got.items() if sid not in want)
    return {
        "sessions": len(want),
        "turns_checked": sum(map(len, want.values())),
        "lost": lost,
        "duplicates": duplicates(got),
        "extra": extra,
        "changed": changed,
    }


_TOKEN = re.compile(rb"w(\d{4,})")


def tokens(data: bytes) -> set[bytes]:
    """The generated unique words (w + digits) in some bytes."""
    return set(_TOKEN.findall(data))


def forgotten_bytes(home: Path, forgotten: list[Path], kept: list[Path]) -> dict:
    """Unique words of forgotten files found in any file under the data dir (and, as a sanity
    check that the grep can see text at all, how many words of kept files are found)."""
    on_disk: set[bytes] = set()
    for p in (home / "data").rglob("*"):
        if p.is_file():
            on_disk |= tokens(p.read_bytes())
    gone = set().union(*(tokens(p.read_bytes()) for p in forgotten)) if forgotten else set()
    kept_words = set().union(*(tokens(p.read_bytes()) for p in kept)) if kept else set()
    gone -= kept_words  # a word that also occurs in a kept file may rightly stay
    return {
        "forgotten_words": len(gone),
        "forgotten_words_on_disk": len(gone & on_disk),
        "kept_words_on_disk_pct": round(100 * len(kept_words & on_disk) / max(len(kept_words), 1), 1),
    }


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, REFIND_HOME=str(home), REFIND_TIMEZONE="UTC", PYTHONPATH=str(ROOT))
    env.pop("REFIND_CONFIG_FILE", None)
    return env


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "refind_desktop", *args],
        env=_env(home),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def run(
    kills: int,
    workdir: Path,
    seed: int = 1,
    n_jsonl: int = 60,
    n_chatgpt: int = 4,
    max_delay: float = 2.5,
    budget_s: float | None = None,
    ops: tuple[str, ...] = ("ingest",),
) -> dict:
    """The kill loop, then the final check; returns the numbers reported by the benchmark."""
    rng = random.Random(seed)
    folder, home = workdir / "chats", workdir / "home"
    make_corpus(folder, rng, n_jsonl, n_chatgpt)
    os.environ["REFIND_HOME"] = str(home)  # the in-process checks read the same index
    t0 = time.monotonic()
    killed = finished = grown = 0
    worst_dups = 0
    per_op: Counter = Counter()
    completed_forgets: set[str] = set()
    # a delay longer than an operation is known to take cannot kill it: after an operation finishes
    # within its delay, its next delay is drawn below that one (a fast machine still gets its kills)
    bound: dict[str, float] = {}
    for i in range(kills):
        if budget_s is not None and time.monotonic() - t0 > budget_s:
            break
        if i and rng.random() < 0.6:
            grow(folder, rng)
            grown += 1
        op = rng.choice(ops) if i else "ingest"
        if op == "forget":
            target = str(rng.choice(sorted((folder / "jsonl").glob("*.jsonl"))).resolve())
            args = ["forget", target]
        elif op == "reindex":
            args = ["reindex"]
        else:
            args = ["ingest", str(folder), "--json"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "refind_desktop", *args],
            env=_env(home),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        delay = rng.uniform(0.05, bound.get(op, max_delay))
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
            per_op[f"{op}_killed"] += 1
        else:
            finished += 1
            bound[op] = max(0.1, min(bound.get(op, max_delay), delay))
            per_op[f"{op}_finished"] += 1
            if op == "forget" and proc.returncode == 0:
                completed_forgets.add(target)
            per_op[f"{op}_exit_{proc.returncode}"] += 1
        proc.wait()
        if (home / "data" / "index").exists():
            worst_dups = max(worst_dups, duplicates(indexed_turns(home)))
    final = _cli(home, "ingest", str(folder), "--json")
    if final.returncode != 0:
        raise RuntimeError(f"final ingest failed: {final.stderr}")
    forgotten = frozenset(_cli(home, "forget", "--list").stdout.split())
    got = indexed_turns(home)
    want = expected_turns(folder, forgotten)
    result = compare(want, got)
    gone_sessions = set(expected_turns(folder)) - set(want)
    result["forgotten_files"] = len(forgotten)
    result["resurrected"] = sum(len(got.get(sid, [])) for sid in gone_sessions)
    result["finished_forgets_not_listed"] = len(completed_forgets - forgotten)
    kept_files = [p for p in folder.rglob("*") if p.is_file() and str(p.resolve()) not in forgotten]
    result.update(forgotten_bytes(home, [Path(p) for p in forgotten], kept_files))
    result["ops"] = dict(per_op)
    stats = json.loads(_cli(home, "stats", "--json").stdout)
    result["catalog_turns"] = stats["turns"]
    sample = sorted(want)[:: max(1, result["sessions"] // 3)][:3]
    result["show_json_mismatches"] = sum(
        [t["text"] for t in json.loads(_cli(home, "show", sid, "--json").stdout)["turns"]] != want[sid]
        for sid in sample
    )
    result.update(
        runs=killed + finished,
        kills=killed,
        finished_before_kill=finished,
        grown=grown,
        max_duplicates_after_a_kill=worst_dups,
        seconds=round(time.monotonic() - t0, 1),
        final_report=json.loads(final.stdout),
    )
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--jsonl", type=int, default=120)
    ap.add_argument("--chatgpt", type=int, default=6)
    ap.add_argument("--max-delay", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--ops",
        nargs="+",
        default=["ingest"],
        choices=["ingest", "forget", "reindex"],
        help="commands to kill (default: ingest only)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="refind-kill-") as tmp:
        res = run(
            args.kills, Path(tmp), args.seed, args.jsonl, args.chatgpt, args.max_delay, ops=tuple(args.ops)
        )
    print(json.dumps(res, indent=2))
    ok = (
        res["lost"] == res["duplicates"] == res["extra"] == res["changed"] == 0
        and res["catalog_turns"] == res["turns_checked"]
        and res["show_json_mismatches"] == 0
        and res["resurrected"] == res["forgotten_words_on_disk"] == res["finished_forgets_not_listed"] == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
