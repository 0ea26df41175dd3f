"""`refind ingest` progress: files, turns and time left on a terminal; nothing on pipes or with --json."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

from helpers.claude import claude_session
from helpers.ops import ROOT, cli_env


def run_with_terminal_stderr(home, *args: str) -> tuple[str, str]:
    """Run `refind ARGS` with stderr on a pseudo-terminal; returns (stdout, what the terminal got)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "refind_desktop", *args],
        env=cli_env(home, COLUMNS="160"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read().decode()
    assert proc.wait(60) == 0
    os.close(master)
    return out, seen.decode(errors="replace")


def chats(tmp_path, n: int = 400):
    folder = tmp_path / "chats"
    for i in range(n):
        claude_session(
            folder, f"0000{i:04d}-0000-4000-8000-000000000000", [(f"s{i}", f"question {i}", "answer")]
        )
    return folder


def test_the_bar_shows_files_turns_and_time_left_on_a_terminal(tmp_path, refind_home):
    out, terminal = run_with_terminal_stderr(refind_home, "ingest", str(chats(tmp_path)))
    assert out.startswith("added 400 turns")
    assert "/400" in terminal and " turns," in terminal and " left" in terminal and "files," in terminal


def test_no_bar_with_json_or_when_stderr_is_not_a_terminal(tmp_path, refind_home):
    folder = chats(tmp_path, 50)
    out, terminal = run_with_terminal_stderr(refind_home, "ingest", "--json", str(folder))
    assert json.loads(out)["added_turns"] == 50 and json.loads(out)["commits"] == 1
    assert "turns," not in terminal and "\x1b" not in terminal
    piped = subprocess.run(
        [sys.executable, "-m", "refind_desktop", "ingest", "--force", str(folder)],
        env=cli_env(refind_home),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith("added 0 turns")
