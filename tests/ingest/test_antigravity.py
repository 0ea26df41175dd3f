"""Antigravity reader: USER_REQUEST text, replies with positional tool results, the full transcript."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import agent_paths, antigravity
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import UndetectedError, detect_file

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "antigravity" / ".gemini" / "antigravity-cli"
LOGS = ROOT / "brain" / "b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e" / ".system_generated" / "logs"
BROKEN = ROOT / "brain" / "c0c0c0c0-0000-4000-8000-000000000000" / ".system_generated" / "logs"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(antigravity.parse(path, ctx)), ctx


def test_full_transcript_turns_tools_and_times() -> None:
    [s], ctx = parse(LOGS / "transcript_full.jsonl")
    assert ctx.warnings == []
    assert s.session_id == "antigravity:b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e"
    assert s.title == "add a dark mode toggle to the settings page"
    first, second = s.turns
    assert first.text.startswith(
        "User: add a dark mode toggle to the settings page\n\nAssistant: I'll look at the settings component first."
    )
    assert "[tool: view_file] AbsolutePath=/home/dev/app/src/Settings.tsx" in first.text
    assert '2:   return <form className="settings" />;' in first.text
    # two calls in one reply get the two result steps after it, in order
    assert "[tool: write_to_file] TargetFile=/home/dev/app/src/ThemeToggle.tsx" in first.text
    assert "[tool output]\nCreated file file:///home/dev/app/src/ThemeToggle.tsx" in first.text
    assert "[tool: run_command] CommandLine=npm test -- ThemeToggle\n[tool output]\nPASS" in first.text
    assert first.text.endswith("it switches the data-theme attribute and its test passes.")
    assert first.timestamp == datetime(2026, 4, 20, 14, 2, 11, 204000, tzinfo=UTC) and first.turn_id == "0"
    assert second.text == (
        "User: remember the choice in localStorage\n\nAssistant: [error] The model API is currently "
        "overloaded. Retrying.\n\nThe toggle now stores the theme under the key app-theme in localStorage."
    )
    text = first.text + second.text
    for absent in (
        "ADDITIONAL_METADATA",
        "local time",
        "wombatvault",
        "artifact protocol",
        "React component",
        "telemetry",
    ):
        assert absent not in text  # metadata, history recap, system message, thinking, unknown notices


def test_the_logs_folder_is_the_source_and_prefers_the_full_transcript() -> None:
    assert detect_file(LOGS) == "antigravity"
    for name in ("transcript.jsonl", "transcript_full.jsonl"):
        with pytest.raises(UndetectedError, match="read with its conversation's logs folder"):
            detect_file(LOGS / name)
        assert agent_paths.ignored(LOGS / name)
    [s], _ = parse(LOGS)
    assert len(s.turns) == 2 and "ThemeToggle" in s.turns[0].text  # only the full transcript has step 4


def test_a_full_transcript_that_appears_after_the_compact_one_is_not_a_second_copy(tmp_path: Path) -> None:
    from refind_desktop.services import build_services

    logs = tmp_path / "brain" / "b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e" / ".system_generated" / "logs"
    logs.mkdir(parents=True)
    shutil.copy(LOGS / "transcript.jsonl", logs / "transcript.jsonl")
    svc = build_services()
    try:
        svc.ingestor.ingest([tmp_path])
        shutil.copy(LOGS / "transcript_full.jsonl", logs / "transcript_full.jsonl")
        svc.ingestor.ingest([tmp_path])
        assert svc.catalog.totals()["formats"]["antigravity"] == {"files": 1, "sessions": 1, "turns": 2}
        assert svc.engine.search("ThemeToggle")
    finally:
        svc.close()


def test_broken_transcript_is_a_clear_skip() -> None:
    with pytest.raises(ParseError, match="not an Antigravity transcript"):
        parse(BROKEN / "transcript_full.jsonl")


def test_walk_rules_leave_gemini_cli_alone(tmp_path: Path) -> None:
    assert agent_paths.ignored(ROOT / "history.jsonl")
    assert agent_paths.ignored(LOGS / "overview.txt")
    assert agent_paths.pruned(ROOT / "conversations")
    gemini = tmp_path / ".gemini" / "tmp" / "abc" / "chats" / "session-1.json"
    assert agent_paths.classify(gemini) == ("gemini_cli", None)
    assert not agent_paths.pruned(tmp_path / ".gemini" / "tmp")
    moved = tmp_path / "copy.jsonl"  # a transcript copied elsewhere: its first line tells
    moved.write_bytes((LOGS / "transcript_full.jsonl").read_bytes())
    assert detect_file(moved) == "antigravity"


def test_a_message_the_agent_sends_the_user_is_kept_whole(tmp_path: Path) -> None:
    body = "The plan is ready for review. " + "It covers the settings page, the toggle and its test. " * 8
    steps = [
        {
            "step_index": 0,
            "source": "USER_EXPLICIT",
            "type": "USER_INPUT",
            "content": "<USER_REQUEST>\nplan it\n</USER_REQUEST>",
        },
        {
            "step_index": 1,
            "source": "MODEL",
            "type": "PLANNER_RESPONSE",
            "content": "",
            "tool_calls": [
                {"name": "notify_user", "args": {"Message": json.dumps(body), "BlockedOnUser": "true"}}
            ],
        },
        {
            "step_index": 2,
            "source": "MODEL",
            "type": "NOTIFY_USER",
            "status": "DONE",
            "content": "User notified.",
        },
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    [s], _ = parse(path)
    assert body.strip() in s.turns[0].text and "[tool: notify_user]" in s.turns[0].text
