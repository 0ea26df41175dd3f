"""The folder watcher: in-process (as the TUI uses it) and `refind watch` as a process (as systemd runs it)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest
from helpers.ops import ROOT, cli_env, jsonl

from refind_desktop.cli import main
from refind_desktop.errors import ConfigError
from refind_desktop.ingest.watcher import FolderWatcher, WatchEvent
from refind_desktop.services import build_services


def wait_for(pred, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


def test_watcher_ingests_new_and_grown_files_and_reports_deletions(svc, chats):
    events: list[WatchEvent] = []
    threads: set[str] = set()

    def on_report(ev: WatchEvent) -> None:
        threads.add(threading.current_thread().name)
        events.append(ev)

    w = FolderWatcher(svc, chats, on_report=on_report, debounce=0.2)
    w.start()
    try:
        assert w.wait_idle(30)
        assert svc.engine.search("garlic")
        jsonl(chats / "sub" / "bread.jsonl", [("Sourdough starter too runny?", "Use less water.")])
        assert wait_for(lambda: bool(svc.engine.search("sourdough starter")))
        (chats / "garden.jsonl").unlink()
        assert wait_for(lambda: any(e.kind == "deleted" for e in events))
        assert w.wait_idle(10)
    finally:
        w.stop()
    kinds = [e.kind for e in events]
    assert kinds[0] == "started" and kinds[-1] == "stopped" and "ingested" in kinds
    deleted = next(e for e in events if e.kind == "deleted")
    assert "refind forget" in deleted.message and str(chats.resolve() / "garden.jsonl") in deleted.paths
    assert svc.engine.search("garlic"), "deleted files are not forgotten automatically"
    assert threads == {"refind-watch"}, "callbacks come from the watcher's one thread"


def test_watch_without_folder_is_a_clear_config_error(capsys):
    assert main(["watch"]) == ConfigError.exit_code
    assert "chat_folder" in capsys.readouterr().err


def test_sigterm_stops_refind_watch_cleanly(refind_home, chats):
    proc = subprocess.Popen(
        [sys.executable, "-m", "refind_desktop", "watch", str(chats), "--debounce", "0.2"],
        env=cli_env(refind_home),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = refind_home / "logs" / "watch.log"
    try:
        assert wait_for(lambda: log.exists() and "initial ingest" in log.read_text(), 60), proc.stderr
        jsonl(chats / "kettle.jsonl", [("Descale the kettle?", "Vinegar and water.")])
        assert wait_for(lambda: "+1 turns" in log.read_text(), 30), log.read_text()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    text = log.read_text()
    assert "finishing the current commit" in text and "stopped watching" in text
    assert "not forgotten" in text
    assert (log.stat().st_mode & 0o777) == 0o600
    svc = build_services()
    assert svc.engine.search("descale kettle")
    svc.close()
