"""Codex rollout parser: wrapped (session_meta/event_msg) and bare (record_type) layouts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import codex
from refind_desktop.ingest.base import ParseContext

WRAPPED = "sessions/2025/10/29/rollout-2025-10-29T10-12-00-019a2f00-0000-7000-8000-00000000c0de.jsonl"
BARE = "sessions/2025/08/14/rollout-2025-08-14T21-40-02-5b0e6c1d-2f3a-4b5c-8d9e-0a1b2c3d4e5f.jsonl"
EDGE_ID = "019a4000-0000-7000-8000-0000000000aa"
EDGE = f"edge/home/sessions/2025/11/02/rollout-2025-11-02T08-00-00-{EDGE_ID}.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(codex.parse(path, ctx)), ctx


def test_wrapped_layout_reads_event_stream_once(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "codex" / WRAPPED)
    assert ctx.warnings == []
    [s] = sessions
    sid = "codex:019a2f00-0000-7000-8000-00000000c0de"
    assert s.session_id == sid
    assert s.started_at == datetime(2025, 10, 29, 9, 12, 0, 398000, tzinfo=UTC)
    assert s.title == "list the python files that import calendar"
    [t] = s.turns  # no duplicate from the response_item copy, environment_context dropped
    assert t.text == (
        "User: list the python files that import calendar\n\n"
        "Assistant: Two files import `calendar`: `schedule.py` and `tests/test_schedule.py`."
    )
    assert t.timestamp == datetime(2025, 10, 29, 9, 12, 5, 2000, tzinfo=UTC)
    # the id of a dated turn comes from its first message (time and text), as a fork replays it
    assert (
        t.turn_id.startswith("codex-msg:")
        and t.turn_id == parse(fixtures / "codex" / WRAPPED)[0][0].turns[0].turn_id
    )


def test_bare_layout(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "codex" / BARE)
    assert ctx.warnings == []
    [s] = sessions
    assert s.session_id == "codex:5b0e6c1d-2f3a-4b5c-8d9e-0a1b2c3d4e5f"
    assert s.started_at == datetime(2025, 8, 14, 19, 40, 2, 771000, tzinfo=UTC)
    [t] = s.turns
    assert t.text == (
        "User: what does next_watering return for day 365?\n\nAssistant: It returns 3: (365 + 3) % 365 == 3."
    )
    assert t.timestamp is None  # the bare era has no per-line timestamps


def test_bare_layout_request_wrapper_and_user_instructions(fixtures: Path) -> None:
    [p] = (fixtures / "codex" / "edge").glob("rollout-2025-08-20T14-00-00-*.jsonl")
    [s], ctx = parse(p)
    assert s.session_id == "codex:5b0e6c1d-0000-4b5c-8d9e-0000000000cc"
    assert [t.text for t in s.turns] == ["User: add a --dry-run flag\n\nAssistant: Added `--dry-run`."]


def test_injected_context_commentary_rollback_torn_line(fixtures: Path) -> None:
    [s], ctx = parse(fixtures / "codex" / EDGE)
    assert s.session_id == f"codex:{EDGE_ID}"
    assert s.title == "Cold cache"  # from $CODEX_HOME/session_index.jsonl
    assert [t.text for t in s.turns] == [
        # commentary skipped; AGENTS.md / environment_context / developer messages never appear
        "User: why is the cache cold after deploy?\n\nAssistant: deploy.sh runs FLUSHALL; remove it.",
        # no agent_message: task_complete.last_agent_message is used
        "User: and the warmup job?\n\nAssistant: Warmup runs before the flush, so it is wasted.",
        # the third prompt was rolled back (thread_rolled_back num_turns=1)
    ]
    assert [t.timestamp for t in s.turns] == [
        datetime(2025, 11, 2, 7, 0, 5, 1000, tzinfo=UTC),
        datetime(2025, 11, 2, 7, 1, tzinfo=UTC),
    ]
    assert len(ctx.warnings) == 2
    assert "line 10 is not valid JSON" in ctx.warnings[0]
    assert "last line 23 is incomplete" in ctx.warnings[1]


def test_paginated_item_completed(fixtures: Path) -> None:
    [p] = (fixtures / "codex" / "edge").glob("rollout-2025-12-01T11-00-00-*.jsonl")
    [s], ctx = parse(p)
    assert ctx.warnings == []
    assert s.session_id == "codex:019a5000-0000-7000-8000-0000000000bb"
    assert s.title == "Rename foo"  # thread_name_updated
    assert [t.text for t in s.turns] == ["User: rename foo to bar\n\nAssistant: Renamed in 3 files."]


def test_response_item_stream_when_no_events(fixtures: Path) -> None:
    [s], _ = parse(fixtures / "codex" / "edge" / "response_only.jsonl")
    assert s.session_id == "codex:019a6000-0000-7000-8000-0000000000dd"
    assert [t.text for t in s.turns] == ["User: ping\n\nAssistant: pong", "User: again\n\nAssistant: pong"]
    ids = [t.turn_id for t in s.turns]
    assert all(i.startswith("codex-msg:") for i in ids) and len(set(ids)) == 2


def test_session_id_from_file_name_when_meta_lacks_it(tmp_path: Path) -> None:
    p = tmp_path / "rollout-2025-10-01T10-00-00-01234567-89ab-7cde-8f01-23456789abcd.jsonl"
    p.write_text(
        '{"timestamp":"2025-10-01T08:00:00Z","type":"event_msg",'
        '"payload":{"type":"user_message","message":"hi"}}\n'
    )
    [s], _ = parse(p)
    assert s.session_id == "codex:01234567-89ab-7cde-8f01-23456789abcd"
    assert s.turns[0].text == "User: hi"


def test_empty_file_yields_nothing(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "codex" / "edge" / "empty.jsonl")
    assert sessions == [] and ctx.warnings == []


def test_not_jsonl_raises_parse_error(fixtures: Path) -> None:
    with pytest.raises(ParseError, match="garbage.jsonl"):
        parse(fixtures / "codex" / "edge" / "garbage.jsonl")
