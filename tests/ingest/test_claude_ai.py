"""Claude.ai export parser: active branch, content blocks, attachments, wrappers, zip and truncation."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import claude_ai
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_ai"
TOMATO = "claude:c0ffee00-1111-4222-8333-444455556666"


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(claude_ai.parse(path, ctx or ParseContext()))


def test_fixture_active_branch() -> None:
    ctx = ParseContext()
    (s,) = parse(FIXTURES / "conversations.json", ctx)
    assert s.session_id == TOMATO
    assert s.title == "Balcony tomato plan"
    assert s.started_at == datetime(2025, 4, 2, 18, 20, 11, 402913, tzinfo=UTC)
    assert s.participants == ["user", "assistant"]
    assert [t.turn_id for t in s.turns] == [
        "m0000001-0000-4000-8000-000000000001",
        "m0000005-0000-4000-8000-000000000005",
    ]
    # thinking dropped; the attachment's extracted text is searchable inside its marked block
    # (issue 12, defect 3); the binary upload is a marker only
    assert s.turns[0].text == (
        "User: I have a south-facing balcony. Which tomato varieties fit in 20 L pots?\n\n"
        "[attachment balcony_notes.txt]\nBalcony: 4 m2, full sun from 11:00, windy in the afternoon.\n"
        "[/attachment]\n\n[file balcony.jpg]\n\n"
        "Assistant: Go for determinate or dwarf types: 'Tiny Tim', 'Balconi Red' and 'Roma' all cope "
        "with 20 L. Stake them - your notes say it gets windy."
    )
    # the "How often should I water?" branch is off-path; tool_use/tool_result dropped
    assert s.turns[1].text == (
        "User: How often should I water if I use self-watering pots?\n\n"
        "Assistant: With a reservoir you refill every 2-3 days in high summer; check it daily during heatwaves."
    )
    assert s.turns[0].timestamp == datetime(2025, 4, 2, 18, 20, 12, 1000, tzinfo=UTC)
    assert s.turns[1].timestamp == datetime(2025, 4, 2, 18, 30, 40, tzinfo=UTC)
    assert ctx.warnings == []


def test_edge_cases() -> None:
    ctx = ParseContext()
    legacy, api = parse(FIXTURES / "edge_cases.json", ctx)
    # legacy flat export: array order, `text` used, title from the first user line
    assert legacy.session_id == "claude:e1000000-0000-4000-8000-000000000001"
    assert legacy.title == "How do I keep basil alive indoors?"
    assert [t.text for t in legacy.turns] == [
        "User: How do I keep basil alive indoors?\nIt keeps wilting.\n\n"
        "Assistant: Give it 6 hours of light and let the soil dry slightly.",
        "User: And fertiliser?\n\nAssistant: Half-strength liquid feed every two weeks.",
    ]
    # created_at null -> inherits the previous turn's time
    assert legacy.turns[1].timestamp == datetime(2024, 2, 1, 9, 0, 1, tzinfo=UTC)
    # API style: empty flat text, content blocks joined, tool-only message dropped, title from summary
    assert api.title == "Pruning plan"
    assert [t.text for t in api.turns] == [
        "User: When do I prune my fig?\n\n[attachment txt]\nSECRET PASTED LOG\n[/attachment]\n\n"
        "Assistant: Prune in late winter,\n\nbefore buds break."
    ]
    assert len(ctx.warnings) == 2
    assert "conversation #4 is malformed" in ctx.warnings[0]
    assert "conversation #5 is malformed" in ctx.warnings[1]


def test_single_object_uses_current_leaf() -> None:
    (s,) = parse(FIXTURES / "single_object.json")
    assert s.session_id == "claude:e2000000-0000-4000-8000-000000000001"
    # current_leaf_message_uuid wins over the newer sibling
    assert s.turns[0].text == "User: Pick a compost bin.\n\nAssistant: A three-bay wooden bin."


def test_conversations_wrapper() -> None:
    (s,) = parse(FIXTURES / "wrapper.json")
    assert s.session_id == "claude:e3000000-0000-4000-8000-000000000001"
    assert s.turns[0].text == "User: Is mulch worth it?\n\nAssistant: Yes: it keeps moisture in."


def test_zip_export(tmp_path: Path) -> None:
    archive = tmp_path / "data-2025-04-03-10-00-00-batch-0000.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(FIXTURES / "conversations.json", "conversations.json")
        zf.writestr("users.json", '[{"uuid": "u1", "full_name": "Dana"}]')
        zf.writestr("projects.json", "[]")
    assert [s.session_id for s in parse(archive)] == [TOMATO]


def test_truncated_file(tmp_path: Path) -> None:
    good = (FIXTURES / "wrapper.json").read_bytes()
    ctx = ParseContext()
    torn = tmp_path / "conversations.json"
    both = b"[" + (FIXTURES / "conversations.json").read_bytes().strip()[1:-1] + b","
    torn.write_bytes(both + good[:200])
    assert [s.session_id for s in parse(torn, ctx)] == [TOMATO]
    assert "reading stopped after 1 conversation(s)" in ctx.warnings[0]
    torn.write_bytes(good[:200])
    with pytest.raises(ParseError):
        parse(torn)
