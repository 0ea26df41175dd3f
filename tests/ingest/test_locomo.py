"""LoCoMo parser: one multi-party session per session_N, dialog ids as turn ids, image captions."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import locomo
from refind_desktop.ingest.base import ParseContext


def parse(path: Path, ctx: ParseContext | None = None) -> tuple[list, ParseContext]:
    ctx = ctx or ParseContext()
    return list(locomo.parse(path, ctx)), ctx


@pytest.mark.parametrize("name", ["locomo_mini.json", "locomo_mini.json.gz"])
def test_mini_fixture(fixtures: Path, name: str) -> None:
    sessions, ctx = parse(fixtures / "locomo" / name)
    assert ctx.warnings == []
    assert [s.session_id for s in sessions] == [
        "locomo:conv-mini-1:session_1",
        "locomo:conv-mini-1:session_2",
    ]
    s1 = sessions[0]
    assert s1.started_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert s1.participants == ["Priya", "Tomas"]
    assert [(t.turn_id, t.speaker, t.text) for t in s1.turns] == [
        ("D1:1", "Priya", "Hey Tomas! I finally adopted a rescue greyhound last weekend."),
        ("D1:2", "Tomas", "No way! What's their name?"),
        (
            "D1:3",
            "Priya",
            "Her name is Comet. Here she is on the couch. [image: a photo of a grey dog lying on a couch]",
        ),
    ]
    assert all(t.timestamp == s1.started_at for t in s1.turns)
    assert sessions[1].started_at == datetime(2023, 5, 27, 10, 2, tzinfo=UTC)
    assert [t.turn_id for t in sessions[1].turns] == ["D2:1", "D2:2"]


def test_edge_cases(fixtures: Path) -> None:
    sessions, ctx = parse(fixtures / "locomo" / "locomo_edge.json")
    # numeric session order regardless of key order; the empty session_4 yields nothing
    assert [s.session_id for s in sessions] == [
        "locomo:conv-edge:session_2",
        "locomo:conv-edge:session_3",
        "locomo:conv-edge:session_10",
    ]
    s2, s3, s10 = sessions
    assert s2.started_at == datetime(2023, 3, 5, 12, 30, tzinfo=UTC)  # "12:30 PM"
    assert [t.text for t in s2.turns] == ["Look at my garden. [image: a photo of tulips]", "Lovely!"]
    assert s3.started_at is None
    assert s10.started_at == datetime(2024, 1, 1, 0, 5, tzinfo=UTC)  # "12:05 am"
    assert [(t.turn_id, t.speaker, t.text) for t in s10.turns] == [
        ("D10:1", "Ben", "Happy new year!"),
        ("D10:2", "Ana", "[image: a photo of fireworks]"),
    ]
    assert [t.index for t in s10.turns] == [0, 1]
    assert len(ctx.warnings) == 3
    assert "session_2: dialog entry without text" in ctx.warnings[0]
    assert "session_3: unreadable date 'sometime'" in ctx.warnings[1]
    assert "element 2 has no `conversation`" in ctx.warnings[2]


def test_naive_dates_use_context_zone(fixtures: Path) -> None:
    ctx = ParseContext(tz=timezone(timedelta(hours=-5)))
    sessions, _ = parse(fixtures / "locomo" / "locomo_mini.json", ctx)
    assert sessions[0].started_at == datetime(2023, 5, 8, 18, 56, tzinfo=UTC)


def test_not_locomo_raises(fixtures: Path, tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no LoCoMo conversations"):
        parse(fixtures / "locomo" / "not_locomo.json")
    bad = tmp_path / "locomo10.json"
    bad.write_text("[{")
    with pytest.raises(ParseError, match="not readable as LoCoMo JSON"):
        parse(bad)


def test_parse_date() -> None:
    assert locomo.parse_date("1:56 pm on 8 May, 2023", UTC) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert locomo.parse_date("12:48 am on 1 February, 2023", UTC) == datetime(2023, 2, 1, 0, 48, tzinfo=UTC)
    assert locomo.parse_date("1:56 pm on 8 Maytember, 2023", UTC) is None
    assert locomo.parse_date(None, UTC) is None


def test_many_conversations_from_gzip(tmp_path: Path) -> None:
    """A benchmark-sized file: ten conversations of seven dated sessions, gzipped."""
    months = ["January", "February", "March", "April", "May", "June", "July"]
    samples = []
    for c in range(10):
        conv = {"speaker_a": f"Ann{c}", "speaker_b": f"Bo{c}"}
        for n in range(1, 8):
            conv[f"session_{n}_date_time"] = f"1:56 pm on {n + 1} {months[n - 1]}, 2023"
            conv[f"session_{n}"] = [
                {
                    "speaker": conv["speaker_a" if k % 2 == 0 else "speaker_b"],
                    "dia_id": f"D{n}:{k + 1}",
                    "text": f"line {k}",
                }
                for k in range(20 + n)
            ]
        samples.append({"sample_id": f"conv-{c}", "conversation": conv, "qa": []})
    path = tmp_path / "locomo_many.json.gz"
    path.write_bytes(gzip.compress(json.dumps(samples).encode()))
    sessions, ctx = parse(path)
    assert ctx.warnings == []
    assert len(sessions) == 70
    assert sum(len(s.turns) for s in sessions) == 10 * sum(20 + n for n in range(1, 8))
    assert all(s.started_at is not None for s in sessions)
    assert sessions[0].session_id == "locomo:conv-0:session_1"
