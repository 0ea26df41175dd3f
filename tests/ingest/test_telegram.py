"""Telegram Desktop export parser: single chat and full account, text flattening, media, times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from helpers.chats import chats, whole_chat

from refind_desktop.errors import ParseError
from refind_desktop.ingest import telegram
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "telegram"
PLUS2 = timezone(timedelta(hours=2))


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(telegram.parse(path, ctx or ParseContext()))


def test_single_chat() -> None:
    ctx = ParseContext()
    s = whole_chat(parse(FIXTURES / "result.json", ctx))
    assert s.session_id == "telegram:1938475610"
    assert s.title == "Plant Swap"
    # the first conversation starts at the first message that is a turn (not the service one)
    assert s.started_at == datetime(2024, 3, 12, 14, 22, 41, tzinfo=UTC)
    assert s.participants == ["Ann Lee", "Bo Chen"]
    assert [(t.turn_id, t.speaker, t.text) for t in s.turns] == [
        ("2", "Ann Lee", "Anyone want fig cuttings? Details: https://example.org/figs"),
        ("3", "Bo Chen", "Me please! Two if you can spare them."),
        ("4", "Ann Lee", "Rooted ones\n[photo]"),
    ]
    assert s.turns[0].timestamp == datetime(2024, 3, 12, 14, 22, 41, tzinfo=UTC)
    assert ctx.warnings == []


def test_full_account_export() -> None:
    ctx = ParseContext(tz=PLUS2)
    bo, saved, left = chats(parse(FIXTURES / "full_account" / "result.json", ctx))
    assert bo.session_id == "telegram:222222222"
    assert bo.title == "Bo Chen"
    # no date_unixtime: naive `date` read in ctx.tz (UTC+2)
    assert bo.started_at == datetime(2024, 4, 1, 7, 0, 0, tzinfo=UTC)
    assert [(t.turn_id, t.speaker, t.text) for t in bo.turns] == [
        ("10", "Bo Chen", "See this guide about grafting"),
        ("11", "Ann Lee", "[sticker 👍]"),
        ("12", "Bo Chen", "[voice message]"),
        ("13", "Ann Lee", "my notes\n[file grafting-notes.pdf]"),
    ]  # 14 (empty) and 15 (service: phone call) are dropped
    assert bo.turns[3].timestamp == datetime(2024, 4, 1, 7, 3, 0, tzinfo=UTC)
    assert saved.session_id == "telegram:111111111"
    assert saved.title == "Saved Messages"
    assert [t.text for t in saved.turns] == ["Buy rootstock in May"]
    # the group with only a service message is skipped; left chats come last
    assert left.session_id == "telegram:444444444"
    assert [(t.speaker, t.text) for t in left.turns] == [
        ("Deleted Account", "Welcome, orchard people!"),
        ("Deleted Account", "anonymous admin post"),
    ]
    assert left.started_at == datetime(2019, 5, 1, 18, 0, 0, tzinfo=UTC)
    assert ctx.warnings == []


def test_truncated_full_export_keeps_read_chats(tmp_path: Path) -> None:
    data = (FIXTURES / "full_account" / "result.json").read_bytes()
    torn = tmp_path / "result.json"
    torn.write_bytes(data[: data.index(b'"Empty group"')])
    ctx = ParseContext()
    assert [s.session_id for s in chats(parse(torn, ctx))] == ["telegram:222222222", "telegram:111111111"]
    assert "reading stopped after 2 chat(s)" in ctx.warnings[0]


def test_truncated_single_chat_raises(tmp_path: Path) -> None:
    data = (FIXTURES / "result.json").read_bytes()
    torn = tmp_path / "result.json"
    torn.write_bytes(data[:-30])
    with pytest.raises(ParseError, match="no chat could be read"):
        parse(torn)


def test_not_a_telegram_export(tmp_path: Path) -> None:
    other = tmp_path / "result.json"
    other.write_text('{"score": 3, "items": []}', encoding="utf-8")
    with pytest.raises(ParseError, match="not a Telegram export"):
        parse(other)
