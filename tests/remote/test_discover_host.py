"""`refind sources discover --host` against a real sshd: the agent folders of that machine's home, names
and sizes only, recorded as remote sources with `--add`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.claude import claude_session
from helpers.sshd import SshServer, skip_without_openssh

from refind_desktop import locations
from refind_desktop.cli import main
from refind_desktop.ingest.remote import RemoteStore


@pytest.fixture
def remote_home(tmp_path: Path) -> Path:
    """The other machine's home: a Claude Code project and a Codex rollout (made-up content)."""
    home = tmp_path / "remote-home"
    claude_session(home, "dddd4444-0000-4000-8000-000000000004", [("d1", "where is the kiln log", "in /var")])
    rollout = home / ".codex" / "sessions" / "2025" / "03" / "01" / "rollout-2025-03-01T09-00-00-x.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text('{"type":"session_meta"}\n', encoding="utf-8")
    (home / ".gemini").mkdir()  # a tool folder without its chats folder is not listed
    return home


@pytest.fixture
def server(tmp_path: Path, remote_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SshServer]:
    """A real sshd whose SFTP sessions start in `remote_home` (`sftp-server -d`), so `~/` is that home."""
    skip_without_openssh()
    folder = tmp_path / "sshd"
    folder.mkdir()
    server = SshServer(folder)
    config = server.config.read_text()
    server.config.write_text(re.sub(r"^(Subsystem sftp .*)$", rf"\1 -d {remote_home}", config, flags=re.M))
    server.start()
    monkeypatch.setenv("REFIND_SSH_CONFIG", str(server.client_config))
    try:
        yield server
    finally:
        server.stop()


def test_discover_host_lists_then_adds_the_remote_agent_folders(server: SshServer, capsys) -> None:
    host = server.host_key
    assert main(["sources", "discover", "--host", host, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    found = {f["path"]: f for f in data["found"]}
    assert set(found) == {"~/.claude/projects", "~/.codex/sessions"}
    assert found["~/.claude/projects"]["tool"] == "Claude Code" and found["~/.claude/projects"]["files"] == 1
    assert found["~/.codex/sessions"]["size"] == len('{"type":"session_meta"}\n')
    assert data["added"] == [] and RemoteStore(locations.data_dir()).list() == []  # nothing recorded
    assert main(["sources", "discover", "--host", host]) == 0
    out = capsys.readouterr().out
    assert f"Found 2 places on {host} (nothing has been read)" in out and "1 file, " in out
    assert main(["sources", "discover", "--host", host, "--only", "claude", "--add"]) == 0
    assert "Recorded 1 new remote source" in capsys.readouterr().out
    assert [s.url for s in RemoteStore(locations.data_dir()).list()] == [f"ssh://{host}/~/.claude/projects"]


def test_discover_host_that_is_down_says_so(server: SshServer, capsys) -> None:
    server.stop()
    assert main(["sources", "discover", "--host", server.host_key]) != 0
    err = capsys.readouterr().err
    assert err.startswith(f"refind: Remote source unreachable: {server.host_key}: connection refused")
    assert RemoteStore(locations.data_dir()).list() == []
