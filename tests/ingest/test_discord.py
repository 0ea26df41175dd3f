"""DiscordChatExporter JSON parser: one chat per channel, kept message types, attachments, embeds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.chats import whole_chat

from refind_desktop.errors import ParseError
from refind_desktop.ingest import discord
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "discord"
GARDEN = "Plant Swap - garden-chat [900000000000000002].json"
DM_PART = "Direct Messages - bochen [900000000000000010] [part 2].json"


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(discord.parse(path, ctx or ParseContext()))


def test_channel_export() -> None:
    ctx = ParseContext()
    s = whole_chat(parse(FIXTURES / GARDEN, ctx))
    assert s.session_id == "discord:900000000000000002"
    assert s.title == "Plant Swap / garden-chat"
    assert s.started_at == datetime(2024, 3, 12, 14, 22, 41, 123000, tzinfo=UTC)
    assert s.participants == ["Ann", "Bo"]
    assert [(t.turn_id, t.speaker, t.text) for t in s.turns] == [
        ("1216000000000000001", "Ann", "Anyone want fig cuttings?"),
        ("1216000000000000002", "Bo", "Me please!\n[attachment fig.jpg]"),
    ]
    assert s.turns[1].timestamp == datetime(2024, 3, 12, 14, 23, 10, 456000, tzinfo=UTC)
    assert ctx.warnings == []


def test_partition_dm_system_messages_and_embeds() -> None:
    ctx = ParseContext()
    s = whole_chat(parse(FIXTURES / DM_PART, ctx))
    assert s.session_id == "discord:900000000000000010"  # a part adds conversations to its channel's chat
    assert s.title == "Direct Messages / bochen"
    # join and pin notices dropped; a bot post without content keeps its embed title + description;
    # a link preview embed is not added to a message that has content; no nickname -> name
    assert [(t.speaker, t.text) for t in s.turns] == [
        ("PlantBot", "Watering reminder\nWater the figs today."),
        ("cy", "Look: https://example.org/figs\n[sticker Happy Fig]"),
    ]
    assert s.turns[0].timestamp == datetime(2024, 3, 13, 8, 15, tzinfo=UTC)  # +02:00 offset converted
    assert ctx.warnings == [f"{FIXTURES / DM_PART}: message #5 is not an object and was skipped"]


def test_truncated_export(tmp_path: Path) -> None:
    data = (FIXTURES / GARDEN).read_bytes()
    torn = tmp_path / "chan [1].json"
    torn.write_bytes(data[: data.index(b'"type": "Reply"')])
    ctx = ParseContext()
    (s,) = parse(torn, ctx)
    assert [t.text for t in s.turns] == ["Anyone want fig cuttings?"]
    assert "reading stopped after 1 message(s)" in ctx.warnings[0]
    torn.write_bytes(data[: data.index(b'"messages"') + 20])
    with pytest.raises(ParseError, match="no message could be read"):
        parse(torn)


def test_not_a_dce_export(tmp_path: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text('{"messages": []}', encoding="utf-8")
    with pytest.raises(ParseError, match="no 'channel' object"):
        parse(other)
    other.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ParseError, match="not readable as DiscordChatExporter JSON"):
        parse(other)
