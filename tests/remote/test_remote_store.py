"""RemoteStore on disk, the ssh/rsync command lines refind builds, and how SSH failures are worded (no server)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from refind_desktop import locations
from refind_desktop.errors import NotFoundError
from refind_desktop.ingest.remote import (
    WORK,
    Transport,
    failure_reason,
    remote_path,
    rsync_argv,
    sftp_argv,
    work_dir,
)
from refind_desktop.ingest.remote_pending import Pending, begin_pull, done_pending, end_pull, read_pending
from refind_desktop.ingest.remote_sftp import safe_name
from refind_desktop.ingest.remote_spec import parse_remote
from refind_desktop.ingest.remote_store import STORE_NAME, HostStatus, RemoteStore


def test_add_list_remove_and_status_survive_a_new_store(tmp_path: Path) -> None:
    store = RemoteStore(tmp_path)
    a = parse_remote("ssh://me@box:2222/~/.claude/projects")
    b = parse_remote("ssh://me@box:2222/srv/logs")
    c = parse_remote("ssh://ci@build.example.org/~/.codex/sessions")
    assert store.add(a) and store.add(b) and store.add(c)
    assert not store.add(parse_remote("ssh://me@box:2222/~/.claude/projects/"))  # the same folder
    store.set_status(HostStatus("me@box:2222", False, "2026-01-01T00:00:00+00:00", "connection refused"))
    store.set_status(HostStatus("ci@build.example.org", True, "2026-01-01T00:00:00+00:00", files=3, bytes=10))
    again = RemoteStore(tmp_path)
    assert again.list() == [a, b, c]
    st = again.status()
    assert st["me@box:2222"].error == "connection refused" and not st["me@box:2222"].ok
    assert st["ci@build.example.org"].files == 3
    assert again.remove(b.url) == [b]  # one folder
    assert again.list() == [a, c] and "me@box:2222" in again.status()
    assert again.remove("me@box:2222") == [a]  # every folder of a host, and its status
    assert again.list() == [c] and "me@box:2222" not in again.status()
    with pytest.raises(NotFoundError, match="not a remote source"):
        again.remove("me@box:2222")


def test_file_is_private_written_whole_and_holds_no_secret(tmp_path: Path) -> None:
    store = RemoteStore(tmp_path)
    store.add(parse_remote("ssh://me@box/~/x"))
    path = tmp_path / STORE_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [STORE_NAME]  # no temporary file left beside it
    assert json.loads(path.read_text())["sources"] == ["ssh://me@box/~/x"]


def test_damaged_file_is_named_without_its_contents(tmp_path: Path) -> None:
    (tmp_path / STORE_NAME).write_text('{"sources": ["ssh://me@box/~/x"], "tok')
    with pytest.raises(NotFoundError) as err:
        RemoteStore(tmp_path).list()
    assert str(tmp_path / STORE_NAME) in err.value.message and "tok" not in err.value.message


def test_rsync_command_keeps_paths_out_of_every_shell(tmp_path: Path) -> None:
    spec = parse_remote("ssh://me@box:2222/~/my logs/$(touch pwned);x")
    argv = rsync_argv(spec, tmp_path / "mirror", tmp_path / "work", Transport(ssh_config="/etc/ssh cfg"))
    assert "--protect-args" in argv and "-rt" in argv
    assert not any(
        a in ("-l", "-a", "-L", "--links", "--copy-links") or a.startswith("--delete") for a in argv
    )
    sep = argv.index("--")
    assert argv[sep + 1 :] == ["me@box:my logs/$(touch pwned);x/", f"{tmp_path / 'mirror'}/"]
    ssh = argv[argv.index("-e") + 1]
    assert ssh.startswith("ssh -o BatchMode=yes -o ConnectTimeout=") and "-p 2222" in ssh
    assert "'/etc/ssh cfg'" in ssh  # rsync splits -e itself (no shell) and honours the quotes
    assert "StrictHostKeyChecking" not in ssh  # the person's known_hosts policy stays as it is
    assert "ForwardAgent=no" in ssh and "RemoteCommand=none" in ssh  # the remote gets no agent
    assert all(not a.startswith(("--partial-dir=", "--temp-dir=")) or "mirror" not in a for a in argv)


def test_sftp_command_and_remote_paths(tmp_path: Path) -> None:
    spec = parse_remote("ssh://me@[::1]:2200/~/.claude/projects")
    assert sftp_argv(spec, Transport())[-4:] == ["-s", "--", "::1", "sftp"]
    assert remote_path(spec) == ".claude/projects"  # both servers start in the home folder
    assert remote_path(parse_remote("ssh://me@box/~")) == "."
    assert remote_path(parse_remote("ssh://me@box/srv/x")) == "/srv/x"
    data = locations.data_dir()
    assert not str(work_dir(data, spec)).startswith(str(spec.mirror_dir(data).parent))


@pytest.mark.parametrize(
    ("stderr", "words"),
    [
        ("Host key verification failed.\r\n", "run `ssh -p 2222 me@box` once"),
        ("me@box: Permission denied (publickey).", "key was refused"),
        ("ssh: connect to host box port 2222: Connection refused", "connection refused"),
        ("Connection timed out during banner exchange", "timed out"),
        ("ssh: Could not resolve hostname box: Name or service not known", "unknown host name"),
    ],
)
def test_ssh_failures_get_a_short_reason(stderr: str, words: str) -> None:
    assert words in failure_reason(stderr, parse_remote("ssh://me@box:2222/~/x"))


def test_an_unreadable_remote_file_is_not_a_refused_key() -> None:
    err = 'rsync: [sender] send_files failed to open "/x/a.jsonl": Permission denied (13)'
    assert failure_reason(err, parse_remote("ssh://me@box/~/x")) is None


def test_only_plain_names_from_the_server_become_paths() -> None:
    assert safe_name(b"session.jsonl") and safe_name("café".encode())
    for bad in (b"", b".", b"..", b"a/b", b"../x", b"x\x00y", b"x\ny", b"\x1b[31m"):
        assert not safe_name(bad)


def test_a_pull_that_never_ended_leaves_its_mirror_to_be_walked(tmp_path: Path) -> None:
    m1, m2 = tmp_path / "remotes" / "a", tmp_path / "remotes" / "b"
    assert read_pending(tmp_path, WORK).walk_all  # no list yet: walk every mirror
    done_pending(tmp_path, WORK, read_pending(tmp_path, WORK))
    assert read_pending(tmp_path, WORK) == Pending()
    assert not begin_pull(tmp_path, WORK, m1)  # ... and the process is killed here
    assert read_pending(tmp_path, WORK).walk == [str(m1)]
    assert begin_pull(tmp_path, WORK, m1)  # the next pull of it knows it was left marked
    end_pull(tmp_path, WORK, m1, [m1 / "x.jsonl"], walk_before=True)
    assert read_pending(tmp_path, WORK).walk == [str(m1)]  # still walked: the killed pull's files
    assert not begin_pull(tmp_path, WORK, m2)
    end_pull(tmp_path, WORK, m2, [m2 / "y.jsonl"], walk_before=False)
    seen = read_pending(tmp_path, WORK)
    assert seen == Pending([str(m1)], [str(m2 / "y.jsonl")])
    begin_pull(tmp_path, WORK, m2)
    end_pull(tmp_path, WORK, m2, None, walk_before=False)  # a failed rsync: walk it
    done_pending(tmp_path, WORK, seen)  # an ingest read what it saw; what came since stays
    assert read_pending(tmp_path, WORK) == Pending([str(m2)], [])
