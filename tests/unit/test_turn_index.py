"""TurnIndex.turns_in_time_range: the time filter over chosen sessions (used by the hybrid engine)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.index.store import TurnIndex
from refind_desktop.types import Turn


def _index(tmp_path: Path) -> TurnIndex:
    index = TurnIndex(tmp_path / "index")
    with index.writer() as w:
        w.add_turns(
            "s:a",
            "a.json",
            1,
            [
                Turn(0, "june", timestamp=datetime(2025, 6, 1, 12, tzinfo=UTC)),
                Turn(1, "july", timestamp=datetime(2025, 7, 1, 12, tzinfo=UTC)),
                Turn(2, "undated"),
            ],
        )
        w.add_turns("s:b", "b.json", 2, [Turn(0, "june too", timestamp=datetime(2025, 6, 2, tzinfo=UTC))])
    return index


def test_turns_in_time_range_filters_sessions_and_time(tmp_path: Path) -> None:
    index = _index(tmp_path)
    june = (datetime(2025, 6, 1), datetime(2025, 6, 30, 23, 59))
    assert index.turns_in_time_range(["s:a"], *june) == {(1, 0)}
    assert index.turns_in_time_range(["s:a", "s:b"], *june) == {(1, 0), (2, 0)}
    assert index.turns_in_time_range(["s:a"], datetime(2025, 6, 15), None) == {(1, 1)}
    assert index.turns_in_time_range(["s:a"], None, datetime(2025, 12, 31)) == {(1, 0), (1, 1)}  # not undated
    assert index.turns_in_time_range([], *june) == set()
    assert index.turns_in_time_range(["s:none"], *june) == set()
    with pytest.raises(ValueError, match="at least one bound"):
        index.turns_in_time_range(["s:a"], None, None)
