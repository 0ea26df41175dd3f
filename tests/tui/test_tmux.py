"""Drive the app once in a real terminal through tmux: launch, type a question, read the answer off the screen.

Skipped when tmux is not installed (CI: `apt-get install -y tmux`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
APP = Path(__file__).with_name("tmux_app.py")
ROOT = Path(__file__).resolve().parents[2]


SOCKET = f"refind-test-{os.getpid()}"  # a private tmux server: never touches the user's sessions


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, check=True).stdout


def alive(session: str) -> bool:
    return (
        subprocess.run(["tmux", "-L", SOCKET, "has-session", "-t", session], capture_output=True).returncode
        == 0
    )


def screen_until(session: str, predicate, timeout: float = 60.0) -> str:
    end = time.monotonic() + timeout
    text = ""
    while time.monotonic() < end:
        text = tmux("capture-pane", "-p", "-t", session)
        if predicate(text):
            return text
        time.sleep(0.25)
    raise AssertionError(f"screen never matched; last screen:\n{text}")


def test_ask_in_a_real_terminal(chats: Path, refind_home: Path):
    session = f"refind-test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
    command = f"{sys.executable} {APP} {chats}"
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", session, "-x", "120", "-y", "36", command],
        check=True,
        env=env,
    )
    try:
        screen_until(session, lambda s: "6 sessions" in s and "18 turns" in s)
        tmux("send-keys", "-t", session, "-l", "When is my flight to Lisbon?")
        tmux("send-keys", "-t", session, "Enter")
        # the answer text streams first; the citation list renders just after it, so wait for both
        text = screen_until(
            session,
            lambda s: (
                "14 May 2025: TAP Air Portugal TP1351" in s
                and "Sources" in s
                and "Lisbon trip planning — turn" in s
            ),
        )
        assert "search flight, Lisbon" in text and "→ 1 hit" in text
        assert "Lisbon trip planning — turn 2" in text
        tmux("send-keys", "-t", session, "C-q")  # quits; the tmux session ends with the app
        end = time.monotonic() + 15
        while time.monotonic() < end and alive(session):
            time.sleep(0.2)
        assert not alive(session)
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)


@pytest.mark.slow
def test_first_hits_show_while_the_real_model_loads(chats: Path, refind_home: Path, embedded_gguf: Path):
    """`refind tui` with the embedded model: the first search's hits are on the screen before the
    model has loaded and answered anything (the answer, with its citations, appears later)."""
    session = f"refind-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TERM": "xterm-256color",
        "REFIND_MODEL_CACHE": str(embedded_gguf.parent),
    }
    command = f"{sys.executable} -m refind_desktop tui --no-watch --folder {chats}"
    subprocess.run(
        ["tmux", "-L", SOCKET, "new-session", "-d", "-s", session, "-x", "160", "-y", "48", command],
        check=True,
        env=env,
        cwd=ROOT,
    )
    try:
        screen_until(session, lambda s: "6 sessions" in s and "18 turns" in s)
        assert "model: not loaded" in tmux("capture-pane", "-p", "-t", session)
        tmux("send-keys", "-t", session, "-l", "When is my flight to Lisbon?")
        tmux("send-keys", "-t", session, "Enter")
        first = screen_until(session, lambda s: "search flight, Lisbon" in s, timeout=120)
        assert "2025-03-10" in first  # the hit's evidence line, verbatim
        assert "[S1 T" not in first and "model answering" not in first  # no model output yet
        later = screen_until(session, lambda s: "[S1 T" in s, timeout=600)  # the answer's citation
        assert "search flight, Lisbon" in later and ": qwen2.5" in later  # the model's name
        tmux("send-keys", "-t", session, "C-q")
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-server"], capture_output=True)
