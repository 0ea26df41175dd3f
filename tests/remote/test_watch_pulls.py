"""The real folder watcher pulls the remote sources every `remote_pull_interval` from a real sshd and
ingests the mirrors: a line added on the remote becomes searchable after the next pull, with its host;
a stopped server is reported per host and nothing pulled before is lost."""

from __future__ import annotations

import threading
from pathlib import Path

from helpers.claude import PROJECT, claude_lines, claude_session
from helpers.sshd import SshServer

from refind_desktop import locations
from refind_desktop.ingest.remote_spec import parse_remote
from refind_desktop.ingest.remote_store import RemoteStore
from refind_desktop.ingest.watcher import FolderWatcher, WatchEvent
from refind_desktop.services import build_services

SID = "eeee5555-0000-4000-8000-000000000005"


class Events:
    """The watcher's events, and a wait for the next one of a kind."""

    def __init__(self) -> None:
        self.seen: list[WatchEvent] = []
        self.cond = threading.Condition()

    def __call__(self, event: WatchEvent) -> None:
        with self.cond:
            self.seen.append(event)
            self.cond.notify_all()

    def next(self, kind: str, after: int, timeout: float = 30) -> WatchEvent:
        with self.cond:
            ok = self.cond.wait_for(lambda: any(e.kind == kind for e in self.seen[after:]), timeout)
            assert ok, [e.message for e in self.seen]
            return next(e for e in self.seen[after:] if e.kind == kind)


def hosts_of(svc, words: str) -> list[str]:
    svc.index.reload()
    return [b.host for b in svc.engine.search(words, options=svc.search_options(top_k=5))]


def test_watcher_pulls_on_its_interval_and_survives_the_server_going_down(
    sshd: SshServer, tmp_path: Path
) -> None:
    remote = tmp_path / "remote-home"
    claude_session(remote, SID, [("w1", "the greenhouse vent sticks", "oil the hinge")])
    RemoteStore(locations.data_dir()).add(parse_remote(sshd.url(remote / ".claude" / "projects")))
    local = tmp_path / "laptop"
    local.mkdir()
    svc = build_services()
    events = Events()
    watcher = FolderWatcher(svc, local, on_report=events, debounce=0.1, pull_interval=1.0)
    try:
        watcher.start()
        pulled = events.next("pulled", 0)
        assert "FAILED" not in pulled.message and pulled.paths == ()
        events.next("ingested", events.seen.index(pulled))
        assert hosts_of(svc, "greenhouse vent") == [sshd.host_key]

        mark = len(events.seen)  # one line more on the remote: found after the next pull
        lines = claude_lines(
            SID,
            [
                ("w1", "the greenhouse vent sticks", "oil the hinge"),
                ("w2", "and the zinnia trays", "move them"),
            ],
        )
        (remote / PROJECT / f"{SID}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        events.next("pulled", mark)
        events.next("ingested", mark)
        assert hosts_of(svc, "zinnia trays") == [sshd.host_key]

        sshd.stop()
        mark = len(events.seen)
        down = events.next("pulled", mark)
        assert down.paths == (sshd.host_key,) and f"FAILED {sshd.host_key}: " in down.message
        assert RemoteStore(locations.data_dir()).status()[sshd.host_key].ok is False
        assert hosts_of(svc, "greenhouse vent") == [sshd.host_key]  # nothing pulled before is lost
        assert watcher.running
    finally:
        watcher.stop()
        svc.close()


def test_no_pulls_when_the_interval_is_zero(sshd: SshServer, tmp_path: Path) -> None:
    remote = tmp_path / "remote-home"
    claude_session(remote, SID, [("w1", "the greenhouse vent sticks", "oil the hinge")])
    RemoteStore(locations.data_dir()).add(parse_remote(sshd.url(remote / ".claude" / "projects")))
    (tmp_path / "laptop").mkdir()
    svc = build_services()
    events = Events()
    watcher = FolderWatcher(svc, tmp_path / "laptop", on_report=events, debounce=0.1, pull_interval=0)
    try:
        watcher.start()
        assert watcher.wait_idle(10)
        threading.Event().wait(1.5)
        assert [e.kind for e in events.seen] == ["started", "ingested"]
        assert RemoteStore(locations.data_dir()).status() == {}
    finally:
        watcher.stop()
        svc.close()
