"""Disk full, read-only home, bad arguments, fresh REFIND_HOME: one clear line, no traceback, no partial state."""

from __future__ import annotations

import json
import shlex
import shutil
import stat
import subprocess
import sys

import pytest

from .helpers import ROOT, jsonl_chat, refind


def _can_mount() -> bool:
    if not shutil.which("unshare"):
        return False
    return (
        subprocess.run(
            ["unshare", "-rm", "mount", "-t", "tmpfs", "tmpfs", "/mnt"], capture_output=True
        ).returncode
        == 0
    )


needs_mount = pytest.mark.skipif(not _can_mount(), reason="needs unprivileged mount namespaces (unshare -rm)")


def _in_namespace(setup: str, home, *commands: list[str]) -> list[tuple[int, str, str]]:
    """Run refind commands inside a private mount namespace after `setup` (mounts vanish with it)."""
    py = shlex.quote(sys.executable)
    env = f"REFIND_HOME={shlex.quote(str(home))} REFIND_TIMEZONE=UTC PYTHONPATH={shlex.quote(str(ROOT))}"
    parts = [setup]
    for i, cmd in enumerate(commands):
        args = " ".join(shlex.quote(c) for c in cmd)
        parts.append(
            f"{env} {py} -m refind_desktop {args} >{home}.out{i} 2>{home}.err{i}; echo $? >{home}.rc{i}"
        )
    script = f"{setup} || exit 1; " + "; ".join(parts[1:])
    subprocess.run(["unshare", "-rm", "sh", "-c", script], check=True, cwd=ROOT, timeout=300)
    out = []
    for i in range(len(commands)):
        rc = int(open(f"{home}.rc{i}").read())
        out.append((rc, open(f"{home}.out{i}").read(), open(f"{home}.err{i}").read()))
    return out


@needs_mount
def test_read_only_home_still_searches_and_refuses_writes_clearly(tmp_path, refind_home):
    chats = tmp_path / "chats"
    jsonl_chat(chats / "a.jsonl", [("garlic depth?", "five centimetres")])
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    h = shlex.quote(str(refind_home))
    results = _in_namespace(
        f"mount --bind {h} {h} && mount -o remount,bind,ro {h}",
        refind_home,
        ["search", "garlic"],
        ["sessions"],
        ["stats"],
        ["ingest", str(chats), "--force"],
    )
    for rc, _out, err in results[:3]:
        assert rc == 0 and "Traceback" not in err, err
    assert "five centimetres" in results[0][1]
    rc, out, err = results[3]
    assert rc != 0 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "read-only" in err and "search" in err


@needs_mount
def test_disk_full_is_one_clear_line_and_leaves_a_consistent_index(tmp_path):
    home = tmp_path / "small_home"
    home.mkdir()
    chats = tmp_path / "chats"
    words = [f"w{i}" for i in range(20000)]
    for f in range(3):
        pairs = [(" ".join(words[(j * 7 + k) % 20000] for k in range(300)), "ok " * 200) for j in range(300)]
        jsonl_chat(chats / f"c{f}.jsonl", pairs)
    h = shlex.quote(str(home))
    results = _in_namespace(
        f"mount -t tmpfs -o size=1500k tmpfs {h}",
        home,
        ["ingest", str(chats)],
        ["stats", "--json"],
    )
    rc, out, err = results[0]
    assert rc != 0 and "Traceback" not in err, err
    assert "no space left" in err and len(err.strip().splitlines()) == 1, err
    stats = json.loads(results[1][1])
    assert stats["turns"] == stats["index_turns"], stats  # no half-applied source


def test_negative_context_is_a_clear_error(refind_home):
    for cmd in (["search", "garlic", "--context", "-1"], ["show", "x", "--context", "-3"]):
        out = refind(refind_home, *cmd)
        assert out.returncode == 2 and "must be 0 or more" in out.stderr and "Traceback" not in out.stderr


def test_a_new_refind_home_is_created_private(tmp_path):
    home = tmp_path / "fresh" / "home"
    out = refind(home, "stats")
    assert out.returncode == 0, out.stderr
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
