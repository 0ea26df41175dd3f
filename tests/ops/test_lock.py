"""One writer, many readers: the writer lock across processes, and readers that never wait."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.ops import ROOT, cli_env, jsonl, refind

from refind_desktop.errors import IndexLockedError
from refind_desktop.index.lock import writer_lock
from refind_desktop.services import build_services

HOLDER = """
import sys, time
from pathlib import Path
from refind_desktop.index.lock import set_process_label
from refind_desktop.services import build_services
set_process_label("refind watch")
svc = build_services()
with svc.index.write_lock():
    svc.ingestor.ingest([Path(sys.argv[1])])
    print("writing", flush=True)
    time.sleep(float(sys.argv[2]))
print("done", flush=True)
"""


@pytest.mark.slow  # eight `refind` processes, one of them holding the lock for ten seconds
def test_three_processes_one_writes_second_writer_told_readers_read(refind_home, chats, tmp_path):
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    more = jsonl(tmp_path / "more" / "tram.jsonl", [("Which tram to Belem?", "Tram 15.")])
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(chats), "10"],
        env=cli_env(refind_home),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "writing"
        t0 = time.monotonic()
        second = refind(refind_home, "ingest", str(more.parent), REFIND_LOCK_WAIT="1")
        waited = time.monotonic() - t0
        assert second.returncode == IndexLockedError.exit_code
        err = second.stderr
        assert "index is busy" in err and f"pid {writer.pid}" in err and "`refind watch`" in err, err
        assert "searching still works" in err
        assert writer.poll() is None and waited < 8, "the second writer gave up; it did not wait it out"
        for _ in range(3):  # readers neither wait nor fail while the writer holds the lock
            reader = refind(refind_home, "search", "garlic", "--json")
            assert reader.returncode == 0 and "five centimetres" in reader.stdout
        assert writer.poll() is None, "the writer still held the lock during all reads"
    finally:
        writer.wait(30)
    assert refind(refind_home, "ingest", str(more.parent)).returncode == 0  # free again
    assert "Tram 15" in refind(refind_home, "search", "tram", "belem", "--json").stdout


def test_lock_is_reentrant_in_process_and_released(refind_home):
    svc = build_services()
    with svc.index.write_lock(), svc.index.write_lock():
        assert svc.index.lock.held
        pid, label = svc.index.lock.holder()
        assert pid is not None
    assert not svc.index.lock.held
    svc.close()


def test_other_thread_gets_a_clear_error(refind_home):
    import threading

    lock = writer_lock(Path(refind_home) / "x.lock")
    lock.acquire()
    errors = []

    def other():
        try:
            lock.acquire(0.2)
        except IndexLockedError as exc:
            errors.append(exc.message)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    lock.release()
    assert errors and "this process" in errors[0]


@pytest.mark.parametrize("delay", [0.3])
def test_searcher_in_a_long_lived_reader_sees_new_commits(refind_home, chats, delay):
    reader = build_services()  # like the TUI: opened once, before the data arrives
    assert not reader.engine.search("garlic")
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    deadline = time.monotonic() + 5
    while not reader.engine.search("garlic") and time.monotonic() < deadline:
        time.sleep(delay)
    assert reader.engine.search("garlic"), (
        "tantivy's reload-on-commit policy picks up other processes' commits"
    )
    reader.close()
