"""An archive with sessions from two other machines, laid out in their mirror folders as a pull leaves
them, plus one session of this machine, ingested through the real pipeline (no ssh needed).

Test modules import the `archive` fixture from here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers.claude import claude_session
from refind_desktop import locations
from refind_desktop.cli import main
from refind_desktop.ingest.remote_spec import RemoteSpec, parse_remote

BOX = parse_remote("ssh://dana@buildbox:2222/~/.claude/projects")
VM = parse_remote("ssh://ci@cloud-vm/home/ci/.claude/projects")


@dataclass
class Archive:
    """The mirrors and local folder of a test archive."""

    data: Path
    local: Path
    box: Path
    vm: Path


def mirror_root(spec: RemoteSpec, data: Path) -> Path:
    """The folder a pull of `spec` fills (its `.claude/projects` folder), as the home the helper writes
    Claude Code projects under."""
    return spec.mirror_dir(data).parent.parent


@pytest.fixture(name="archive")
def archive_fixture(tmp_path: Path, capsys: pytest.CaptureFixture) -> Archive:
    """Three machines' coding-agent sessions (made-up content), ingested: `buildbox` talks of a
    flaky kiln sensor, `cloud-vm` of a kiln schedule, this machine of a glaze recipe."""
    data = locations.data_dir()
    box, vm = mirror_root(BOX, data), mirror_root(VM, data)
    claude_session(
        box, "aaaa1111-0000-4000-8000-000000000001", [("b1", "the kiln sensor is flaky", "swap it")]
    )
    claude_session(vm, "bbbb2222-0000-4000-8000-000000000002", [("v1", "plan the kiln schedule", "nightly")])
    local = tmp_path / "laptop"
    claude_session(local, "cccc3333-0000-4000-8000-000000000003", [("l1", "kiln glaze recipe", "cone 6")])
    assert main(["ingest", str(BOX.mirror_dir(data)), str(VM.mirror_dir(data)), str(local)]) == 0
    capsys.readouterr()
    return Archive(data, local, box, vm)
