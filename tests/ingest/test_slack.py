"""Slack export parser: channel × day sessions, user names, mrkdwn rendering, skipped notices, threads."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import slack
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slack"


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(slack.parse(path, ctx or ParseContext()))


def test_basic_export() -> None:
    ctx = ParseContext()
    general, dm = parse(FIXTURES / "basic", ctx)
    assert general.session_id == "slack:C0SYNTH01:2024-03-05"
    assert general.title == "#general 2024-03-05"
    assert general.participants == ["ann", "bo"]
    # channel_join dropped; thread reply kept in file order; mention and link rendered; file-only message
    assert [(t.turn_id, t.speaker, t.text) for t in general.turns] == [
        ("1709630100.000200", "ann", "Who has spare terracotta pots?"),
        (
            "1709630160.000300",
            "bo",
            "I do, @ann - three 20 cm ones. See this photo (https://example.org/pots)",
        ),
        ("1709630220.000400", "bo", "[file pots.jpg]"),
    ]
    assert general.started_at == datetime(2024, 3, 5, 9, 15, 0, 200, tzinfo=UTC)
    assert general.turns[1].timestamp == datetime(2024, 3, 5, 9, 16, 0, 300, tzinfo=UTC)
    assert dm.session_id == "slack:D0SYNTH01:2024-03-05"
    assert dm.title == "DM ann, bo 2024-03-05"
    assert [(t.speaker, t.text) for t in dm.turns] == [("ann", "Thanks for the pots!")]
    assert ctx.warnings == []


def test_full_export() -> None:
    ctx = ParseContext()
    sessions = parse(FIXTURES / "full", ctx)
    assert [s.session_id for s in sessions] == [
        "slack:C1:2024-05-01",
        "slack:C1:2024-05-02",
        "slack:G1:2024-05-01",
        "slack:M1:2024-05-01",
        "slack:orphan-channel:2024-05-04",
    ]
    day1, day2, private, mpim, orphan = sessions
    assert [(t.speaker, t.text) for t in day1.turns] == [
        ("WeatherBot (bot)", "Frost tonight: -2 C & clear skies"),
        (
            "ann",
            "@here frost! @Bo Chen cover the figs, details in #random and #random. "
            "Ask @gardeners or ann@example.org, see https://example.org/frost <3",
        ),
        ("Bo Chen", "On it @ann"),
        ("Bo Chen", "fleece photo\n[file fleece.jpg] [file fleece2.jpg]"),
    ]  # join, tombstone and topic change dropped
    # a thread reply written the next day lands in the next day's session; unknown user -> user_profile
    assert [(t.speaker, t.text) for t in day2.turns] == [
        ("cy", "Late reply: my figs survived"),
        ("Guest Gardener", "Guest here"),
    ]
    assert day2.turns[0].turn_id == "1714636800.000100"
    assert private.title == "#secret-garden 2024-05-01"
    assert mpim.title == "group ann, Bo Chen, cy 2024-05-01"
    assert orphan.title == "#orphan-channel 2024-05-04"
    assert len(ctx.warnings) == 2
    assert "message #8 is not an object" in ctx.warnings[0]
    assert "2024-05-03.json: unreadable JSON" in ctx.warnings[1]


def test_render_mrkdwn() -> None:
    users, channels = {"U1": "ann"}, {"C9": "plants"}
    assert slack.render_mrkdwn("<@U1> <@U7|bo> <@U8>", users, channels) == "@ann @bo @U8"
    assert (
        slack.render_mrkdwn("<#C9> <#C8|x> <!channel> <!date^1|May 1st>", users, channels)
        == "#plants #x @channel May 1st"
    )
    assert (
        slack.render_mrkdwn("<http://a.org|a.org> <https://b.org|B> a &amp;&gt; b", users, channels)
        == "a.org B (https://b.org) a &> b"
    )


def test_not_a_folder(tmp_path: Path) -> None:
    zipped = tmp_path / "slack.zip"
    zipped.write_bytes(b"PK")
    with pytest.raises(ParseError, match="read from its folder or its .zip"):
        parse(zipped)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "channels.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ParseError, match="no channel folder"):
        parse(tmp_path / "empty")
