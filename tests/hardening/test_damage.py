"""Damaged catalog or index files are detected at open with what to do; `reindex` recovers from the chat files."""

from __future__ import annotations

import json
import sqlite3

import pytest

from .helpers import jsonl_chat, refind

DAMAGED = "run `refind reindex`"


@pytest.fixture
def indexed(tmp_path, refind_home):
    chats = tmp_path / "chats"
    for i in range(4):
        jsonl_chat(chats / f"c{i}.jsonl", [(f"garlic question {i}", f"answer {i}"), (f"more {i}", "ok")])
    out = refind(refind_home, "ingest", str(chats))
    assert out.returncode == 0, out.stderr
    return chats


def _turns(home) -> int:
    out = refind(home, "stats", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["turns"] == data["index_turns"]
    return data["turns"]


def _flip(path, at: int = 4) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def _clean_error(out) -> None:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr, out.stderr
    assert DAMAGED in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def test_damaged_catalog_header_is_detected_and_reindex_recovers(indexed, refind_home):
    catalog = refind_home / "data" / "catalog.sqlite"
    sqlite3.connect(catalog).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    with catalog.open("r+b") as fh:
        fh.write(b"this is not an sqlite header!!!!")
    for cmd in (["stats"], ["search", "garlic"], ["sessions"], ["ingest", str(indexed)]):
        _clean_error(refind(refind_home, *cmd))
    out = refind(refind_home, "reindex")
    assert out.returncode == 0, out.stderr
    assert "recorded folders" in out.stderr
    assert _turns(refind_home) == 8


def test_deleted_catalog_then_reindex_gives_back_every_turn(indexed, refind_home):
    for suffix in ("", "-wal", "-shm"):
        (refind_home / "data" / f"catalog.sqlite{suffix}").unlink(missing_ok=True)
    assert refind(refind_home, "reindex").returncode == 0
    assert _turns(refind_home) == 8


def test_reindex_from_given_folders_when_nothing_is_recorded(indexed, refind_home):
    data = refind_home / "data"
    (data / "catalog.sqlite").unlink()
    (data / "sources.json").unlink()
    out = refind(refind_home, "reindex")
    assert out.returncode != 0 and "--from-sources FOLDER" in out.stderr and "Traceback" not in out.stderr
    out = refind(refind_home, "reindex", "--from-sources", str(indexed))
    assert out.returncode == 0, out.stderr
    assert _turns(refind_home) == 8


@pytest.mark.parametrize("ext", [".fast", ".idx", ".store", ".term", "meta.json"])
def test_damaged_index_file_is_detected_at_open_and_reindex_repairs(indexed, refind_home, ext):
    index = refind_home / "data" / "index"
    target = index / "meta.json" if ext == "meta.json" else next(index.glob(f"*{ext}"))
    if ext == "meta.json":
        target.write_text(target.read_text()[:-20])
    else:
        _flip(target, len(target.read_bytes()) // 3)
    _clean_error(refind(refind_home, "search", "garlic"))
    assert refind(refind_home, "reindex").returncode == 0
    assert "garlic question 2" in refind(refind_home, "search", "garlic", "question", "2").stdout
    assert _turns(refind_home) == 8


def test_reindex_keeps_forgotten_paths_forgotten(indexed, refind_home):
    assert refind(refind_home, "forget", str(indexed / "c1.jsonl")).returncode == 0
    (refind_home / "data" / "catalog.sqlite").unlink()
    assert refind(refind_home, "reindex").returncode == 0
    assert _turns(refind_home) == 6
    assert refind(refind_home, "forget", "--list").stdout.split() == [str(indexed / "c1.jsonl")]
