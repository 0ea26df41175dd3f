"""Operations test helpers: generated JSONL chats and `refind` subprocesses on a test's REFIND_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "cli_env", "jsonl", "refind"]

ROOT = Path(__file__).resolve().parents[2]


def jsonl(path: Path, pairs: list[tuple[str, str]], day: int = 1) -> Path:
    """Write a generic JSONL chat of (user, assistant) pairs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        for i, (q, a) in enumerate(pairs):
            for role, text in (("user", q), ("assistant", a)):
                fh.write(
                    json.dumps(
                        {"role": role, "content": text, "timestamp": f"2024-05-{day:02d}T10:{i:02d}:00Z"}
                    )
                    + "\n"
                )
    return path


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for a `refind` subprocess that uses the test's home."""
    env = dict(os.environ, REFIND_HOME=str(home), REFIND_TIMEZONE="UTC", PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def refind(home: Path, *args: str, timeout: float = 60, **extra: str) -> subprocess.CompletedProcess:
    """Run `python -m refind_desktop ARGS` to completion."""
    return subprocess.run(
        [sys.executable, "-m", "refind_desktop", *args],
        env=cli_env(home, **extra),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
