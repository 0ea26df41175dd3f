"""A reindex killed after it wiped the index is finished by the next writer, never taken for a complete index."""

from __future__ import annotations

import json

from refind_desktop.index.sourcebook import REBUILD_NAME, RebuildMarker
from refind_desktop.ingest.rebuild import wipe

from .helpers import jsonl_chat, refind


def test_ingest_after_a_killed_reindex_restores_every_turn(tmp_path, refind_home):
    chats = tmp_path / "chats"
    for i in range(3):
        jsonl_chat(chats / f"c{i}.jsonl", [(f"garlic {i}", "ok"), (f"more {i}", "fine")])
    other = tmp_path / "other.jsonl"
    jsonl_chat(other, [("bikes chain", "lube")])
    assert refind(refind_home, "ingest", str(chats), str(other)).returncode == 0
    data = refind_home / "data"
    # what `refind reindex` does before it is killed: marker, then the wipe, nothing re-read yet
    RebuildMarker(data / REBUILD_NAME).start([str(chats), str(other)])
    wipe(data, data / "index", data / "catalog.sqlite")
    assert "interrupted" in refind(refind_home, "stats").stdout
    out = refind(refind_home, "ingest", str(chats))  # any writer finishes the rebuild
    assert out.returncode == 0, out.stderr
    stats = json.loads(refind(refind_home, "stats", "--json").stdout)
    assert stats["turns"] == stats["index_turns"] == 7 and not stats["rebuild_pending"]
    assert not (data / REBUILD_NAME).exists() and not list(data.glob("trash-*"))
