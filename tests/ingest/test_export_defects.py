"""Defect classes seen on real exports (issue 12): each test reads a fixture that reproduces one."""

from __future__ import annotations

import json
import os
import shutil
import time
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from helpers.chats import whole_chat

from refind_desktop.ingest import claude_ai, claude_code, sillytavern, telegram, whatsapp
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.formats import get_parser
from refind_desktop.services import resolve_tz

FIX = Path(__file__).resolve().parents[1] / "fixtures"
DEF = FIX / "defects"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def texts(session) -> list[tuple[str, str]]:
    return [(t.speaker, t.text) for t in session.turns]


# 1. iOS WhatsApp lines start with "[": a chat bigger than the sniff window was taken for JSON.


def test_large_ios_whatsapp_chat_is_detected_and_parsed(tmp_path: Path) -> None:
    src = (DEF / "whatsapp_ios" / "_chat.txt").read_text(encoding="utf-8")
    lines = [
        f"[15/07/2024, 10:{i // 60 % 60:02d}:{i % 60:02d}] Ann Lee: note {i} about the beans"
        for i in range(3000)
    ]
    big = tmp_path / "WhatsApp Chat - Bo Chen" / "_chat.txt"
    big.parent.mkdir()
    big.write_text(src + "\n".join(lines) + "\n", encoding="utf-8")
    assert big.stat().st_size > 64 * 1024
    assert detect_file(big) == "whatsapp"
    s = whole_chat(list(whatsapp.parse(big, ParseContext())))
    assert s.title == "Bo Chen"
    assert len(s.turns) == 3 + 3000  # fixture turns (placeholders dropped) + added lines


def test_json_array_is_still_json() -> None:
    # the text fallback must not swallow real JSON exports
    assert detect_file(FIX / "chatgpt" / "conversations.json") == "chatgpt"


# 2. timezone = local: the machine's IANA zone with DST, not today's fixed offset.


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch):
    """This machine's zone is Europe/Berlin and the setting is `timezone = local`."""
    monkeypatch.setenv("REFIND_TIMEZONE", "local")
    old = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_local_zone_keeps_summer_time(berlin) -> None:
    tz = resolve_tz("local")
    assert getattr(tz, "key", None) == "Europe/Berlin"
    s = whole_chat(list(whatsapp.parse(DEF / "whatsapp_de" / "_chat.txt", ParseContext(tz=tz))))
    by_text = {t.text: t.timestamp for t in s.turns}
    assert by_text["Wer will Feigenstecklinge?"] == utc(2024, 1, 14, 13, 23, 10)  # CET, +01:00
    assert by_text["Die Stecklinge bewurzeln sich schon."] == utc(2024, 7, 14, 12, 25)  # CEST, +02:00


def test_day_bounds_follow_summer_time(berlin) -> None:
    from datetime import date

    from refind_desktop.search.engine import day_bounds

    lo, hi = day_bounds(date(2024, 7, 14), date(2024, 7, 14), resolve_tz("local"))
    assert (lo, hi) == (datetime(2024, 7, 13, 22, 0), datetime(2024, 7, 14, 21, 59, 59, 999999))  # naive UTC


def test_stats_names_the_zone(berlin, tmp_path: Path, capsys) -> None:
    from refind_desktop.cli import main

    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["timezone"] == "Europe/Berlin"
    assert main(["stats"]) == 0
    assert "read in Europe/Berlin" in capsys.readouterr().out


# 3. Claude.ai artifacts and attachment text are part of their turn, marked.
# 4. Claude.ai messages are paired by time, not array order.


def test_claude_ai_artifacts_attachments_and_time_order() -> None:
    (s,) = claude_ai.parse(DEF / "claude_ai" / "conversations.json", ParseContext())
    assert len(s.turns) == 2
    first, second = s.turns
    assert first.text.startswith("User: Plan my beds from this soil report")
    assert first.timestamp == utc(2025, 5, 3, 9, 0, 5)
    assert "[attachment soil-report.txt]\nSoil report, plot 14: pH 6.2" in first.text
    assert "[artifact Watering schedule (application/vnd.ant.code, python)]" in first.text
    assert "print(f'{bed}: water every {days} days')" in first.text
    assert first.text.index("User:") < first.text.index("Assistant: Here is a script")
    assert "[artifact sowing-calendar.md]\n# Sowing calendar" in second.text
    assert "carrots and beetroot direct" in second.text
    assert "OK" not in second.text.split("Assistant:", 1)[1].split("[artifact")[0]


# 6. Claude Code slash-command prompts are kept as the user's text.


def test_claude_code_slash_commands_are_user_text() -> None:
    (s,) = claude_code.parse(
        DEF / "claude_code" / "7c2d9e10-3a4b-4c5d-8e6f-0a1b2c3d4e5f.jsonl", ParseContext()
    )
    assert s.title == "/review scheduler.py leap-year handling"
    assert [t.text.split("\n\n")[0] for t in s.turns] == [
        "User: /review scheduler.py leap-year handling",
        "User: /fix-issue 42",
    ]
    assert "calendar.isleap" in s.turns[0].text  # the reply stays with its command
    assert all("/model" not in t.text for t in s.turns)  # a local UI command is not a prompt


# 7. WhatsApp .zip, Slack export .zip and Codex .jsonl.zst are read directly.


