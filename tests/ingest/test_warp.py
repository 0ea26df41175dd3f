"""Warp reader: Agent Mode prompts from ai_queries, agent-run command blocks, a locally kept reply."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from helpers.sqlite_agents import add_warp_query, warp_db

from refind_desktop.ingest import warp
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover

STATE = Path(".local") / "state" / "warp-terminal"
CONV = "e05f25f4-4e57-411a-b126-f4c9ebca6781"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(warp.parse(path, ctx)), ctx


def build(path: Path, wal: bool = False):
    db = warp_db(path, wal=wal)
    add_warp_query(db, CONV, "x1", "2026-01-12 18:12:11.120", "why does the greenhouse fan never turn on?")
    add_warp_query(
        db, CONV, "x2", "2026-01-12 18:12:40.000", None
    )  # a follow-up exchange: the actions' results
    results = [
        {
            "ActionResult": {
                "id": "toolu_01",
                "result": {
                    "RequestCommandOutput": {
                        "result": {
                            "Success": {
                                "command": "cat fan.conf",
                                "output": "threshold_c = 45\n",
                                "exit_code": 0,
                            }
                        }
                    }
                },
            }
        },
        {
            "ActionResult": {
                "id": "toolu_02",
                "result": {
                    "GetFiles": {
                        "result": {"Success": {"files": [{"file_name": "fan.py", "content": "import gpio"}]}}
                    }
                },
            }
        },
        {"ActionResult": {"id": "toolu_03", "result": {"SearchCodebase": {"result": {"Success": {}}}}}},
    ]
    db.execute("UPDATE ai_queries SET input = ? WHERE exchange_id = 'x2'", (json.dumps(results),))
    db.execute(
        "INSERT INTO blocks (stylized_command, stylized_output, pwd, exit_code, start_ts, ai_metadata) VALUES (?,?,?,?,?,?)",
        (
            b"\x1b[1mcat fan.conf\x1b[0m",
            b"threshold_c = 45\n",
            "/home/u/proj",
            0,
            "2026-01-12 18:12:30.000",
            json.dumps(
                {"action_id": "toolu_01", "conversation_id": CONV, "has_agent_written_to_block": False}
            ),
        ),
    )
    db.execute(
        "INSERT INTO blocks (stylized_command, start_ts, ai_metadata) VALUES (x'6c73', '2026-01-12 18:00:00', NULL)"
    )
    add_warp_query(db, CONV, "x3", "2026-01-12 18:20:00.000", "set it to 28 degrees")
    db.execute(
        "UPDATE ai_queries SET output_status = ? WHERE exchange_id = 'x3'",
        (json.dumps({"Completed": {"output": "Changed threshold_c to 28."}}),),
    )
    add_warp_query(db, "c2", "y1", "2026-01-13 07:00:00", "what does `ip -br a` print")
    db.execute(
        "INSERT INTO agent_conversations (conversation_id, conversation_data) VALUES (?, ?)",
        (CONV, '{"conversation_usage_metadata": {}}'),
    )
    db.commit()
    return db


def test_prompts_commands_and_local_replies(tmp_path: Path) -> None:
    path = tmp_path / STATE / "warp.sqlite"
    build(path).close()
    (fan, ip), ctx = parse(path)
    assert fan.session_id == f"warp:{CONV}" and fan.title == "why does the greenhouse fan never turn on?"
    first, second = fan.turns
    assert first.text == (
        "User: why does the greenhouse fan never turn on?\n\n"
        "Assistant: [tool: run_command] cat fan.conf\n[tool output]\nthreshold_c = 45\n[end tool output]\n\n"
        "[tool: read_files] fan.py\n\n[tool: search_codebase]"
    )  # the command once: from the exchange that carried its result, not again from its terminal block
    assert first.timestamp == datetime(
        2026, 1, 12, 18, 12, 11, tzinfo=UTC
    )  # the prompt's CurrentTime (-08:00)
    assert second.text == "User: set it to 28 degrees\n\nAssistant: Changed threshold_c to 28."
    assert "/home/u/proj" not in first.text and "Completed" not in first.text  # prompt context, status words
    assert [t.text for t in ip.turns] == ["User: what does `ip -br a` print"]
    assert ctx.warnings == []


def test_detected_by_name_and_log_files_beside_it_ignored(tmp_path: Path) -> None:
    path = tmp_path / STATE / "warp.sqlite"
    build(path, wal=True).close()
    (path.parent / "warp.log").write_text("INFO starting\n")
    assert detect_file(path) == "warp"
    sources, skipped = discover([tmp_path / STATE])
    assert [(s.path.name, s.format) for s in sources] == [("warp.sqlite", "warp")]
    assert skipped == []
