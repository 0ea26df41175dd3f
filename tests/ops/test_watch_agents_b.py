"""The folder watcher on Qwen Code, Factory Droid, Amp and Cursor agent folders while the agents write:
appended JSONL lines, a rewritten thread and new session files are searchable within 2 s, and a
half-written last line is read once it is complete."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from helpers.cursor_store import add_exchange, build_store

from refind_desktop.ingest.watcher import FolderWatcher
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LIVE_S = 2.0


def until(pred, timeout: float) -> float | None:
    """Seconds until `pred()` held, or None after `timeout`."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
        f.flush()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    for fmt in ("qwen_code", "factory_droid", "amp", "cursor_cli"):
        shutil.copytree(FIXTURES / fmt, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("malformed"))
    return root


def test_agents_writing_while_watched_are_searchable_within_two_seconds(home: Path) -> None:
    svc = build_services()
    watcher = FolderWatcher(svc, home)
    watcher.start()
    try:
        assert watcher.wait_idle(30)
        assert svc.engine.search("seedling tray")

        def found(phrase: str) -> bool:  # the phrase itself is in a hit turn, not only one of its words
            blocks = svc.engine.search(phrase)
            return any(phrase in t.text for b in blocks for t in b.turns)

        # Qwen Code appends a prompt and a reply to its chat
        chat = next(home.glob(".qwen/projects/*/chats/*.jsonl"))
        records = [
            {"uuid": "q-0100", "parentUuid": "q-0011", "sessionId": "7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6",
             "timestamp": "2025-11-03T09:00:00.000Z", "type": "user",
             "message": {"role": "user", "parts": [{"text": "should the misting pump pause at night?"}]}},
            {"uuid": "q-0101", "parentUuid": "q-0100", "sessionId": "7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6",
             "timestamp": "2025-11-03T09:00:04.000Z", "type": "assistant",
             "message": {"role": "model", "parts": [{"text": "Yes, pause misting between 22:00 and 05:00."}]}},
        ]  # fmt: skip
        append(chat, "".join(json.dumps(r) + "\n" for r in records))
        seconds = until(lambda: found("misting pump"), 10)
        assert seconds is not None and seconds <= LIVE_S, seconds

        # Factory Droid is mid-way through a line: nothing half-read; the completed line is read
        session = next(home.glob(".factory/sessions/*/*.jsonl"))
        line = json.dumps(
            {"type": "message", "id": "d-07", "timestamp": "2025-12-01T10:05:00.000Z",
             "message": {"role": "user", "content": "log the compost temperature hourly"}}
        )  # fmt: skip
        append(session, line[:30])
        time.sleep(1.0)
        assert watcher.wait_idle(10)
        assert not found("compost temperature")
        append(session, line[30:] + "\n")
        seconds = until(lambda: found("compost temperature"), 10)
        assert seconds is not None and seconds <= LIVE_S, seconds

        # Amp rewrites its thread file as it grows
        thread = next(home.glob(".local/share/amp/threads/T-*.json"))
        data = json.loads(thread.read_text(encoding="utf-8"))
        data["messages"] += [
            {"role": "user", "content": [{"type": "text", "text": "does the hail sensor share the bus?"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "It does, at address 0x48."}]},
        ]
        tmp = thread.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(thread)  # written whole, then renamed over the old file
        seconds = until(lambda: found("hail sensor"), 10)
        assert seconds is not None and seconds <= LIVE_S, seconds

        # a new Cursor agent transcript appears in a new folder
        folder = next(home.glob(".cursor/projects/*/agent-transcripts"))
        new = folder / "77aa0000-1111-4222-8333-444455556666" / "77aa0000-1111-4222-8333-444455556666.jsonl"
        new.parent.mkdir()
        lines = [
            {"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>graph the soil pH</user_query>"}]}},
            {"role": "assistant", "message": {"content": [{"type": "text", "text": "Plotted soil pH per bed."}]}},
        ]  # fmt: skip
        new.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        seconds = until(lambda: found("soil pH"), 10)
        assert seconds is not None and seconds <= LIVE_S, seconds
        assert watcher.wait_idle(10)
        totals = svc.catalog.totals()["formats"]  # each write added its turns once, nothing else changed
        assert totals["qwen_code"]["turns"] == 5 and totals["factory_droid"]["turns"] == 3
        assert totals["amp"]["turns"] == 4 and totals["cursor_cli"]["turns"] == 4
    finally:
        watcher.stop()
        svc.close()


def test_cursor_cli_store_rows_written_while_watched_are_searchable(tmp_path: Path) -> None:
    """The CLI keeps its WAL-mode store open and writes rows; the watcher reads them read-only within 2 s."""
    home = tmp_path / "home"
    store = home / ".cursor/chats/4d5e6f/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/store.db"
    writer = build_store(store, keep_open=True)
    svc = build_services()
    watcher = FolderWatcher(svc, home)
    watcher.start()
    try:
        assert watcher.wait_idle(30)
        assert svc.catalog.totals()["formats"]["cursor_cli"]["turns"] == 2
        add_exchange(writer, "should the heater log its duty cycle?", "Yes, log the duty cycle every minute.")
        seconds = until(
            lambda: any("duty cycle" in t.text for b in svc.engine.search("duty cycle") for t in b.turns), 10
        )
        assert seconds is not None and seconds <= LIVE_S, seconds
        assert watcher.wait_idle(10)
        assert svc.catalog.totals()["formats"]["cursor_cli"]["turns"] == 3
        writer.execute("SELECT count(*) FROM blobs").fetchone()  # the writer still owns its database
        add_exchange(writer, "and the humidity?", "Logged too.")  # ... and can go on writing
    finally:
        watcher.stop()
        svc.close()
        writer.close()
