"""Open WebUI export parser: currentId branch, hidden reasoning blocks, fallbacks, bare chat objects."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import openwebui
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openwebui"


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(openwebui.parse(path, ctx or ParseContext()))


def test_fixture_current_branch() -> None:
    ctx = ParseContext()
    (s,) = parse(FIXTURES / "chat-export-1720000000000.json", ctx)
    assert s.session_id == "openwebui:4f7d2c1a-0000-4000-8000-00000000e001"
    assert s.title == "Repotting a fig"
    assert s.started_at == datetime(2024, 7, 3, 9, 44, 59, tzinfo=UTC)
    assert s.participants == ["user", "assistant"]
    (t,) = s.turns
    assert t.turn_id == "m-u1"
    assert t.text == (
        "User: When should I repot a fiddle-leaf fig?\n\n"
        "Assistant: Early spring, when roots circle the pot. Go up only 5 cm in diameter."
    )
    assert "older regenerated" not in t.text
    assert t.timestamp == datetime(2024, 7, 3, 9, 45, 0, tzinfo=UTC)
    assert ctx.warnings == []


def test_edge_cases() -> None:
    ctx = ParseContext()
    blue, stale, nopointer = parse(FIXTURES / "chat-export-1721300000000.json", ctx)
    assert blue.session_id == "openwebui:owu-0001"
    # system prompt dropped; reasoning/tool-call <details> and <think> stripped; file as a marker
    assert [t.text for t in blue.turns] == [
        "User: What soil do blueberries need?\n[file soil-test.pdf]\n\nAssistant: Blueberries want pH 4.5 to 5.5.",
        "User: What should I buy?\n\nAssistant: Use ericaceous compost.",
    ]
    assert blue.turns[1].timestamp == datetime(2024, 7, 14, 23, 34, 20, tzinfo=UTC)
    assert [t.text for t in stale.turns] == ["User: Linear question\n\nAssistant: Linear answer"]
    assert [t.text for t in nopointer.turns] == ["User: Which mower?\n\nAssistant: New reply"]
    assert len(ctx.warnings) == 3
    assert "chat #2 is malformed" in ctx.warnings[0]
    assert "using chat.messages" in ctx.warnings[1]
    assert "using the latest leaf" in ctx.warnings[2]


def test_bare_chat_object() -> None:
    (s,) = parse(FIXTURES / "bare_chat.json")
    assert s.session_id == "openwebui:owu-bare-1"
    assert s.title == "Bare chat"
    # no created_at: the chat's millisecond timestamp
    assert s.started_at == datetime(2024, 7, 26, 13, 20, 0, 123000, tzinfo=UTC)
    assert s.turns[0].text == "User: Is a bare chat object accepted?\n\nAssistant: Yes."


def test_truncated_export(tmp_path: Path) -> None:
    data = (FIXTURES / "chat-export-1721300000000.json").read_bytes()
    torn = tmp_path / "chat-export-1.json"
    torn.write_bytes(data[: data.index(b'"owu-0002"')])
    ctx = ParseContext()
    assert [s.session_id for s in parse(torn, ctx)] == ["openwebui:owu-0001"]
    assert "reading stopped after 2 chat(s)" in ctx.warnings[-1]
    torn.write_bytes(data[:300])
    with pytest.raises(ParseError, match="no chat could be read"):
        parse(torn)
