"""The one rule that cuts a messenger chat into conversations: where it cuts, ids, titles, growth."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from refind_desktop.ingest.conversations import (
    SplitRule,
    conversation_id,
    split_chat,
    split_stored,
    starts,
)
from refind_desktop.types import Session, Turn

DAY = datetime(2024, 3, 12, tzinfo=UTC)


def at(hours: float, minutes: float = 0) -> datetime:
    return DAY + timedelta(hours=hours, minutes=minutes)


def chat(times: list[datetime | None], speakers: str = "AB", chat_id: str = "whatsapp:abc") -> Session:
    turns = [
        Turn(index=i, text=f"message {i}", speaker=speakers[i % len(speakers)], timestamp=t)
        for i, t in enumerate(times)
    ]
    return Session(session_id=chat_id, title="Bo Chen", participants=list(speakers), turns=turns)


def test_a_pause_of_four_hours_starts_a_conversation_midnight_does_not() -> None:
    # morning talk, a reply 4h25 later (new talk), an evening talk that runs on past midnight
    times = [at(9), at(9, 5), at(13, 30), at(23, 50), at(24, 20), at(24, 40)]
    assert starts(chat(times).turns, SplitRule()) == [0, 2, 3]


def test_a_slow_reply_stays_in_its_conversation() -> None:
    times = [at(9), at(10, 30), at(13, 29)]  # 1.5 h and 2h59 later: replies in one talk
    assert starts(chat(times).turns, SplitRule()) == [0]


def test_the_night_option_cuts_at_a_shorter_pause_across_midnight_in_the_users_zone() -> None:
    berlin = ZoneInfo("Europe/Berlin")  # UTC+1 in March: 22:30 UTC is 23:30 there
    rule = SplitRule(night_gap=timedelta(hours=1), tz=berlin)
    across = [at(22, 30), at(23, 45)]  # 23:30 -> 00:45 in Berlin, 75 minutes
    before = [at(21, 0), at(22, 15)]  # 22:00 -> 23:15 in Berlin, same day
    short = [at(22, 50), at(23, 20)]  # 23:50 -> 00:20 in Berlin, only 30 minutes
    assert starts(chat(across).turns, rule) == [0, 1]
    assert starts(chat(before).turns, rule) == [0]
    assert starts(chat(short).turns, rule) == [0]
    assert starts(chat(across).turns, SplitRule(night_gap=timedelta(hours=1))) == [0]  # UTC: same day
    every_day = SplitRule(gap=None, night_gap=timedelta(0), tz=berlin)
    assert starts(chat(short).turns, every_day) == [0, 1]


def test_untimed_turns_never_open_a_conversation() -> None:
    times = [at(9), None, at(15), None, None]
    assert starts(chat(times).turns, SplitRule()) == [0, 2]
    assert starts(chat([None, None]).turns, SplitRule()) == [0]


def test_conversations_carry_ids_titles_participants_and_their_chat() -> None:
    times = [at(9), at(9, 5), at(9, 7), at(20)]
    parts = split_chat(chat(times, speakers="AAB"), SplitRule())
    first, second = parts
    assert first.session_id == "whatsapp:abc:20240312T090000Z"
    assert second.session_id == conversation_id("whatsapp:abc", at(20)) == "whatsapp:abc:20240312T200000Z"
    assert (first.title, second.title) == ("Bo Chen (2024-03-12)", "Bo Chen (2024-03-12)")
    assert {p.chat_id for p in parts} == {"whatsapp:abc"} and {p.chat_title for p in parts} == {"Bo Chen"}
    assert (first.started_at, second.started_at) == (at(9), at(20))
    assert (first.participants, second.participants) == (["A", "B"], ["A"])
    assert [t.index for t in first.turns] == [0, 1, 2] and [t.index for t in second.turns] == [0]
    assert [t.turn_id for t in second.turns] == ["whatsapp:abc:20240312T200000Z:0"]


def test_the_title_date_is_the_users_day() -> None:
    (c,) = split_chat(chat([at(23, 30)]), SplitRule(tz=ZoneInfo("Asia/Tokyo")))
    assert c.title == "Bo Chen (2024-03-13)"  # 08:30 on the 13th in Tokyo
    assert c.session_id.endswith(":20240312T233000Z")  # the id stays in UTC


def test_a_clock_that_goes_back_keeps_ids_unique() -> None:
    # the clock goes back 15 h (no pause, no cut), then a pause of 4 h opens a talk at 09:00 again
    times = [at(9), at(20), at(5), at(9)]
    ids = [c.session_id for c in split_chat(chat(times), SplitRule())]
    assert ids == [
        "whatsapp:abc:20240312T090000Z",
        "whatsapp:abc:20240312T200000Z",
        "whatsapp:abc:20240312T090000Z~2",
    ]


@settings(max_examples=150, deadline=None)
@given(
    gaps=st.lists(st.integers(min_value=0, max_value=60 * 30), min_size=1, max_size=40),
    keep=st.integers(min_value=1, max_value=40),
)
def test_a_growing_chat_keeps_every_earlier_conversation(gaps: list[int], keep: int) -> None:
    """What a later export adds never changes an earlier conversation: same id, same turns; the last
    one of the shorter export may only grow."""
    times, t = [], DAY
    for g in gaps:
        t += timedelta(minutes=g)
        times.append(t)
    keep = min(keep, len(times))
    old = split_chat(chat(times[:keep]), SplitRule())
    new = split_chat(chat(times), SplitRule())
    assert [c.session_id for c in new[: len(old)]] == [c.session_id for c in old]
    for a, b in zip(old[:-1], new, strict=False):
        assert [x.timestamp for x in a.turns] == [x.timestamp for x in b.turns]
    last_old, last_new = old[-1], new[len(old) - 1]
    assert [x.timestamp for x in last_new.turns][: len(last_old.turns)] == [
        x.timestamp for x in last_old.turns
    ]


def test_split_stored_cuts_a_chat_stored_whole_and_leaves_the_rest() -> None:
    times = [at(9), at(9, 5), at(20)]
    whole = chat(times)
    parts = split_stored(whole, "whatsapp", SplitRule())
    assert [c.session_id for c in parts] == [c.session_id for c in split_chat(chat(times), SplitRule())]
    assert split_stored(chat(times), "chatgpt", SplitRule())[0].session_id == "whatsapp:abc"
    already = parts[0]
    assert split_stored(already, "whatsapp", SplitRule()) == [already]
