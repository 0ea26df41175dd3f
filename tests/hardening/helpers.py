"""Builders of hostile and damaged chat files, and a `refind` subprocess runner, for the hardening suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def conversation(cid: str, title: str, pairs: list[tuple[str, str]], t0: float = 1_715_000_000.0) -> dict:
    """One ChatGPT conversation (linear mapping) of (user, assistant) pairs."""
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    n = 0
    for q, a in pairs:
        for role, text in (("user", q), ("assistant", a)):
            mid = f"{cid}-m{n}"
            mapping[mid] = {
                "id": mid,
                "message": {
                    "id": mid,
                    "author": {"role": role},
                    "create_time": t0 + 60 * n,
                    "content": {"content_type": "text", "parts": [text]},
                    "status": "finished_successfully",
                },
                "parent": parent,
                "children": [],
            }
            mapping[parent]["children"].append(mid)
            parent = mid
            n += 1
    return {"title": title, "create_time": t0, "update_time": t0 + 60 * n, "mapping": mapping, "id": cid}


def chatgpt_export(path: Path, convs: list[dict]) -> Path:
    """Write a ChatGPT conversations.json."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(convs))
    return path


def jsonl_chat(path: Path, pairs: list[tuple[str, str]], day: int = 1) -> Path:
    """A generic JSONL chat of (user, assistant) pairs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for i, (q, a) in enumerate(pairs):
            for role, text in (("user", q), ("assistant", a)):
                ts = f"2024-05-{day:02d}T10:{i % 60:02d}:00Z"
                fh.write(json.dumps({"role": role, "content": text, "timestamp": ts}) + "\n")
    return path


def refind(home: Path, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    """Run `python -m refind_desktop ARGS` against `home`."""
    e = dict(os.environ, REFIND_HOME=str(home), REFIND_TIMEZONE="UTC", PYTHONPATH=str(ROOT))
    e.update(env)
    return subprocess.run(
        [sys.executable, "-m", "refind_desktop", *args],
        env=e,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def grep(root: Path, word: str) -> list[Path]:
    """Files under root whose bytes contain `word`."""
    return [p for p in root.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]
