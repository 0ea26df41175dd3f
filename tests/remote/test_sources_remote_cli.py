"""`refind sources add|list|remove` with ssh:// sources, and `stats`, report each host's state."""

from __future__ import annotations

import json
import os
import shlex

import pytest
from helpers.mirrors import Archive, archive_fixture  # noqa: F401 - the `archive` fixture

from refind_desktop import locations
from refind_desktop.cli import main
from refind_desktop.ingest.remote import RemoteStore, pull_all
from refind_desktop.ingest.remote_store import HostStatus

BOX_URL = "ssh://dana@buildbox:2222/~/.claude/projects"
VM_URL = "ssh://ci@cloud-vm/home/ci/.claude/projects"


def run_json(capsys: pytest.CaptureFixture, *argv: str):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_add_records_a_remote_source_once_and_says_how_to_pull_it(capsys) -> None:
    assert main(["sources", "add", "ssh://dana@buildbox:2222/~/.claude/projects/"]) == 0
    out = capsys.readouterr().out
    assert "added ssh://dana@buildbox:2222/~/.claude/projects (host dana@buildbox:2222)" in out
    assert "`refind ingest`" in out and "ssh -p 2222 dana@buildbox" in out
    assert run_json(capsys, "sources", "add", BOX_URL)["added"] == []  # recorded already
    assert [s.url for s in RemoteStore(locations.data_dir()).list()] == [BOX_URL]
    store_file = RemoteStore(locations.data_dir()).path
    assert oct(os.stat(store_file).st_mode & 0o777) == "0o600"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ssh://dana:hunter2@buildbox/~/x", "never stores a password"),
        ("ssh://buildbox/~/../etc", "may not contain '..'"),
        ("ssh://-oProxyCommand=x/~/x", "bad host name"),
    ],
)
def test_add_refuses_a_bad_remote_and_records_nothing(capsys, url, why) -> None:
    assert main(["sources", "add", url]) != 0
    assert why in capsys.readouterr().err
    assert RemoteStore(locations.data_dir()).list() == []


def test_list_and_stats_show_each_hosts_state_and_counts(archive: Archive, capsys) -> None:
    for url in (BOX_URL, VM_URL):
        assert main(["sources", "add", url]) == 0
    store = RemoteStore(locations.data_dir())
    store.set_status(
        HostStatus("dana@buildbox:2222", True, "2026-01-02T03:04:05+00:00", None, 1, 900, 0.4, "rsync")
    )
    store.set_status(HostStatus("ci@cloud-vm", False, "2026-01-02T03:04:06+00:00", "connection timed out"))
    capsys.readouterr()
    rows = {r["path"]: r for r in run_json(capsys, "sources", "list")}
    assert rows[BOX_URL]["state"] == "ok" and rows[BOX_URL]["exists"] is True
    assert rows[VM_URL]["state"] == "failed" and rows[VM_URL]["last_pull"]["error"] == "connection timed out"
    assert main(["sources", "list"]) == 0
    text = capsys.readouterr().out
    assert f"{VM_URL}  (host ci@cloud-vm: FAILED: connection timed out (1 files, 1 sessions, 1 turns" in text
    assert "host dana@buildbox:2222: ok (1 files, 1 sessions, 1 turns, last pull 2026-01-02T03:04:05" in text
    hosts = {h["host"]: h for h in run_json(capsys, "stats")["hosts"]}
    assert hosts["ci@cloud-vm"]["state"] == "failed" and hosts["ci@cloud-vm"]["turns"] == 1
    assert hosts["dana@buildbox:2222"]["last_pull"]["method"] == "rsync"
    assert main(["stats"]) == 0
    assert "  ci@cloud-vm: FAILED: connection timed out (1 files" in capsys.readouterr().out


def test_remove_keeps_the_turns_until_forget(archive: Archive, capsys) -> None:
    assert main(["sources", "add", BOX_URL]) == 0
    assert main(["sources", "remove", "dana@buildbox:2222"]) == 0  # a host key removes all its sources
    out = capsys.readouterr().out
    assert f"{BOX_URL} is no longer a source" in out and "refind forget" in out
    assert RemoteStore(locations.data_dir()).list() == []
    hosts = {h["host"]: h for h in run_json(capsys, "stats")["hosts"]}
    assert hosts["dana@buildbox:2222"]["state"] == "removed" and hosts["dana@buildbox:2222"]["turns"] == 1
    assert run_json(capsys, "search", "flaky", "sensor")["results"][0]["host"] == "dana@buildbox:2222"
    assert main(["sources", "remove", BOX_URL]) != 0  # not a source any more
    assert "is not a remote source" in capsys.readouterr().err


def test_a_host_that_refuses_the_connection_is_reported_per_host(capsys) -> None:
    """A real ssh to a closed port: the failure lands in `sources list` with ssh's reason."""
    url = "ssh://nobody@127.0.0.1:1/~/.claude/projects"
    assert main(["sources", "add", url]) == 0
    (result,) = pull_all(locations.data_dir(), timeout=5)
    assert not result.ok and result.error
    capsys.readouterr()
    (row,) = run_json(capsys, "sources", "list")
    assert row["state"] == "failed" and row["last_pull"]["error"] == result.error


def test_forget_of_a_mirror_is_the_way_to_delete_a_hosts_turns(archive: Archive, capsys) -> None:
    assert main(["sources", "add", BOX_URL]) == 0
    assert main(["sources", "remove", BOX_URL]) == 0
    hint = next(line for line in capsys.readouterr().out.splitlines() if "refind forget" in line)
    command = shlex.split(hint.split("`")[1])  # the command as printed, quoted for a shell
    assert command[:2] == ["refind", "forget"]
    assert main(command[1:]) == 0
    capsys.readouterr()
    assert run_json(capsys, "search", "flaky", "sensor")["results"] == []
    hosts = {h["host"]: h for h in run_json(capsys, "stats")["hosts"]}
    assert hosts["dana@buildbox:2222"]["turns"] == 0
    assert {r["host"] for r in run_json(capsys, "search", "kiln")["results"]} == {"ci@cloud-vm", None}
