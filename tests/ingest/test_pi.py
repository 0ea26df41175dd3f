"""Pi reader: v3 session trees with a branch, v1 flat files, titles, tool output, bad and live files."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import agent_paths, pi
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file

SESSIONS = Path(__file__).resolve().parents[1] / "fixtures" / "pi" / ".pi" / "agent" / "sessions"
PROJECT = SESSIONS / "--home-dev-orchard--"
TREE = PROJECT / "2026-03-02T09-14-05-120Z_0b7e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b.jsonl"
FLAT = PROJECT / "2025-12-20T18-00-00-000Z_5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f.jsonl"
BROKEN = PROJECT / "2026-01-01T00-00-00-000Z_ffffffff-0000-4000-8000-000000000000.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(pi.parse(path, ctx)), ctx


def test_tree_session_keeps_each_branch_once_in_the_order_it_was_seen() -> None:
    [s], ctx = parse(TREE)
    assert ctx.warnings == []
    assert s.session_id == "pi:0b7e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
    assert s.title == "Greenhouse log rotation"  # the /name of the session
    assert s.started_at == datetime(2026, 3, 2, 9, 14, 5, 120000, tzinfo=UTC)
    first, kept, branch = s.turns
    assert first.text.startswith(
        "User: how do I rotate the greenhouse logs weekly?\n\nAssistant: Let me check"
    )
    assert (
        "[tool: read] path=/etc/logrotate.d/greenhouse\n[tool output]\n/var/log/greenhouse/*.log {"
        in first.text
    )
    assert first.text.endswith("The config already rotates weekly and keeps 4 files.")
    assert (
        first.timestamp == datetime(2026, 3, 2, 9, 14, 20, tzinfo=UTC)
        and first.turn_id == "a1000001@2026-03-02T09:14:20.000Z"
    )
    # the branch left (keep 8 weeks) and the branch taken (compress) both stay, each once
    assert kept.text == "User: keep 8 weeks instead\n\nAssistant: Changed rotate 4 to rotate 8."
    assert branch.text.startswith("User: actually compress the rotated logs too\n\nAssistant: Added compress")
    assert "[tool: bash (run by the user)] logrotate -d /etc/logrotate.d/greenhouse" in branch.text
    text = "".join(t.text for t in s.turns)
    for absent in ("check existing logrotate config", "had asked to keep 8 weeks", "Summary:", "todo-ext"):
        assert absent not in text  # thinking, branch and compaction summaries, extension state
    assert text.count("Changed rotate 4 to rotate 8.") == 1


def test_version_1_flat_session() -> None:
    [s], _ = parse(FLAT)
    assert s.session_id == "pi:5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
    [t] = s.turns
    assert t.text == (
        "User: what port does the weather station exporter listen on?\n\n"
        "Assistant: Port 9187, set in exporter.toml."
    )
    assert t.timestamp == datetime(2025, 12, 20, 18, 0, 5, tzinfo=UTC)


def test_broken_file_is_a_clear_skip() -> None:
    with pytest.raises(ParseError, match="not a Pi session file"):
        parse(BROKEN)


def test_appended_entries_extend_the_session_and_a_torn_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    head = {"type": "session", "version": 3, "id": "live", "timestamp": "2026-03-03T10:00:00Z", "cwd": "/x"}
    user = {
        "type": "message",
        "id": "u1",
        "parentId": None,
        "timestamp": "2026-03-03T10:00:01Z",
        "message": {"role": "user", "content": "which hose fits the rain barrel?"},
    }
    path.write_text(json.dumps(head) + "\n" + json.dumps(user) + "\n" + '{"type": "message", "id": "a1"')
    [s], ctx = parse(path)
    assert [t.text for t in s.turns] == ["User: which hose fits the rain barrel?"]
    assert any("incomplete" in w for w in ctx.warnings)
    reply = {
        "role": "assistant",
        "content": [{"type": "text", "text": "A 19 mm hose."}],
        "stopReason": "stop",
    }
    path.write_text(
        path.read_text().rsplit("\n", 1)[0]
        + "\n"
        + json.dumps(
            {
                "type": "message",
                "id": "a1",
                "parentId": "u1",
                "timestamp": "2026-03-03T10:00:05Z",
                "message": reply,
            }
        )
        + "\n"
    )
    [s], ctx = parse(path)
    assert s.turns[0].text.endswith("Assistant: A 19 mm hose.") and ctx.warnings == []


def test_detection_and_walk_rules(tmp_path: Path) -> None:
    assert detect_file(TREE) == "pi"
    moved = tmp_path / "custom-sessions" / "s.jsonl"  # PI_CODING_AGENT_DIR elsewhere: the header tells
    moved.parent.mkdir()
    moved.write_bytes(TREE.read_bytes())
    assert detect_file(moved) == "pi"
    assert agent_paths.ignored(SESSIONS.parent / "settings.json")
    assert agent_paths.pruned(PROJECT / "subagent-artifacts")


def test_a_forked_session_does_not_double_the_turns_it_copies(tmp_path: Path) -> None:
    from refind_desktop.services import build_services

    project = tmp_path / "sessions" / "--home-dev-orchard--"
    project.mkdir(parents=True)
    original = project / TREE.name
    shutil.copy(TREE, original)
    lines = original.read_text().splitlines()
    # `/fork` at "keep 8 weeks instead": a new file, a new header, then the entries before it as they were
    header = {
        "type": "session",
        "version": 3,
        "id": "f0f0f0f0-1111-4222-8333-444455556666",
        "timestamp": "2026-03-02T10:00:00.000Z",
        "cwd": "/home/dev/orchard",
        "parentSession": str(original),
    }
    own = [
        {
            "type": "message",
            "id": "f1000001",
            "parentId": "a4000004",
            "timestamp": "2026-03-02T10:00:10.000Z",
            "message": {"role": "user", "content": "move the old logs to the NAS"},
        },
        {
            "type": "message",
            "id": "f2000002",
            "parentId": "f1000001",
            "timestamp": "2026-03-02T10:00:15.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Old logs now go to the NAS."}],
            },
        },
    ]
    fork = [json.dumps(header), *lines[1:6], *map(json.dumps, own)]
    (project / "2026-03-02T10-00-00-000Z_f0f0f0f0.jsonl").write_text("\n".join(fork) + "\n")
    svc = build_services()
    try:
        svc.ingestor.ingest([project])
        # the tree's 3 turns, and of the fork's 2 only its own: the copied first turn is kept once
        assert svc.catalog.totals()["formats"]["pi"] == {"files": 2, "sessions": 2, "turns": 4}
        assert svc.engine.search("NAS")
    finally:
        svc.close()