def test_whatsapp_zip(tmp_path: Path) -> None:
    z = tmp_path / "WhatsApp Chat - Bo Chen.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(DEF / "whatsapp_ios" / "_chat.txt", "_chat.txt")
        zf.writestr("00000031-PHOTO-2024-07-14-09-18-00.jpg", b"\xff\xd8\xff\xe0" + b"\0" * 100)
    assert detect_file(z) == "whatsapp"
    s = whole_chat(list(get_parser("whatsapp")(z, ParseContext())))
    assert s.title == "Bo Chen"
    assert ("Ann Lee", "Morning! Did the tomatoes survive the storm?") in texts(s)


@pytest.mark.parametrize("top", ["", "Garden Slack export Mar 5 2024/"])
def test_slack_zip(tmp_path: Path, top: str) -> None:
    folder = FIX / "slack" / "basic"
    z = tmp_path / "slack-export.zip"
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, top + p.relative_to(folder).as_posix())
    assert detect_file(z) == "slack"
    from_zip = list(get_parser("slack")(z, ParseContext()))
    from_dir = list(get_parser("slack")(folder, ParseContext()))
    assert [(s.session_id, texts(s)) for s in from_zip] == [(s.session_id, texts(s)) for s in from_dir]


def test_codex_zst(tmp_path: Path) -> None:
    import zstandard

    rollout = next((FIX / "codex" / "sessions").rglob("rollout-2025-10-29*.jsonl"))
    day = tmp_path / "archived" / "sessions" / "2025" / "10" / "29"
    day.mkdir(parents=True)
    packed = day / (rollout.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(rollout.read_bytes()))
    loose = tmp_path / (rollout.name + ".zst")  # outside the sessions tree: found by content
    shutil.copy(packed, loose)
    expected = [(s.session_id, texts(s)) for s in get_parser("codex")(rollout, ParseContext())]
    for p in (packed, loose):
        assert detect_file(p) == "codex"
        assert [(s.session_id, texts(s)) for s in get_parser("codex")(p, ParseContext())] == expected


# 8. Telegram group and channel exports whose first message is a service message.


@pytest.mark.parametrize("name", ["telegram_group", "telegram_channel"])
def test_telegram_group_and_channel(name: str) -> None:
    path = DEF / name / "result.json"
    assert detect_file(path) == "telegram"
    s = whole_chat(list(telegram.parse(path, ParseContext(tz=ZoneInfo("Europe/Berlin")))))
    if name == "telegram_group":
        assert texts(s) == [
            ("Ann Lee", "Who has the key to the water tap?"),
            ("Bo Chen", "It hangs behind the shed door."),
        ]
        assert s.turns[0].timestamp == utc(2021, 3, 2, 17, 41, 5)
        assert s.turns[1].timestamp == utc(2021, 7, 2, 7, 12, 44)
    else:
        assert texts(s) == [("Seed Library News", "Spring swap: bring labelled envelopes.")]


def test_large_telegram_group_is_detected_from_the_sniff_window(tmp_path: Path) -> None:
    chat = json.loads((DEF / "telegram_group" / "result.json").read_text(encoding="utf-8"))
    extra = dict(chat["messages"][1])
    for i in range(2000):
        chat["messages"].append(dict(extra, id=100 + i, text=f"watering rota week {i}"))
    big = tmp_path / "export" / "result.json"
    big.parent.mkdir()
    big.write_text(json.dumps(chat, indent=1), encoding="utf-8")
    assert big.stat().st_size > 64 * 1024
    assert detect_file(big) == "telegram"


# 9. WhatsApp system lines and media placeholders (any language), "~ " before unsaved contacts.


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        (
            "whatsapp_ios",
            [
                ("Ann Lee", "Morning! Did the tomatoes survive the storm?"),
                ("Bo Chen", "Two plants snapped, the rest are fine.\nI staked them again."),
                ("Carla", "Use soft ties, not wire!"),
            ],
        ),
        (
            "whatsapp_de",
            [
                ("Ann Lee", "Wer will Feigenstecklinge?"),
                ("Bo Chen", "Ich! Zwei bitte."),
                ("Ann Lee", "Die Stecklinge bewurzeln sich schon."),
            ],
        ),
        (
            "whatsapp_android",
            [
                ("Ann Lee", "Bringing chilli seeds on Saturday"),
                ("Carla", "Great, I have basil"),
                ("Bo Chen", "this is the basil from last year"),
            ],
        ),
        (
            "whatsapp_es",
            [("Ana", "¿Tienes semillas de tomate?"), ("Beto", "Sí, de la variedad corazón de buey")],
        ),
    ],
)
def test_whatsapp_system_lines_and_placeholders(folder: str, expected: list) -> None:
    (path,) = (DEF / folder).glob("*.txt")
    s = whole_chat(list(whatsapp.parse(path, ParseContext())))
    assert texts(s) == expected
    assert all(not p.startswith("~") for p in s.participants)


def test_whatsapp_group_name_is_the_title_for_german_ios() -> None:
    s = whole_chat(list(whatsapp.parse(DEF / "whatsapp_de" / "_chat.txt", ParseContext())))
    assert s.title == "Gartenclub"
    assert "Gartenclub" not in s.participants


# 10. SillyTavern keeps character and user names and titles the session by character.


def test_sillytavern_names_and_title() -> None:
    path = DEF / "sillytavern" / "chats" / "Seraphina" / "1689012345678.jsonl"
    s = whole_chat(list(sillytavern.parse(path, ParseContext())))
    assert s.title == "Seraphina"
    assert s.participants == ["Seraphina", "Dana"]
    assert (
        s.turns[0].text
        == 'Seraphina: *Seraphina tends the moonlit herb beds.* "You found the hidden garden."'
    )
    assert (
        s.turns[1].text == 'Dana: Which herb glows at night?\n\nSeraphina: "Moonmint. Pick it before dawn."'
    )
