"""Day ranges at the ends of the calendar: clamped to the span the index stores, never an overflow."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from refind_desktop.index.schema import TS_MAX, TS_MIN
from refind_desktop.search.engine import day_bounds
from refind_desktop.services import build_services

ZONES = [timezone(timedelta(hours=14)), timezone.utc, timezone(timedelta(hours=-12))]


@pytest.mark.parametrize("tz", ZONES)
def test_any_day_gives_bounds_inside_what_tantivy_accepts(tz: timezone) -> None:
    lowest, highest = datetime(1677, 9, 22), datetime(2262, 4, 10)  # tantivy's i64 nanoseconds, rounded in
    for d in (
        date.min,
        date(1, 1, 2),
        date(1677, 12, 31),
        TS_MIN.date(),
        date(2025, 3, 1),
        TS_MAX.date(),
        date.max,
    ):
        lo, hi = day_bounds(d, d, tz)
        assert lowest <= lo <= highest and lowest <= hi <= highest, d


def test_days_inside_the_span_are_the_days_of_the_zone() -> None:
    tz = timezone(timedelta(hours=2))
    assert day_bounds(date(2025, 3, 1), date(2025, 3, 1), tz) == (
        datetime(2025, 2, 28, 22, 0),
        datetime(2025, 3, 1, 21, 59, 59, 999999),
    )
    assert day_bounds(None, None, tz) == (None, None)


def _chat(path: Path, stamp: str | None, text: str) -> None:
    rows = [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}]
    if stamp:
        for r in rows:
            r["timestamp"] = stamp
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_extreme_ranges_on_a_real_index(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    _chat(chats / "dated.jsonl", "2025-03-01T10:00:00Z", "the walnut tree needs pruning")
    _chat(chats / "undated.jsonl", None, "another walnut question")
    svc = build_services()
    try:
        svc.ingestor.ingest([chats])
        search = svc.engine.search

        def found(lo: date | None, hi: date | None) -> int:
            return len(search("walnut", lo, hi))

        assert found(None, None) == 2
        assert found(date.min, date.max) == 1  # every dated turn; an undated one is in no date range
        assert found(date(1, 1, 1), None) == found(None, date(9999, 12, 31)) == 1
        assert found(date(9999, 1, 1), None) == found(None, date(1, 1, 2)) == 0
        assert found(date(2025, 3, 1), date(2025, 3, 1)) == 1
    finally:
        svc.close()
