"""Incremental, idempotent ingest and bad-input handling through the real pipeline and index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from refind_desktop.services import build_services


def line(role: str, content: str, ts: str = "2024-05-01T10:00:00Z") -> str:
    return json.dumps({"role": role, "content": content, "timestamp": ts}) + "\n"


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    d = tmp_path / "chats"
    d.mkdir()
    (d / "garden.jsonl").write_text(
        line("user", "How deep to plant garlic?") + line("assistant", "About five centimetres deep.")
    )
    (d / "bikes.jsonl").write_text(
        line("user", "Which chain lube for rain?") + line("assistant", "A wet lube.")
    )
    return d


def turns_in_index(svc) -> int:
    svc.index.reload()
    return svc.index.num_turns()


def test_ingest_then_reingest_is_a_no_op(svc, chats):
    first = svc.ingestor.ingest([chats])
    assert (first.added_turns, first.removed_turns, first.ingested_files) == (2, 0, 2)
    again = svc.ingestor.ingest([chats])
    assert (again.added_turns, again.removed_turns, again.unchanged_files) == (0, 0, 2)
    assert turns_in_index(svc) == 2
    assert svc.catalog.totals()["turns"] == 2


def test_grown_jsonl_appends_only_new_turns_and_tolerates_torn_line(svc, chats):
    svc.ingestor.ingest([chats])
    f = chats / "garden.jsonl"
    with f.open("a") as fh:
        fh.write(
            line("user", "And when to harvest it?") + line("assistant", "When half the leaves are brown.")
        )
        fh.write('{"role": "user", "content": "half writ')  # torn last line, no newline
    rep = svc.ingestor.ingest([chats])
    assert (rep.added_turns, rep.removed_turns) == (1, 0)
    assert turns_in_index(svc) == 3
    # the writer finishes the line: exactly one more turn, nothing removed
    with f.open("a") as fh:
        fh.write('ten line"}\n')
    rep = svc.ingestor.ingest([chats])
    assert (rep.added_turns, rep.removed_turns) == (1, 0)
    assert turns_in_index(svc) == 4
    blocks = svc.engine.search("harvest brown leaves")
    assert any("half the leaves are brown" in t.text for b in blocks for t in b.turns)


def test_changed_file_replaces_exactly_its_own_sessions(svc, chats):
    svc.ingestor.ingest([chats])
    (chats / "garden.jsonl").write_text(
        line("user", "How deep to plant tulips?") + line("assistant", "Three times the bulb height.")
    )
    rep = svc.ingestor.ingest([chats])
    assert (rep.added_turns, rep.removed_turns, rep.unchanged_files) == (1, 1, 1)
    assert [b.session_id for b in svc.engine.search("garlic")] == []
    assert svc.engine.search("tulips")
    assert svc.engine.search("chain lube")  # the other file is untouched


def test_forget_removes_a_source(svc, chats):
    svc.ingestor.ingest([chats])
    removed = svc.ingestor.forget(chats / "bikes.jsonl")
    assert removed == 1
    assert svc.engine.search("chain lube") == []
    assert turns_in_index(svc) == 1
    assert svc.ingestor.forget(chats / "nope.jsonl") == -1


BAD_FILES = {
    "malformed.json": b'[{"role": "user", "content": "x"',
    "empty.jsonl": b"",
    "unknown.json": b'{"weather": "sunny", "temperature": 21}',
    "binary.dat": bytes(range(256)) * 20,
}


def test_bad_inputs_are_skipped_with_reasons_and_lose_nothing(svc, chats):
    svc.ingestor.ingest([chats])
    for name, data in BAD_FILES.items():
        (chats / name).write_bytes(data)
    (chats / "latin1.txt").write_bytes(
        "User: Wie weit ist es nach Köln?\nAssistant: Etwa 30 km.\n".encode("latin-1")
    )
    rep = svc.ingestor.ingest([chats])
    reasons = {Path(s.path).name: s.reason for s in rep.skipped}
    assert set(BAD_FILES) <= set(reasons), reasons
    assert "empty" in reasons["empty.jsonl"]
    assert "binary" in reasons["binary.dat"]
    assert "unknown" in reasons["unknown.json"]
    # the non-UTF-8 transcript is ingested with a warning, not lost
    assert any("latin1.txt" in w for w in rep.warnings)
    assert svc.engine.search("Köln")
    assert turns_in_index(svc) == 3
    stats_skipped = dict(svc.catalog.skipped())
    assert set(BAD_FILES) <= {Path(p).name for p in stats_skipped}


def test_same_session_in_two_files_is_kept_once(svc, tmp_path):
    import refind_desktop

    chatgpt = Path(refind_desktop.__file__).parent / "samples" / "chatgpt-export" / "conversations.json"
    a, b = tmp_path / "a" / "conversations.json", tmp_path / "b" / "conversations.json"
    for p in (a, b):
        p.parent.mkdir()
        p.write_bytes(chatgpt.read_bytes())
    first = svc.ingestor.ingest([a])
    second = svc.ingestor.ingest([b])
    assert first.added_turns > 0 and second.added_turns == 0
    assert any("kept once" in w for w in second.warnings)
    assert turns_in_index(svc) == first.added_turns


def test_file_vanishing_mid_ingest_is_reported(svc, chats):
    victim = chats / "garden.jsonl"

    def progress(p):
        if p.current.endswith("garden.jsonl") and victim.exists():
            victim.unlink()

    rep = svc.ingestor.ingest([chats], progress=progress)
    assert [Path(s.path).name for s in rep.skipped] == ["garden.jsonl"]
    assert "vanished" in rep.skipped[0].reason
    assert turns_in_index(svc) == 1


def test_truncated_export_keeps_earlier_sessions(svc, tmp_path, chats):
    svc.ingestor.ingest([chats])
    before = turns_in_index(svc)
    (chats / "broken.jsonl").write_bytes(b"\xff\xfe\x00garbage\x00\x00" * 10)
    svc.ingestor.ingest([chats])
    assert turns_in_index(svc) == before
