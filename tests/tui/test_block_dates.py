"""Search hits in the terminal app are dated by the hit turn's own time, not by its conversation's start."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from refind_desktop.tui.widgets.text import trajectory_line
from refind_desktop.types import Block, TurnView


def test_the_first_searchs_evidence_line_shows_the_turns_own_day() -> None:
    when = datetime(2024, 3, 13, 0, 30, tzinfo=UTC)  # after midnight, in a talk that began the day before
    block = Block(
        rank=1,
        session_id="whatsapp:abc:20240312T194000Z",
        session_title="Bo (2024-03-12)",
        session_date=datetime(2024, 3, 12, 19, 40, tzinfo=UTC),
        turn=0,
        score=1.0,
        hit_turns=(0,),
        turns=(TurnView("whatsapp:abc:20240312T194000Z", 0, "Bo", when, "Bake the sourdough tomorrow?"),),
    )
    event = SimpleNamespace(
        type="search", keywords=["sourdough"], date_from=None, date_to=None, hits=[1], step=1, blocks=[block]
    )
    line = trajectory_line(event).plain
    assert "2024-03-13" in line and "2024-03-12" not in line
