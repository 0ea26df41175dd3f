"""Watching live SQLite agent databases: rows another process commits to the write-ahead log become searchable,
nothing is doubled, the reader never fails and the writer never meets a lock; an uncommitted row waits."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest
from helpers.sqlite_agents import (
    add_crush_message,
    add_goose_message,
    add_warp_query,
    add_zed_thread,
    crush_db,
    crush_writer,
    goose_db,
    warp_db,
    zed_db,
)

from refind_desktop.ingest.watcher import FolderWatcher, WatchEvent
from refind_desktop.services import build_services

EXCHANGES = 40


def wait_for(pred, timeout: float) -> float | None:
    """Seconds until `pred()` held, or None after `timeout`."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(0.02)
    return None


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


def found(svc, word: str) -> bool:
    return bool(svc.engine.search(word))


def problems(events: list[WatchEvent]) -> list[str]:
    """Reader errors: failed ingests, skipped files, warnings of any report."""
    out = [e.message for e in events if e.kind in ("error", "warning")]
    for e in events:
        if e.report is not None:
            out += [f"skipped {s.path}: {s.reason}" for s in e.report.skipped]
            out += list(e.report.warnings)
    return out


def test_rows_written_by_another_process_become_searchable_once(svc, tmp_path: Path) -> None:
    db_path = tmp_path / "proj" / ".crush" / "crush.db"
    seed = crush_db(db_path, wal=True)
    crush_row(seed, "seed")
    seed.commit()
    seed.close()
    events: list[WatchEvent] = []
    watcher = FolderWatcher(svc, tmp_path / "proj", on_report=events.append, debounce=0.3, max_delay=1.0)
    watcher.start()
    out = tmp_path / "writer.json"
    writer = multiprocessing.get_context("spawn").Process(
        target=crush_writer, args=(str(db_path), EXCHANGES, 0.05, str(out))
    )
    try:
        assert watcher.wait_idle(30)
        writer.start()
        first = wait_for(lambda: found(svc, "kiwi0000"), 10)
        assert first is not None, "a row committed while the writer keeps writing is read before it stops"
        writer.join(30)
        assert writer.exitcode == 0
        assert json.loads(out.read_text()) == [], "the writer met a lock or another SQLite error"
        assert wait_for(lambda: found(svc, f"mango{EXCHANGES - 1:04d}"), 5) is not None
        assert watcher.wait_idle(10)
        missing = [
            i for i in range(EXCHANGES) if not (found(svc, f"kiwi{i:04d}") and found(svc, f"mango{i:04d}"))
        ]
        assert missing == []
        totals = svc.catalog.totals()["formats"]["crush"]
        assert (totals["sessions"], totals["turns"]) == (
            EXCHANGES // 10 + 1,
            EXCHANGES + 1,
        )  # nothing doubled
        assert len(svc.engine.search("kiwi0007")) == 1
        assert problems(events) == []
        # a row committed by a writer that then stays idle is searchable within 2 s
        late = sqlite3.connect(db_path, timeout=0)
        add_crush_message(
            late, "live-9", "u-late", "user", [{"type": "text", "data": {"text": "papaya late"}}], 1
        )
        late.commit()
        took = wait_for(lambda: found(svc, "papaya"), 2.0)
        late.close()
        assert took is not None, "a committed row was not searchable within 2 s"
    finally:
        if writer.is_alive():
            writer.kill()
        watcher.stop()


def test_an_uncommitted_row_waits_for_its_commit(svc, tmp_path: Path) -> None:
    db_path = tmp_path / "proj" / ".crush" / "crush.db"
    db = crush_db(db_path, wal=True)
    add_crush_message(db, "s1", "m1", "user", [{"type": "text", "data": {"text": "committed apricot"}}], 1)
    db.commit()
    watcher = FolderWatcher(svc, tmp_path / "proj", debounce=0.2, max_delay=1.0)
    watcher.start()
    try:
        assert watcher.wait_idle(30) and found(svc, "apricot")
        db.execute("PRAGMA cache_size = 1")  # spill the open transaction's pages into the log early
        for i in range(30):
            add_crush_message(
                db, "s1", f"p{i}", "user", [{"type": "text", "data": {"text": "pending plum " * 50}}], 2
            )
        time.sleep(1.0)
        assert watcher.wait_idle(10)
        assert not found(svc, "plum")  # written to the log, not committed: not read
        db.commit()
        assert wait_for(lambda: found(svc, "plum"), 2.0) is not None
    finally:
        watcher.stop()
        db.close()


