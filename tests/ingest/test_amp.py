"""Amp reader: thread files in the shared data folder and the older editor-extension folder; detection,
the folder walk and the real pipeline."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import amp
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.walker import discover
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = FIXTURES / "amp"
THREAD = ROOT / ".local/share/amp/threads/T-0b6f6a52-3c1d-4e8f-9a7b-2c3d4e5f6a7b.json"
EDITOR = (
    ROOT
    / ".config/Code/User/globalStorage/sourcegraph.amp/threads3/T-6e5d4c3b-2a19-4807-b6f5-e4d3c2b1a098.json"
)
BAD = ROOT / "malformed/.local/share/amp/threads/T-11111111-2222-4333-8444-555555555555.json"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(amp.parse(path, ctx)), ctx


def test_thread_keeps_prompts_replies_tool_output_and_times() -> None:
    [s], ctx = parse(THREAD)
    assert ctx.warnings == []
    assert s.session_id == "amp:T-0b6f6a52-3c1d-4e8f-9a7b-2c3d4e5f6a7b"
    assert s.title == "Rain gauge calibration"
    assert s.started_at == datetime(2025, 12, 1, 10, 0, tzinfo=UTC)
    first, second = s.turns
    assert first.text.startswith(
        "User: the rain gauge reports double the real rainfall, why?\n\nAssistant: Let me check the tip counter."
    )
    assert "[tool: Read] path=/home/dana/src/greenhouse/rain.py" in first.text
    assert (
        "[tool output]\nTIP_MM = 0.2\ncount += 2  # both edges of the reed switch\n[end tool output]"
        in first.text
    )
    assert first.text.endswith("count only the falling edge.")
    assert "Probably the tip count" not in first.text  # thinking
    assert "Rain gauge fix discussed" not in first.text + second.text  # info summary
    assert first.timestamp == datetime(2025, 12, 1, 10, 0, 1, tzinfo=UTC)
    assert (
        second.text
        == "User: ok, fix it\n\nAssistant: Done: the counter now listens to the falling edge only."
    )
    assert second.timestamp == datetime(2025, 12, 1, 10, 1, 40, tzinfo=UTC)


def test_editor_extension_thread_without_title() -> None:
    [s], _ = parse(EDITOR)
    assert s.session_id == "amp:T-6e5d4c3b-2a19-4807-b6f5-e4d3c2b1a098"
    assert s.title == "rename the vent motor module"
    assert detect_file(EDITOR) == "amp"


def test_detection_by_path_and_content(tmp_path: Path) -> None:
    assert detect_file(THREAD) == "amp"
    copied = tmp_path / "thread.json"
    copied.write_bytes(THREAD.read_bytes())
    assert detect_file(copied) == "amp"


def test_folder_walk_reads_threads_and_skips_the_rest_silently() -> None:
    sources, skipped = discover([ROOT])
    found = {(s.path.relative_to(ROOT).as_posix(), s.format) for s in sources}
    assert found == {
        (THREAD.relative_to(ROOT).as_posix(), "amp"),
        (EDITOR.relative_to(ROOT).as_posix(), "amp"),
        (BAD.relative_to(ROOT).as_posix(), "amp"),
    }
    assert skipped == []  # history.jsonl and file-changes are not chats


def test_half_written_thread_is_a_clear_error_that_does_not_quote_it() -> None:
    with pytest.raises(ParseError, match="not valid JSON.*is this really an Amp thread") as e:
        parse(BAD)
    assert '"messages"' not in str(e.value)


def test_unknown_blocks_roles_and_fields_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "amp/threads/T-22222222-3333-4444-8555-666666666666.json"
    path.parent.mkdir(parents=True)
    thread = {
        "v": 999,
        "id": "T-22222222-3333-4444-8555-666666666666",
        "created": "not a time",
        "messages": [
            "junk",
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {}},
                    {"type": "text", "text": "graft the apple tree"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "hologram"}, {"type": "text", "text": "Use a whip-and-tongue graft."}],
            },
            {"role": "narrator", "content": "ignored"},
        ],
    }
    path.write_text(json.dumps(thread), encoding="utf-8")
    [s], ctx = parse(path)
    assert [t.text for t in s.turns] == [
        "User: graft the apple tree\n\nAssistant: Use a whip-and-tongue graft."
    ]
    assert s.started_at is None
    assert any("message 0 is not an object" in w for w in ctx.warnings)


def test_fixture_tree_through_the_pipeline_and_a_rewritten_thread(tmp_path: Path) -> None:
    svc = build_services()
    try:
        root = shutil.copytree(ROOT, tmp_path / "amp")
        report = svc.ingestor.ingest([root])
        totals = svc.catalog.totals()["formats"]["amp"]
        assert (totals["sessions"], totals["turns"], len(report.skipped)) == (2, 3, 1)
        [block, *_] = svc.engine.search("reed switch")
        assert block.session_id == "amp:T-0b6f6a52-3c1d-4e8f-9a7b-2c3d4e5f6a7b"
        # Amp rewrites the whole file as the thread grows: the new exchange is added, nothing lost
        path = root / THREAD.relative_to(ROOT)
        thread = json.loads(path.read_text(encoding="utf-8"))
        thread["messages"] += [
            {
                "role": "user",
                "content": [{"type": "text", "text": "and the anemometer?"}],
                "meta": {"sentAt": 1764583400000},
            },
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "The anemometer counts one edge already."}],
            },
        ]
        path.write_text(json.dumps(thread, indent=2), encoding="utf-8")
        again = svc.ingestor.ingest([root])
        assert (again.added_turns, again.removed_turns) == (1, 0)
        assert svc.engine.search("anemometer")
    finally:
        svc.close()
