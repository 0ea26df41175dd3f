"""Zed reader: threads.db with zstd and JSON thread data, current and legacy thread layouts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.sqlite_agents import add_zed_thread, zed_db

from refind_desktop.errors import ParseError
from refind_desktop.ingest import zed
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover

ROOT = Path(".local") / "share" / "zed"

CURRENT = [
    {
        "User": {
            "id": "u1",
            "content": [
                {"Text": "why is the sourdough so dense?"},
                {"Mention": {"uri": "file:///home/u/bake/log.md", "content": "day 1: 60% hydration"}},
            ],
        }
    },
    {
        "Agent": {
            "content": [
                {"Thinking": {"text": "hydration too low", "signature": None}},
                {"Text": "Let me read the bake log."},
                {
                    "ToolUse": {
                        "id": "toolu_1",
                        "name": "read_file",
                        "raw_input": "{}",
                        "input": {"path": "bake/log.md"},
                        "is_input_complete": True,
                    }
                },
            ],
            "tool_results": {
                "toolu_1": {
                    "tool_use_id": "toolu_1",
                    "tool_name": "read_file",
                    "is_error": False,
                    "content": {"Text": "day 1: 60% hydration"},
                    "output": None,
                }
            },
        }
    },
    {"Agent": {"content": [{"Text": "Raise hydration to 72%."}], "tool_results": {}}},
    "Resume",
    {"User": {"id": "u2", "content": [{"Text": "and the proofing time?"}]}},
    {
        "Agent": {
            "content": [{"Text": "About 4 hours at 24 °C."}, {"RedactedThinking": "xx"}],
            "tool_results": {},
        }
    },
]

LEGACY = {
    "version": "0.2.0",
    "summary": "Bread flour",
    "updated_at": "2025-04-02T10:00:00Z",
    "messages": [
        {
            "id": 0,
            "role": "system",
            "segments": [{"type": "text", "text": "system prompt"}],
            "tool_uses": [],
            "tool_results": [],
            "context": "",
        },
        {
            "id": 1,
            "role": "user",
            "segments": [{"type": "text", "text": "bread flour or all-purpose?"}],
            "tool_uses": [],
            "tool_results": [],
            "context": "<file>recipe</file>",
        },
        {"id": 9, "role": "user", "segments": [{"type": "text", "text": "hidden nudge"}], "is_hidden": True},
        {
            "id": 2,
            "role": "assistant",
            "segments": [
                {"type": "thinking", "text": "protein", "signature": None},
                {"type": "text", "text": "Bread flour: more protein."},
            ],
            "tool_uses": [{"id": "t1", "name": "grep", "input": {"regex": "flour"}}],
            "tool_results": [{"tool_use_id": "t1", "is_error": True, "content": "no matches"}],
            "context": "",
        },
    ],
}


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(zed.parse(path, ctx)), ctx


def build(path: Path, wal: bool = False):
    db = zed_db(path, wal=wal)
    add_zed_thread(
        db,
        "0b1c-current",
        "Dense sourdough",
        CURRENT,
        "2026-02-01T08:00:00+00:00",
        "2026-02-01T08:30:00+00:00",
    )
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES (?,?,?,?,?)",
        ("legacy-1", "Bread flour", "2025-04-02T10:00:00Z", "json", json.dumps(LEGACY).encode()),
    )
    db.execute(
        "INSERT INTO threads (id, summary, updated_at, data_type, data) VALUES ('bad', 'x', '2025-01-01T00:00:00Z', 'zstd', x'28b52ffd0000')"
    )
    db.commit()
    return db


def test_current_and_legacy_threads(tmp_path: Path) -> None:
    path = tmp_path / ROOT / "threads" / "threads.db"
    build(path).close()
    (flour, dense), ctx = parse(path)
    assert dense.session_id == "zed:0b1c-current" and dense.title == "Dense sourdough"
    first, second = dense.turns
    assert first.text == (
        "User: why is the sourdough so dense?\n\n[mention: file:///home/u/bake/log.md]\n\n"
        "Assistant: Let me read the bake log.\n\n"
        "[tool: read_file] path=bake/log.md\n[tool output]\nday 1: 60% hydration\n[end tool output]\n\n"
        "Raise hydration to 72%."
    )
    assert second.text == "User: and the proofing time?\n\nAssistant: About 4 hours at 24 °C."
    assert first.timestamp == datetime(2026, 2, 1, 8, 0, tzinfo=UTC)
    assert second.timestamp == datetime(
        2026, 2, 1, 8, 30, tzinfo=UTC
    )  # the last turn: the thread's update time
    assert flour.title == "Bread flour"
    assert [t.text for t in flour.turns] == [
        "User: bread flour or all-purpose?\n\nAssistant: Bread flour: more protein.\n\n"
        "[tool: grep] regex=flour\n[tool output]\n[error] no matches\n[end tool output]"
    ]
    assert flour.started_at == datetime(
        2025, 4, 2, 10, 0, tzinfo=UTC
    )  # no created_at column value: updated_at
    assert any("thread bad" in w for w in ctx.warnings)


def test_detected_and_other_zed_folders_pruned(tmp_path: Path) -> None:
    path = tmp_path / ROOT / "threads" / "threads.db"
    build(path, wal=True).close()
    (tmp_path / ROOT / "db" / "0-stable").mkdir(parents=True)
    (tmp_path / ROOT / "db" / "0-stable" / "db.sqlite").write_bytes(b"SQLite format 3\x00" + b"\0" * 100)
    assert detect_file(path) == "zed"
    sources, skipped = discover([tmp_path / ROOT])
    assert [(s.path.name, s.format) for s in sources] == [("threads.db", "zed")]
    assert skipped == []


def test_a_database_without_threads_is_a_clear_skip(tmp_path: Path) -> None:
    path = tmp_path / ROOT / "threads" / "threads.db"
    zed_db(path).executescript("DROP TABLE threads; CREATE TABLE other (x);").close()
    with pytest.raises(ParseError, match="without Zed's threads table"):
        parse(path)
