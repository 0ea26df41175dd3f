"""Fixtures of the remote-source tests: a real sshd on 127.0.0.1 that refind reaches through its own ssh_config."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.sshd import SshServer, skip_without_openssh


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SshServer]:
    """A started sshd with throwaway keys; REFIND_SSH_CONFIG points refind's ssh at its client config."""
    skip_without_openssh()
    folder = tmp_path / "sshd"
    folder.mkdir()
    server = SshServer(folder).start()
    monkeypatch.setenv("REFIND_SSH_CONFIG", str(server.client_config))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def remote_root(tmp_path: Path) -> Path:
    """The folder on the "remote" that the tests serve (a Claude Code projects tree goes inside)."""
    root = tmp_path / "remote" / ".claude" / "projects"
    root.mkdir(parents=True)
    return root
