"""Remote sources pulled from a real sshd on 127.0.0.1 and ingested: `refind ingest` with no paths, end to end.

Each test serves a Claude Code projects folder from the test's own sshd (throwaway keys, its own
known_hosts), records it in the RemoteStore and runs the real CLI: rsync (or the SFTP fallback) into
the mirror, the real ingest pipeline into a real tantivy index under the test's REFIND_HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from helpers.claude import PROJECT, claude_lines, claude_session
from helpers.sshd import ALIAS, SshServer, free_port, skip_without_openssh

from refind_desktop import locations
from refind_desktop.cli import main
from refind_desktop.ingest.remote import RemoteError, Transport, list_remote, pull, pull_all, work_dir
from refind_desktop.ingest.remote_spec import host_of, parse_remote
from refind_desktop.ingest.remote_store import RemoteStore


def found(capsys, word: str) -> int:
    """How many result blocks `refind search WORD` gives."""
    capsys.readouterr()
    assert main(["search", word, "--json"]) == 0
    return len(json.loads(capsys.readouterr().out)["results"])


def ingest(capsys) -> tuple[int, dict, str]:
    """`refind ingest --json` with no paths: (exit code, its JSON, stderr)."""
    capsys.readouterr()
    code = main(["ingest", "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The remote user's folder the tests serve; its `.claude/projects` is the remote source."""
    return tmp_path / "remote-home"


@pytest.fixture
def added(sshd: SshServer, home: Path):
    """The remote source recorded in the store (the folder exists, empty)."""
    (home / ".claude" / "projects").mkdir(parents=True)
    spec = parse_remote(sshd.url(home / ".claude" / "projects"))
    RemoteStore(locations.data_dir()).add(spec)
    return spec


def test_first_pull_finds_turns_and_their_host(sshd: SshServer, home: Path, added, capsys) -> None:
    f = claude_session(home, "s-one", [("a1", "how do I tune the quokkafilter", "set quokkafilter to 3")])
    code, out, err = ingest(capsys)
    assert code == 0, err
    assert out["added_turns"] == 1, json.dumps(out)  # one exchange, one turn
    [r] = out["remotes"]
    assert r["ok"] and r["method"] == "rsync" and r["files"] == 1 and r["host"] == sshd.host_key
    assert found(capsys, "quokkafilter") == 1
    copy = added.mirror_dir(locations.data_dir()) / f.relative_to(home / ".claude" / "projects")
    assert copy.read_bytes() == f.read_bytes()
    assert host_of(copy, locations.data_dir()) == sshd.host_key
    assert (copy.stat().st_mode & 0o077) == 0  # the mirror is private
    status = RemoteStore(locations.data_dir()).status()[sshd.host_key]
    assert status.ok and status.error is None and status.files == 1 and status.method == "rsync"
    code, out, _ = ingest(capsys)  # nothing changed: nothing copied, nothing read again
    assert code == 0 and out["remotes"][0]["files"] == 0 and out["added_turns"] == 0


def test_grown_file_sends_only_new_bytes_and_appends(sshd: SshServer, home: Path, added, capsys) -> None:
    exchanges = [(f"e{i}", f"question {i} about gardens " * 20, f"answer {i} " * 40) for i in range(60)]
    f = claude_session(home, "s-grow", exchanges)
    assert ingest(capsys)[0] == 0
    size = f.stat().st_size
    new = claude_lines("s-grow", [*exchanges, ("e60", "where is the wombatgasket", "in the shed")])[-2:]
    with f.open("a", encoding="utf-8") as out:
        out.write("\n".join(new) + "\n")
    code, out, err = ingest(capsys)
    assert code == 0, err
    assert out["added_turns"] == 1 and out["removed_turns"] == 0  # appended, nothing replaced
    assert out["remotes"][0]["bytes"] < size / 4  # rsync sent the new lines, not the file again
    assert found(capsys, "wombatgasket") == 1 and found(capsys, "gardens") >= 1