def crush_row(db: sqlite3.Connection, word: str) -> None:
    add_crush_message(db, "s", f"m-{word}", "user", [{"type": "text", "data": {"text": f"about {word}"}}], 5)


def goose_row(db: sqlite3.Connection, word: str) -> None:
    add_goose_message(db, "20260301_1", "user", [{"type": "text", "text": f"about {word}"}], 1772355600)


def zed_row(db: sqlite3.Connection, word: str) -> None:
    message = {"User": {"id": word, "content": [{"Text": f"about {word}"}]}}
    add_zed_thread(db, f"t-{word}", word, [message], "2026-02-01T08:00:00Z", "2026-02-01T08:00:00Z")


def warp_row(db: sqlite3.Connection, word: str) -> None:
    add_warp_query(db, f"c-{word}", f"x-{word}", "2026-01-12 18:00:00", f"about {word}")


AGENTS = {
    "crush": (".crush/crush.db", crush_db, crush_row),
    "goose": (".local/share/goose/sessions/sessions.db", goose_db, goose_row),
    "zed": (".local/share/zed/threads/threads.db", zed_db, zed_row),
    "warp": (".local/state/warp-terminal/warp.sqlite", warp_db, warp_row),
}


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_row_committed_while_watching_is_searchable_within_2_s(agent: str, svc, tmp_path: Path) -> None:
    rel, make, add = AGENTS[agent]
    home = tmp_path / "home"
    db = make(home / rel, wal=True)
    add(db, "quince")
    db.commit()
    events: list[WatchEvent] = []
    watcher = FolderWatcher(svc, home, on_report=events.append)  # the default debounce
    watcher.start()
    try:
        assert watcher.wait_idle(30) and found(svc, "quince")
        add(db, "rhubarb")
        db.commit()
        assert wait_for(lambda: found(svc, "rhubarb"), 2.0) is not None
        assert watcher.wait_idle(10)
        assert svc.catalog.totals()["formats"][agent]["turns"] == 2  # the first row not read twice
        assert problems(events) == []
    finally:
        watcher.stop()
        db.close()


def test_goose_jsonl_half_written_line_is_read_once_completed(svc, tmp_path: Path) -> None:
    folder = tmp_path / "home" / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    path = folder / "20250110_093000.jsonl"
    meta = {"working_dir": "/home/u", "description": "Hive scale", "schedule_id": None, "message_count": 1}
    first = {"role": "user", "created": 1736501400, "content": [{"type": "text", "text": "weigh the hive"}]}
    path.write_text(json.dumps(meta) + "\n" + json.dumps(first) + "\n", encoding="utf-8")
    events: list[WatchEvent] = []
    watcher = FolderWatcher(svc, tmp_path / "home", on_report=events.append)
    watcher.start()
    try:
        assert watcher.wait_idle(30) and found(svc, "weigh")
        reply = {
            "role": "assistant",
            "created": 1736501410,
            "content": [{"type": "text", "text": "It weighs 41 kg"}],
        }
        line = json.dumps(reply)
        with path.open("a", encoding="utf-8") as f:
            f.write(line[:30])  # goose is still writing the line
        time.sleep(1.0)
        assert watcher.wait_idle(10) and not found(svc, "kg")
        with path.open("a", encoding="utf-8") as f:
            f.write(line[30:] + "\n")
        assert wait_for(lambda: found(svc, "41 kg"), 2.0) is not None
        assert watcher.wait_idle(10)
        assert svc.catalog.totals()["formats"]["goose"]["turns"] == 1  # the reply joined its turn, once
    finally:
        watcher.stop()
