"""SillyTavern chat parser: header line, swipes, hidden messages, send_date forms, group chats."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.chats import whole_chat

from refind_desktop.errors import ParseError
from refind_desktop.ingest import sillytavern
from refind_desktop.ingest.base import ParseContext, stable_id
from refind_desktop.ingest.conversations import conversation_id

SERAPHINA = "Seraphina - 2025-09-26@15h04m33s123ms.jsonl"
VEX = "chats/Captain Vex/Captain Vex - 2023-7-1 @12h 34m 56s 789ms.jsonl"


def parse(path: Path) -> tuple[list, ParseContext]:
    ctx = ParseContext()
    return list(sillytavern.parse(path, ctx)), ctx


def test_current_format(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "sillytavern" / SERAPHINA)
    assert ctx.warnings == []
    s = whole_chat(sessions)
    sid = f"sillytavern:{stable_id('Seraphina', SERAPHINA)}"
    assert s.session_id == sid
    assert s.title == "Seraphina - 2025-09-26@15h04m33s123ms"
    conv = conversation_id(sid, s.started_at)
    assert s.started_at == datetime(2025, 9, 26, 7, 4, 12, 6000, tzinfo=UTC)
    assert s.participants == ["Seraphina", "Rowan"]
    assert [t.text for t in s.turns] == [
        'Seraphina: *She looks up from the herb garden.* "Welcome, traveler."',  # selected swipe only
        # the is_system note between them is dropped; persona names label the turn (issue 12, defect 10)
        'Rowan: What are you planting?\n\nSeraphina: "Moonmint. It only opens at night."',
    ]
    assert [t.turn_id for t in s.turns] == [f"{conv}:0", f"{conv}:1"]
    assert [t.speaker for t in s.turns] == ["assistant", "user+assistant"]
    assert s.turns[1].timestamp == datetime(2025, 9, 26, 7, 6, 2, 345000, tzinfo=UTC)


def test_older_header_date_forms_swipes_torn_tail(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "sillytavern" / VEX)
    s = whole_chat(sessions)
    assert s.session_id == f"sillytavern:{stable_id('Captain Vex', Path(VEX).name)}"
    assert s.started_at == datetime(2023, 7, 1, 12, 35, tzinfo=UTC)  # the first message's time
    assert [t.text for t in s.turns] == [
        "Captain Vex: Ahoy, landlubber!",
        "Mira: Where are we sailing?\n\nCaptain Vex: To the Isle of Fog.",  # no `mes`: swipes[swipe_id]
        "Mira: Why fog?\n\nCaptain Vex: Treasure hides there.",  # hidden is_system aside dropped
    ]
    assert [t.timestamp for t in s.turns] == [
        datetime(2023, 7, 1, 12, 35, tzinfo=UTC),  # "July 1, 2023 12:35pm"
        datetime(2023, 7, 1, 12, 36, 40, tzinfo=UTC),  # epoch milliseconds
        datetime(2023, 7, 1, 13, 5, tzinfo=UTC),  # "Jul 1, 2023 1:05 PM"
    ]
    assert "hidden thoughts" not in " ".join(t.text for t in s.turns)
    assert len(ctx.warnings) == 3
    assert "line 5 is not valid JSON" in ctx.warnings[0]
    assert "last line 9 is incomplete" in ctx.warnings[1]
    assert "line 8: unreadable send_date (a 17-character text)" in ctx.warnings[2]


def test_group_chat_is_multi_party(fixtures: Path) -> None:
    [s], ctx = parse(fixtures / "sillytavern" / "group chats" / "1727805600000.jsonl")
    assert ctx.warnings == []
    assert s.participants == ["Mira", "Captain Vex", "Seraphina"]
    assert [(t.speaker, t.text) for t in s.turns] == [
        ("Mira", "Hello both!"),
        ("Captain Vex", "Ahoy."),
        ("Seraphina", "Welcome, traveler."),
    ]


@pytest.mark.parametrize("name", ["empty.jsonl", "header_only.jsonl"])
def test_files_without_messages_yield_nothing(fixtures: Path, name: str) -> None:
    sessions, ctx = parse(fixtures / "sillytavern" / name)
    assert sessions == [] and ctx.warnings == []


def test_other_jsonl_raises(fixtures: Path) -> None:
    with pytest.raises(ParseError, match="SillyTavern"):
        parse(fixtures / "sillytavern" / "not_st.jsonl")


def test_parse_send_date() -> None:
    f = sillytavern.parse_send_date
    assert f("June 10, 2026 2:30pm", UTC) == datetime(2026, 6, 10, 14, 30, tzinfo=UTC)
    assert f("June 10, 2026 12:05am", UTC) == datetime(2026, 6, 10, 0, 5, tzinfo=UTC)
    assert f(1785232801, UTC) == datetime.fromtimestamp(1785232801, UTC)
    assert f("2025-09-26@15h04m33s123ms", UTC) == datetime(2025, 9, 26, 15, 4, 33, 123000, tzinfo=UTC)
    assert f("Foo 10, 2026 2:30pm", UTC) is None
    assert f(None, UTC) is None