def test_rewritten_file_is_replaced(sshd: SshServer, home: Path, added, capsys) -> None:
    f = claude_session(home, "s-rw", [("r1", "the old plan uses zebrabolts", "fine")])
    assert ingest(capsys)[0] == 0 and found(capsys, "zebrabolts") == 1
    claude_session(home, "s-rw", [("r1", "the new plan uses yakwashers", "better")])
    os.utime(f, (f.stat().st_mtime + 5, f.stat().st_mtime + 5))
    code, _out, err = ingest(capsys)
    assert code == 0, err
    assert found(capsys, "yakwashers") == 1 and found(capsys, "zebrabolts") == 0
    copy = added.mirror_dir(locations.data_dir()) / f.relative_to(home / ".claude" / "projects")
    assert copy.read_bytes() == f.read_bytes()


def test_file_deleted_on_remote_keeps_its_turns(sshd: SshServer, home: Path, added, capsys) -> None:
    f = claude_session(home, "s-del", [("d1", "remember the ocelotvalve", "noted")])
    assert ingest(capsys)[0] == 0
    f.unlink()  # the agent's 30-day cleanup
    code, out, err = ingest(capsys)
    assert code == 0, err
    assert out["remotes"][0]["ok"] and out["removed_turns"] == 0
    assert found(capsys, "ocelotvalve") == 1


@pytest.mark.parametrize("method", ["rsync", "sftp"])
def test_links_out_of_the_root_are_not_followed(sshd: SshServer, home: Path, tmp_path: Path, method) -> None:
    root = home / ".claude" / "projects"
    claude_session(home, "s-in", [("i1", "inside", "yes")])
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "private.jsonl").write_text("\n".join(claude_lines("s-x", [("x1", "leakyword", "no")])) + "\n")
    (root / PROJECT.rsplit("/", 1)[1] / "escape.jsonl").symlink_to(outside / "private.jsonl")
    (root / "escape-dir").symlink_to(outside)
    (root / "up").symlink_to("../..")
    spec = parse_remote(sshd.url(root))
    transport = Transport.from_env()
    if method == "sftp":  # the remote "has no rsync"
        transport = Transport(ssh_config=transport.ssh_config, rsync_path="/nonexistent/rsync")
    r = pull(spec, locations.data_dir(), transport=transport)
    assert r.ok, r.error
    assert r.method == method
    mirror = spec.mirror_dir(locations.data_dir())
    names = sorted(p.relative_to(mirror).as_posix() for p in mirror.rglob("*"))
    assert names == [PROJECT.rsplit("/", 1)[1], f"{PROJECT.rsplit('/', 1)[1]}/s-in.jsonl"]
    assert not any(p.is_symlink() for p in mirror.rglob("*"))


def test_sftp_fallback_pulls_grows_and_ingests(sshd: SshServer, home: Path, added, capsys) -> None:
    f = claude_session(home, "s-sftp", [(f"q{i}", f"prompt {i} " * 50, "ok " * 50) for i in range(40)])
    transport = Transport(ssh_config=os.environ["REFIND_SSH_CONFIG"], rsync_path="/nonexistent/rsync")
    data = locations.data_dir()
    first = pull(added, data, transport=transport)
    assert first.ok and first.method == "sftp" and first.files == 1 and first.bytes == f.stat().st_size
    again = pull(added, data, transport=transport)
    assert again.ok and again.files == 0 and again.bytes == 0
    tail = "\n".join(claude_lines("s-sftp", [("z", "the platypuslever", "right")], 200)) + "\n"
    with f.open("a", encoding="utf-8") as out:
        out.write(tail)
    grown = pull(added, data, transport=transport)
    assert grown.ok and grown.files == 1
    assert grown.bytes < len(tail) + 4096 + 1  # the new lines (and the 4 KiB check of the old tail)
    copy = added.mirror_dir(data) / f.relative_to(home / ".claude" / "projects")
    assert copy.read_bytes() == f.read_bytes()
    assert int(copy.stat().st_mtime) == int(f.stat().st_mtime)
    code, _out, err = ingest(capsys)  # the default transport (rsync) finds nothing new; the index reads it
    assert code == 0, err
    assert found(capsys, "platypuslever") == 1


