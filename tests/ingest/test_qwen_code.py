"""Qwen Code reader: JSONL chats, the older Gemini-style files, detection both ways against Gemini CLI and
Claude Code, the folder walk and the real pipeline."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import qwen_code
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file
from refind_desktop.ingest.walker import discover
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = FIXTURES / "qwen_code"
CHAT = ROOT / ".qwen/projects/-home-dana-src-greenhouse/chats/7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6.jsonl"
TMP = ROOT / ".qwen/tmp"
OLD_SESSION = (
    TMP
    / "9c2e4a6b8d0f1a3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a/chats/session-2025-08-01T09-12-4a1b2c3d.json"
)
OLD_LOG = TMP / "1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a9c2e4a6b8d0f1a3c5e7a9b/logs.json"
BAD = ROOT / "malformed/.qwen/projects/-home-dana-broken/chats/5e6f7a8b-0000-4000-8000-000000000000.jsonl"
GEMINI_SESSION = next((FIXTURES / "gemini_cli/.gemini/tmp").glob("*/chats/session-*.json"))


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(qwen_code.parse(path, ctx)), ctx


def test_jsonl_chat_keeps_prompts_replies_tool_output_and_times() -> None:
    [s], ctx = parse(CHAT)
    assert ctx.warnings == []
    assert s.session_id == "qwen-code:7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6"
    assert s.title == "Sunday watering bug"  # the custom_title record
    assert s.participants == ["user", "qwen"]
    assert s.started_at == datetime(2025, 11, 3, 8, 15, 0, 120000, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: why does the watering schedule skip Sundays?\n\nAssistant: Let me look at the scheduler."
    )
    assert "[tool: read_file] absolute_path=/home/dana/src/greenhouse/schedule.py" in first.text
    assert "[tool output]\nDAYS = range(6)  # weekday() 0..5, Sunday is 6\n[end tool output]" in first.text
    assert first.text.endswith("Use `range(7)`.")
    assert first.timestamp == datetime(2025, 11, 3, 8, 15, 2, 500000, tzinfo=UTC)
    assert first.turn_id == "q-0002"
    # thoughts, notifications, sub-agent records, telemetry and compression summaries are not chat
    everything = first.text + second.text
    for absent in (
        "I should open the scheduler",
        "Background task finished",
        "Sub-agent notes",
        "summary of the chat",
    ):
        assert absent not in everything
    # the prompt is what the user typed: the contents of the @file are not
    assert second.text.startswith("User: explain @tests/test_schedule.py\n\nAssistant: The test checks")
    assert "def test_sunday" not in second.text


def test_legacy_gemini_style_files_get_qwen_ids() -> None:
    [s], _ = parse(OLD_SESSION)
    assert s.session_id == "qwen-code:4a1b2c3d-1111-4222-8333-944455556666"
    assert s.participants == ["user", "qwen"]
    [t] = s.turns
    assert t.text.startswith(
        "User: add a frost alarm below 2 degrees\n\nAssistant: I added `FROST_LIMIT = 2.0`"
    )
    assert "[tool: Edit] file_path=sensors.py\n[tool output]\nApplied 1 edit to sensors.py" in t.text
    assert "find the sensor loop" not in t.text and "Switched to model" not in t.text
    [log], _ = parse(OLD_LOG)
    assert log.session_id == "qwen-code:log:0b1c2d3e-aaaa-4bbb-8ccc-dddddddddddd"
    assert [t.text for t in log.turns] == [
        "User: how do I calibrate the soil moisture probe?"
    ]  # /quit dropped


def test_prompt_log_leaves_out_sessions_a_jsonl_chat_holds(tmp_path: Path) -> None:
    qwen = tmp_path / ".qwen"
    log = qwen / "tmp/abc/logs.json"
    log.parent.mkdir(parents=True)
    rows = [
        {"sessionId": "old-1", "type": "user", "message": "when do I repot the lemon tree?", "timestamp": "2025-07-01T08:00:00Z"},
        {"sessionId": "7f3e2a10", "type": "user", "message": "why does the schedule skip Sundays?", "timestamp": "2025-11-03T08:15:02Z"},
    ]  # fmt: skip
    log.write_text(json.dumps(rows), encoding="utf-8")
    chat = qwen / "projects/-home-dana/chats/7f3e2a10.jsonl"
    chat.parent.mkdir(parents=True)
    chat.write_bytes(CHAT.read_bytes())
    [s], _ = parse(log)
    assert s.session_id == "qwen-code:log:old-1"  # the other prompt is read with its reply from the chat


def test_detection_by_path_and_by_content_both_ways(tmp_path: Path) -> None:
    assert detect_file(CHAT) == "qwen_code"
    assert detect_file(OLD_SESSION) == "qwen_code"
    assert detect_file(OLD_LOG) == "qwen_code"
    copied = tmp_path / "chat.jsonl"  # outside ~/.qwen: its Gemini-API records say Qwen, not Claude Code
    copied.write_bytes(CHAT.read_bytes())
    assert detect_file(copied) == "qwen_code"
    old = tmp_path / "session.json"  # a legacy session has Gemini CLI's keys, but replies of type "qwen"
    old.write_bytes(OLD_SESSION.read_bytes())
    assert detect_file(old) == "qwen_code"
    gemini = tmp_path / "gemini-session.json"  # and a Gemini CLI session stays Gemini CLI's
    gemini.write_bytes(GEMINI_SESSION.read_bytes())
    assert detect_file(gemini) == "gemini_cli"
    claude = next((FIXTURES / "claude_code").rglob("*.jsonl"))
    other = tmp_path / "claude.jsonl"
    other.write_bytes(claude.read_bytes())
    assert detect_file(other) == "claude_code"


def test_jsonl_chat_under_the_per_hash_tmp_folder_is_qwen_code(tmp_path: Path) -> None:
    path = tmp_path / ".qwen/tmp/9c2e4a6b/chats/7f3e2a10.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(CHAT.read_bytes())
    assert detect_file(path) == "qwen_code"


def test_prompt_log_beside_a_chats_folder_is_not_read_twice(tmp_path: Path) -> None:
    project = tmp_path / ".qwen/tmp/abc"
    shutil.copytree(OLD_SESSION.parent, project / "chats")
    log = project / "logs.json"
    log.write_bytes(OLD_LOG.read_bytes())
    with pytest.raises(UndetectedError, match="Qwen Code prompt log"):
        detect_file(log)


def test_folder_walk_reads_chats_and_skips_settings_silently() -> None:
    sources, skipped = discover([ROOT])
    found = {(s.path.relative_to(ROOT).as_posix(), s.format) for s in sources}
    assert found == {
        (CHAT.relative_to(ROOT).as_posix(), "qwen_code"),
        (OLD_SESSION.relative_to(ROOT).as_posix(), "qwen_code"),
        (OLD_LOG.relative_to(ROOT).as_posix(), "qwen_code"),
        (BAD.relative_to(ROOT).as_posix(), "qwen_code"),
    }
    assert skipped == []  # settings.json, installation_id and tool checkpoints are not chats


def test_malformed_file_is_a_clear_error_that_does_not_quote_it() -> None:
    with pytest.raises(ParseError, match="no line is a JSON object; is this really a Qwen Code chat") as e:
        parse(BAD)
    assert "not json" not in str(e.value)


def test_half_written_last_record_waits_for_the_next_pass(tmp_path: Path) -> None:
    path = tmp_path / ".qwen/projects/-p/chats/s.jsonl"
    path.parent.mkdir(parents=True)
    lines = CHAT.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:40], encoding="utf-8")
    [s], ctx = parse(path)
    assert "DAYS = range(6)" not in s.turns[0].text
    assert any("incomplete" in w for w in ctx.warnings)
    path.write_text("".join(lines), encoding="utf-8")
    [s], _ = parse(path)
    assert "DAYS = range(6)" in s.turns[0].text


def test_unknown_record_types_and_fields_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / ".qwen/projects/-p/chats/s.jsonl"
    path.parent.mkdir(parents=True)
    records = [
        {
            "uuid": "a",
            "parentUuid": None,
            "sessionId": "s1",
            "timestamp": "2026-01-02T03:04:05Z",
            "type": "hologram",
        },
        {
            "uuid": "b",
            "parentUuid": "a",
            "sessionId": "s1",
            "timestamp": "2026-01-02T03:04:06Z",
            "type": "user",
            "futureField": {"x": 1},
            "message": {"role": "user", "parts": [{"text": "water the ferns at dawn"}, {"inlineData": {}}]},
        },
        {"uuid": "c", "parentUuid": "b", "type": "assistant", "message": {"role": "model", "parts": "oops"}},
    ]
    setup = "\nThis is the Qwen Code. We are setting up the context for our chat.\nToday's date is Monday."
    records[1:1] = [
        {"uuid": "s1", "type": "user", "message": {"role": "user", "parts": [{"text": setup}]}},
        {"uuid": "s2", "type": "assistant", "message": {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    [s], _ = parse(path)
    assert [t.text for t in s.turns] == ["User: water the ferns at dawn"]


def test_fixture_tree_through_the_pipeline_is_searchable(tmp_path: Path) -> None:
    svc = build_services()
    try:
        report = svc.ingestor.ingest([shutil.copytree(ROOT, tmp_path / "qwen")])
        totals = svc.catalog.totals()["formats"]["qwen_code"]
        assert (totals["sessions"], totals["turns"], len(report.skipped)) == (3, 4, 1)
        assert "is this really a Qwen Code chat" in report.skipped[0].reason
        [block, *_] = svc.engine.search("watering schedule Sundays")
        assert block.session_id == "qwen-code:7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6"
        assert svc.engine.search("frost alarm")
        again = svc.ingestor.ingest([tmp_path / "qwen"])
        assert again.added_turns == 0 and again.removed_turns == 0
    finally:
        svc.close()


def test_branched_chat_adds_only_its_own_turns(tmp_path: Path) -> None:
    """`/branch` copies the chat's records (uuids kept, new session id) into a new file, then goes on."""
    chats = tmp_path / ".qwen/projects/-home-dana-src-greenhouse/chats"
    chats.mkdir(parents=True)
    (chats / CHAT.name).write_bytes(CHAT.read_bytes())
    fork_id = "9d8c7b6a-5f4e-4d3c-8b2a-190817263544"
    records = [json.loads(line) for line in CHAT.read_text(encoding="utf-8").splitlines()]
    for r in records:
        r["forkedFrom"] = {"sessionId": r["sessionId"], "messageUuid": r["uuid"]}
        r["sessionId"] = fork_id
    records += [
        {"uuid": "f-1", "parentUuid": "q-0011", "sessionId": fork_id, "timestamp": "2025-11-04T07:00:00.000Z",
         "type": "user", "message": {"role": "user", "parts": [{"text": "try watering on Sunday evenings instead"}]}},
        {"uuid": "f-2", "parentUuid": "f-1", "sessionId": fork_id, "timestamp": "2025-11-04T07:00:05.000Z",
         "type": "assistant", "message": {"role": "model", "parts": [{"text": "Moved the Sunday run to 19:00."}]}},
    ]  # fmt: skip
    (chats / f"{fork_id}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    svc = build_services()
    try:
        svc.ingestor.ingest([tmp_path])
        assert svc.catalog.totals()["formats"]["qwen_code"]["turns"] == 3  # 2 original + 1 of the branch
        hits = svc.engine.search("watering schedule skip Sundays")
        assert {b.session_id for b in hits if any("skip Sundays" in t.text for t in b.turns)} == {
            "qwen-code:7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6"
        }
        assert svc.engine.search("Sunday evenings")[0].session_id == f"qwen-code:{fork_id}"
    finally:
        svc.close()
