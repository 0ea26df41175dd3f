"""Claude Code sessions (the reference reader), as a builder the benchmark can also run alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from refind_desktop.bench_files import write_sessions


def build_claude_code(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`sessions` Claude Code session files (the same writer the reference uses)."""
    write_sessions(folder, sessions, exchanges, one_file=False, seed=11)
    return folder


BUILDERS = {"claude_code": build_claude_code}