def test_server_stopped_reports_the_host_and_keeps_turns(sshd: SshServer, home: Path, added, capsys) -> None:
    claude_session(home, "s-down", [("h1", "the narwhalclamp size", "M8")])
    assert ingest(capsys)[0] == 0
    sshd.stop()
    code, out, err = ingest(capsys)
    assert code == RemoteError.exit_code == 10
    [r] = out["remotes"]
    assert not r["ok"] and "connection refused" in r["error"]
    capsys.readouterr()
    assert main(["ingest"]) == 10
    err = capsys.readouterr().err
    assert f"FAILED {sshd.host_key}" in err and "connection refused" in err
    assert found(capsys, "narwhalclamp") == 1  # nothing already indexed is lost
    status = RemoteStore(locations.data_dir()).status()[sshd.host_key]
    assert not status.ok and "connection refused" in status.error
    sshd.start()  # the next pull retries
    claude_session(home, "s-back", [("h2", "the host is back with a dugongbrace", "good")])
    code, out, err = ingest(capsys)
    assert code == 0, err
    assert found(capsys, "dugongbrace") == 1
    assert RemoteStore(locations.data_dir()).status()[sshd.host_key].ok


def test_refused_key_and_unknown_host_key_are_named(sshd: SshServer, home: Path, added) -> None:
    claude_session(home, "s-k", [("k1", "a", "b")])
    data = locations.data_dir()
    (sshd.folder / "authorized_keys").write_text("")
    r = pull(added, data)
    assert not r.ok and "key was refused" in r.error
    sshd.known_hosts.write_text("")
    r = pull(added, data)
    assert not r.ok and "host key is not known" in r.error and f"ssh -p {sshd.port}" in r.error
    assert not any(added.mirror_dir(data).rglob("*.jsonl"))


def test_silent_port_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    skip_without_openssh()
    with socket.socket() as s:  # accepts TCP (the kernel's backlog) but never says a word of SSH
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        spec = parse_remote(f"ssh://me@127.0.0.1:{s.getsockname()[1]}/~/x")
        monkeypatch.setenv("REFIND_SSH_CONFIG", "/dev/null")
        r = pull(spec, locations.data_dir(), timeout=1)
    assert not r.ok and "timed out" in r.error and r.seconds < 10


def test_missing_remote_folder_is_named(sshd: SshServer, tmp_path: Path) -> None:
    spec = parse_remote(sshd.url(tmp_path / "nowhere"))
    r = pull(spec, locations.data_dir())
    assert not r.ok and "does not exist on the host" in r.error


def test_binaries_present_in_ci() -> None:
    """CI installs OpenSSH and rsync (.ci/run); the pull tests above must not all be skipping there."""
    if os.environ.get("CI"):
        assert shutil.which("rsync") and shutil.which("ssh") and Path("/usr/sbin/sshd").exists()


def big_session(home: Path, sid: str, mb: int) -> Path:
    """A Claude Code session of about `mb` MB whose text does not repeat (so no transfer can shortcut it)."""
    exchanges = []
    for i in range(mb * 50):  # about 20 kB an exchange
        words = os.urandom(4000).hex()
        exchanges.append((f"b{i}", words[:4000], words[4000:]))
    return claude_session(home, sid, exchanges)


