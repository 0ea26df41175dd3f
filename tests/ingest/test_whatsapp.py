"""WhatsApp .txt parser: Android/iOS line grammar, date-order inference, system events, ids, zones."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from helpers.chats import whole_chat

from refind_desktop.errors import ParseError
from refind_desktop.ingest.base import ParseContext, stable_id
from refind_desktop.ingest.whatsapp import parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "whatsapp"


def _one(path: Path, ctx: ParseContext | None = None):
    """The whole chat of one export (its conversations put back together)."""
    return whole_chat(list(parse(path, ctx or ParseContext())))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_android_export() -> None:
    s = _one(FIX / "WhatsApp Chat with Bo Chen.txt")
    sid = "whatsapp:" + stable_id(
        "whatsapp chat with bo chen.txt",
        "12/03/2024, 14:22 - Messages and calls are "
        "end-to-end encrypted. No one outside of this chat, not even WhatsApp, can read "
        "or listen to them. Tap to learn more.",
    )
    assert s.session_id == sid
    assert s.title == "Bo Chen"
    assert s.participants == ["Ann Lee", "Bo Chen"]
    assert s.started_at == utc(2024, 3, 12, 14, 22)
    assert [(t.speaker, t.text) for t in s.turns] == [
        ("Ann Lee", "Did you repot the fig?"),
        ("Bo Chen", "Yes! Bigger pot, fresh soil.\nIt already looks happier."),
    ]  # encryption notice, "This message was deleted" and caption-less media lines are dropped
    assert [t.timestamp for t in s.turns] == [utc(2024, 3, 12, 14, 22), utc(2024, 3, 12, 14, 25)]
    conv = f"{sid}:20240312T142200Z"  # one conversation, named after its first message's time
    assert [t.turn_id for t in s.turns] == [f"{conv}:{i}" for i in range(2)]
    assert [t.index for t in s.turns] == [0, 1]


def test_ios_export_month_first_from_attachment_name() -> None:
    s = _one(FIX / "_chat.txt")
    assert s.title == "Plant Swap"  # iOS puts the chat name on the encryption notice
    assert s.participants == ["Ann Lee", "Bo Chen"]
    assert [(t.speaker, t.text, t.timestamp) for t in s.turns] == [
        ("Ann Lee", "Anyone want fig cuttings?", utc(2024, 3, 12, 14, 22, 41)),
        ("Bo Chen", "Me please!\nTwo if you can spare them.", utc(2024, 3, 12, 14, 23, 10)),
    ]  # the attachment line and the "image omitted" placeholder are not messages


def test_ios_group_events_phone_authors_and_12h_clock() -> None:
    ctx = ParseContext()
    s = _one(FIX / "WhatsApp Chat - Book Club.txt", ctx)
    phone = "+1 555\u2011010\u20119999"
    assert s.title == "Book Club"
    assert s.participants == ["Kai", phone]
    assert (
        [(t.speaker, t.text, t.timestamp) for t in s.turns]
        == [
            ("Kai", "Next book: Piranesi?", utc(2024, 1, 5, 12, 15, 42)),
            (phone, "Yes!!\n1/6/24 was a holiday, so let's meet later", utc(2024, 1, 5, 12, 16, 3)),
        ]
    )  # "sticker omitted", group events (attributed to the group), the missed call and the deleted message are dropped
    assert ctx.warnings == []


@pytest.mark.parametrize(
    "name,expected",
    [
        (
            "dots.txt",
            [
                ("Mia", "Hallo!", utc(2018, 6, 13, 21, 25, 15)),
                ("Jon", "Guten Morgen", utc(2018, 6, 14, 7, 2)),
            ],
        ),
        (
            "finnish.txt",
            [("Aino", "Moi", utc(2018, 6, 13, 21, 25, 15)), ("Eero", "Moikka", utc(2018, 6, 13, 21, 26))],
        ),
        (
            "yearfirst.txt",
            [("Ana", "olá", utc(2018, 6, 13, 21, 25, 15)), ("Rui", "bom dia", utc(2018, 6, 14, 8))],
        ),
        (
            "monotonic.txt",
            [
                ("A", "one", utc(2024, 3, 5, 10)),
                ("B", "two", utc(2024, 3, 9, 10)),
                ("A", "three", utc(2024, 4, 2, 10)),
            ],
        ),
        (
            "WhatsApp Chat with Ivo.txt",
            [
                ("Ivo", "Look at this", utc(2024, 3, 5, 10)),  # caption kept, attachment line not
            ],
        ),
    ],
)
def test_locale_variants(name: str, expected: list, tmp_path: Path) -> None:
    ctx = ParseContext()
    s = _one(FIX / name, ctx)
    assert [(t.speaker, t.text, t.timestamp) for t in s.turns] == expected
    assert ctx.warnings == []


def test_ambiguous_dates_default_to_day_first_with_warning() -> None:
    ctx = ParseContext()
    s = _one(FIX / "ambiguous.txt", ctx)
    assert s.title == "ambiguous"
    assert [(t.speaker, t.text, t.timestamp) for t in s.turns] == [
        ("Lu", "hola", utc(2018, 6, 3, 13, 55)),
        ("Sol", "qué tal", utc(2018, 6, 3, 13, 56)),
    ]
    assert ctx.warnings == [f"{FIX / 'ambiguous.txt'}: day/month order is ambiguous, assumed day first"]


def test_naive_times_are_read_in_ctx_zone() -> None:
    s = _one(FIX / "WhatsApp Chat with Bo Chen.txt", ParseContext(tz=ZoneInfo("Europe/Berlin")))
    assert s.turns[0].timestamp == utc(2024, 3, 12, 13, 22)
    assert s.started_at == utc(2024, 3, 12, 13, 22)


def test_session_id_is_stable_across_copies_and_redownloads(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    copy = tmp_path / "a" / "WhatsApp Chat with Bo Chen (1).txt"
    shutil.copy(FIX / "WhatsApp Chat with Bo Chen.txt", copy)
    assert _one(copy).session_id == _one(FIX / "WhatsApp Chat with Bo Chen.txt").session_id
    assert _one(copy).title == "Bo Chen"
    assert _one(FIX / "_chat.txt").session_id != _one(FIX / "WhatsApp Chat with Bo Chen.txt").session_id


def test_cp1252_and_bom_files(tmp_path: Path) -> None:
    legacy = tmp_path / "WhatsApp Chat with Zoë.txt"
    legacy.write_bytes("13/03/2024, 14:22 - Zoë: Café?\n".encode("cp1252"))
    ctx = ParseContext()
    s = _one(legacy, ctx)
    assert (s.turns[0].speaker, s.turns[0].text) == ("Zoë", "Café?")
    assert ctx.warnings == [f"{legacy}: not UTF-8, decoded as cp1252"]
    bom = tmp_path / "WhatsApp Chat with Al.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + b"12/03/2024, 14:22 - Al: hi\n")
    assert _one(bom).turns[0].speaker == "Al"


def test_only_system_events_gives_no_session(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Nobody.txt"
    path.write_text(
        "12/03/2024, 14:22 - Messages and calls are end-to-end encrypted.\n"
        '12/03/2024, 14:23 - Ann created group "x"\n',
        encoding="utf-8",
    )
    assert list(parse(path, ParseContext())) == []


def test_not_whatsapp_raises(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n", encoding="utf-8")
    with pytest.raises(ParseError, match="no WhatsApp message lines found"):
        list(parse(path, ParseContext()))
