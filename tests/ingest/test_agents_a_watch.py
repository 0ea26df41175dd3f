"""Watching group-A agents while they write: appended lines, new event files and folders, torn writes."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from refind_desktop.ingest.watcher import FolderWatcher
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LIMIT = 2.0  # seconds from the write to a search hit


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    for fmt in ("copilot_cli", "pi", "openhands", "kimi_cli", "antigravity"):
        shutil.copytree(FIXTURES / fmt, root, dirs_exist_ok=True)
    return root


def found_within(svc, query: str, timeout: float = 10.0, fresh: bool = True) -> float:
    """Seconds until `query` (a word no fixture holds) has a hit; a failed test after `timeout`."""
    assert not (fresh and svc.engine.search(query)), f"{query!r} is found before it is written"
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if svc.engine.search(query):
            return time.monotonic() - t0
        time.sleep(0.05)
    pytest.fail(f"{query!r} not searchable after {timeout} s")


def append(path: Path, *rows: dict, raw: str = "") -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in rows) + raw)


def turns(svc, fmt: str) -> int:
    return svc.catalog.totals()["formats"][fmt]["turns"]


def test_each_agent_written_while_watching_is_searchable_within_2_s_and_never_doubled(
    svc, home: Path
) -> None:
    w = FolderWatcher(svc, home)
    w.start()
    try:
        assert w.wait_idle(60)
        before = {f: turns(svc, f) for f in ("copilot_cli", "pi", "openhands", "kimi_cli", "antigravity")}
        took = {}

        copilot = home / ".copilot/session-state/6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f/events.jsonl"
        append(
            copilot,
            {
                "type": "user.message",
                "data": {"content": "does the rainbarrel overflow alarm work"},
                "id": "w1",
                "timestamp": "2026-02-11T09:00:00Z",
                "parentId": None,
            },
        )
        took["copilot_cli"] = found_within(svc, "rainbarrel")

        pi = next((home / ".pi/agent/sessions/--home-dev-orchard--").glob("2026-03-02*.jsonl"))
        append(
            pi,
            {
                "type": "message",
                "id": "w2",
                "parentId": "b3000003",
                "timestamp": "2026-03-02T10:00:00Z",
                "message": {"role": "user", "content": "schedule the beehive inspection reminder"},
            },
        )
        took["pi"] = found_within(svc, "beehive")

        events = home / ".openhands/conversations/4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99/events"
        (events / "event-00010-aa00aa00-0000-4000-8000-000000000010.json").write_text(
            json.dumps(
                {
                    "id": "aa00aa00",
                    "timestamp": "2026-05-06T10:05:00",
                    "source": "user",
                    "kind": "MessageEvent",
                    "llm_message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "add a frost warning to the compost sensor"}],
                    },
                }
            )
        )
        took["openhands"] = found_within(svc, "frost")

        kimi = (
            home
            / ".kimi/sessions/3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c/8e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b/context.jsonl"
        )
        append(kimi, {"role": "user", "content": "which sensor guards the seedling tray"})
        took["kimi_cli"] = found_within(svc, "seedling")

        ag = (
            home
            / ".gemini/antigravity-cli/brain/b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e/.system_generated/logs/transcript_full.jsonl"
        )
        append(
            ag,
            {
                "step_index": 13,
                "source": "USER_EXPLICIT",
                "type": "USER_INPUT",
                "status": "DONE",
                "created_at": "2026-04-20T15:00:00Z",
                "content": "<USER_REQUEST>\nadd a sundial widget\n</USER_REQUEST>",
            },
        )
        took["antigravity"] = found_within(svc, "sundial")

        assert w.wait_idle(30)
        print("seconds to searchable:", {k: round(v, 2) for k, v in took.items()})
        assert all(t < LIMIT for t in took.values()), took
        after = {f: turns(svc, f) for f in before}
        assert after == {f: n + 1 for f, n in before.items()}, (
            before,
            after,
        )  # one new turn each, none doubled
    finally:
        w.stop()


def test_half_written_line_and_event_file_wait_for_their_end(svc, home: Path) -> None:
    w = FolderWatcher(svc, home)
    w.start()
    try:
        assert w.wait_idle(60)
        pi = next((home / ".pi/agent/sessions/--home-dev-orchard--").glob("2026-03-02*.jsonl"))
        line = json.dumps(
            {
                "type": "message",
                "id": "w3",
                "parentId": "b3000003",
                "timestamp": "2026-03-02T11:00:00Z",
                "message": {"role": "user", "content": "order more greenhouse shade cloth"},
            }
        )
        append(pi, raw=line[:40])
        events = home / ".openhands/conversations/4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99/events"
        torn = events / "event-00011-bb00bb00-0000-4000-8000-000000000011.json"
        body = json.dumps(
            {
                "id": "bb00bb00",
                "timestamp": "2026-05-06T10:06:00",
                "source": "user",
                "kind": "MessageEvent",
                "llm_message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "calibrate the worm farm probe"}],
                },
            }
        )
        torn.write_text(body[:50])
        time.sleep(1.5)
        assert w.wait_idle(30)
        assert not svc.engine.search("shade") and not svc.engine.search("worm")
        append(pi, raw=line[40:] + "\n")
        torn.write_text(body)
        assert found_within(svc, "shade", fresh=False) < LIMIT
        assert found_within(svc, "worm", fresh=False) < LIMIT
    finally:
        w.stop()


def test_a_new_conversation_folder_is_found_while_watching(svc, home: Path) -> None:
    w = FolderWatcher(svc, home)
    w.start()
    try:
        assert w.wait_idle(60)
        conv = home / ".openhands/conversations/0123456789abcdef0123456789abcdef"
        (conv / "events").mkdir(parents=True)
        (conv / "base_state.json").write_text(json.dumps({"id": "0123", "agent": {"kind": "Agent"}}))
        (conv / "events" / "event-00000-cc00cc00-0000-4000-8000-000000000000.json").write_text(
            json.dumps(
                {
                    "id": "cc00cc00",
                    "timestamp": "2026-05-07T08:00:00",
                    "source": "user",
                    "kind": "MessageEvent",
                    "llm_message": {
                        "role": "user",
                        "content": [{"type": "text", "text": "plan the mushroom log watering"}],
                    },
                }
            )
        )
        assert found_within(svc, "mushroom") < LIMIT
        app = home / ".openhands/v1_conversations/9f8e7d6c5b4a39281706f5e4d3c2b1a0"
        reply = {"role": "user", "content": [{"type": "text", "text": "and the lettuce cold frame?"}]}
        (app / "dd00dd00-0000-4000-8000-000000000000.json").write_text(
            json.dumps(
                {
                    "id": "dd00dd00",
                    "timestamp": "2026-06-01T08:00:00",
                    "source": "user",
                    "kind": "MessageEvent",
                    "llm_message": reply,
                }
            )
        )
        assert found_within(svc, "lettuce") < LIMIT  # the app server's layout: events beside each other
        kimi = home / ".kimi/sessions/3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c/99999999-9999-4999-8999-999999999999"
        kimi.mkdir()
        (kimi / "wire.jsonl").write_text('{"type": "metadata", "protocol_version": "1.2"}\n')
        append(
            kimi / "context.jsonl",
            {"role": "_checkpoint", "id": 0},
            {"role": "user", "content": "prune the quince tree when"},
        )
        assert found_within(svc, "quince") < LIMIT
        code = home / ".kimi-code/sessions/wd_orchard_5e6f7a8b9c0d/session_new/agents/main/wire.jsonl"
        code.parent.mkdir(parents=True)
        prompt = {
            "role": "user",
            "content": [{"type": "text", "text": "repot the chili plants"}],
            "origin": {"kind": "user"},
        }
        append(
            code,
            {"type": "metadata", "protocol_version": "1.4"},
            {"type": "context.append_message", "message": prompt},
        )
        assert found_within(svc, "chili") < LIMIT  # a Kimi Code session started while watching
        assert w.wait_idle(30)
        sessions = {r.sid for r in svc.catalog.iter_sessions()}
        assert {
            "openhands:0123456789abcdef0123456789abcdef",
            "kimi-cli:99999999-9999-4999-8999-999999999999",
        } <= sessions
    finally:
        w.stop()