def _rsync_pids(marker: str) -> list[int]:
    """Processes whose command line names `marker` (the rsync of one test's mirror)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if marker.encode() in (d / "cmdline").read_bytes():
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


def _wait_for_part(folder: Path, at_least: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p.is_file() and p.stat().st_size >= at_least for p in folder.rglob("*")):
            return
        time.sleep(0.005)
    raise AssertionError(f"no partial file of {at_least} bytes appeared in {folder}")


def test_killed_rsync_leaves_no_half_file_and_the_next_pull_completes(
    sshd: SshServer, home: Path, added, capsys
) -> None:
    small = claude_session(home, "s-small", [("m1", "the mongoosecrank turns", "left")])
    big = big_session(home, "s-big", 3)
    data = locations.data_dir()
    slow = Transport(ssh_config=os.environ["REFIND_SSH_CONFIG"], bwlimit_kb=400)
    box: list = []
    worker = threading.Thread(target=lambda: box.append(pull(added, data, transport=slow)))
    worker.start()
    try:
        _wait_for_part(work_dir(data, added) / "tmp", 300_000)
        mirror = str(added.mirror_dir(data))
        for pid in _rsync_pids(mirror):  # the pull dies mid-file, as in a power cut: no clean-up
            os.kill(pid, signal.SIGKILL)
    finally:
        worker.join(30)
    assert box and not box[0].ok
    copy = added.mirror_dir(data) / big.relative_to(home / ".claude" / "projects")
    assert not copy.exists()  # the half file is in the work folder, never in the mirror
    code, out, _ = ingest(capsys)  # the next ingest pulls again and reads only whole files
    assert code == 0 and out["remotes"][0]["ok"]
    assert copy.read_bytes() == big.read_bytes()
    assert found(capsys, "mongoosecrank") == 1 and small.exists()
    assert not any((work_dir(data, added) / "tmp").iterdir())


def test_stopped_rsync_resumes_from_its_partial_file(sshd: SshServer, home: Path, added) -> None:
    big = big_session(home, "s-resume", 3)
    size = big.stat().st_size
    data = locations.data_dir()
    slow = Transport(ssh_config=os.environ["REFIND_SSH_CONFIG"], bwlimit_kb=400)
    cancel = threading.Event()
    box: list = []
    worker = threading.Thread(target=lambda: box.append(pull(added, data, transport=slow, cancel=cancel)))
    worker.start()
    try:
        _wait_for_part(work_dir(data, added) / "tmp", size // 3)
    finally:
        cancel.set()  # SIGTERM: rsync keeps what it has in the partial folder
        worker.join(30)
    assert box and not box[0].ok and "stopped" in box[0].error
    copy = added.mirror_dir(data) / big.relative_to(home / ".claude" / "projects")
    assert not copy.exists()
    kept = [p for p in (work_dir(data, added) / "partial").rglob("*") if p.is_file()]
    assert kept and kept[0].stat().st_size >= size // 3
    again = pull(added, data)
    assert again.ok and again.files == 1
    assert again.bytes < size * 0.8  # the bytes already fetched were not sent again
    assert copy.read_bytes() == big.read_bytes()


def test_stopped_sftp_pull_resumes(sshd: SshServer, home: Path, added) -> None:
    big = big_session(home, "s-sftp-big", 40)
    size = big.stat().st_size
    data = locations.data_dir()
    transport = Transport(ssh_config=os.environ["REFIND_SSH_CONFIG"], rsync_path="/nonexistent/rsync")
    cancel = threading.Event()
    box: list = []
    worker = threading.Thread(
        target=lambda: box.append(pull(added, data, transport=transport, cancel=cancel))
    )
    worker.start()
    try:
        _wait_for_part(work_dir(data, added) / "sftp", 2_000_000)
    finally:
        cancel.set()
        worker.join(30)
    assert box and not box[0].ok and box[0].method == "sftp" and "stopped" in box[0].error
    copy = added.mirror_dir(data) / big.relative_to(home / ".claude" / "projects")
    assert not copy.exists()
    again = pull(added, data, transport=transport)
    assert again.ok and again.files == 1 and again.bytes < size - 1_000_000
    assert copy.read_bytes() == big.read_bytes()


def test_list_remote_gives_names_and_sizes_of_existing_folders(sshd: SshServer, home: Path) -> None:
    f = claude_session(home, "s-l1", [("l1", "a", "b")])
    g = claude_session(home, "s-l2", [("l2", "c", "d")])
    (f.parent / "link.jsonl").symlink_to(f)  # not counted twice, not followed
    root = home / ".claude" / "projects"
    candidates = [str(root), str(home / ".codex" / "sessions"), str(f), f"{root}/../projects"]
    got = list_remote(sshd.host_key, candidates)  # missing, a file and a `..` path are left out
    assert got == [(str(root), 2, f.stat().st_size + g.stat().st_size)]
    sshd.stop()
    with pytest.raises(RemoteError, match="connection refused"):
        list_remote(sshd.host_key, [str(root)])


def test_pull_all_records_each_host_and_skips_the_rest_of_a_down_host(
    sshd: SshServer, home: Path, added, tmp_path: Path
) -> None:
    claude_session(home, "s-up", [("u1", "a", "b")])
    data = locations.data_dir()
    store = RemoteStore(data)
    dead = free_port()
    for path in ("/one", "/two"):
        store.add(parse_remote(f"ssh://me@127.0.0.1:{dead}{path}"))
    calls: list[str] = []
    results = pull_all(data, on_result=lambda r: calls.append(r.spec.url))
    assert len(results) == len(calls) == 3
    ok, first, second = results
    assert ok.ok and ok.files == 1
    assert not first.ok and "connection refused" in first.error
    assert not second.ok and second.error == first.error and second.seconds == 0  # not tried again
    status = store.status()
    assert status[sshd.host_key].ok and status[sshd.host_key].files == 1
    assert not status[f"me@127.0.0.1:{dead}"].ok


def test_first_pull_of_a_down_host_says_so(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    skip_without_openssh()
    monkeypatch.setenv("REFIND_SSH_CONFIG", "/dev/null")  # not the person's ~/.ssh/config
    dead = free_port()
    RemoteStore(locations.data_dir()).add(parse_remote(f"ssh://me@127.0.0.1:{dead}/~/.claude/projects"))
    code, out, _ = ingest(capsys)
    assert code == 10 and "connection refused" in out["remotes"][0]["error"]
    assert main(["ingest"]) == 10
    assert f"FAILED me@127.0.0.1:{dead}" in capsys.readouterr().err


def test_only_what_a_pull_wrote_is_read_and_nothing_pulled_is_left_unread(
    sshd: SshServer, home: Path, added, capsys
) -> None:
    for i in range(5):
        claude_session(home, f"s-p{i}", [(f"p{i}", f"old prompt {i}", "ok")])
    assert ingest(capsys)[0] == 0  # no list yet: every mirror is walked
    claude_session(home, "s-new", [("n1", "the new capybarahinge", "ok")])
    code, out, _ = ingest(capsys)
    assert (
        code == 0 and out["ingested_files"] == 1 and out["unchanged_files"] == 0
    )  # the 5 not even looked at
    data = locations.data_dir()
    claude_session(home, "s-late", [("n2", "the axolotlspring", "ok")])
    assert pull_all(data)[0].ok  # pulled, then the ingest never ran (killed, or the watcher's pull)
    code, out, _ = ingest(capsys)
    assert code == 0 and out["ingested_files"] == 1
    assert found(capsys, "axolotlspring") == 1 and found(capsys, "capybarahinge") == 1
    (data / "remote-pull" / "pending.json").unlink()  # the list lost: every mirror is walked again
    code, out, _ = ingest(capsys)
    assert code == 0 and out["unchanged_files"] == 7


def test_a_host_alias_of_the_ssh_config_works_as_for_ssh(sshd: SshServer, home: Path, capsys) -> None:
    claude_session(home, "s-alias", [("al", "reached through the alias: a tapirgrommet", "ok")])
    spec = parse_remote(f"ssh://{sshd.user}@{ALIAS}{home / '.claude' / 'projects'}")
    RemoteStore(locations.data_dir()).add(spec)
    code, out, err = ingest(capsys)
    assert code == 0, err
    assert out["remotes"][0]["host"] == f"{sshd.user}@{ALIAS}" and out["remotes"][0]["method"] == "rsync"
    assert found(capsys, "tapirgrommet") == 1
    assert list_remote(f"{sshd.user}@{ALIAS}", [str(home / ".claude" / "projects")])[0][1] == 1
