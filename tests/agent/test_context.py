"""The answer stage's reading: which turns a token budget keeps, and in which order."""

from __future__ import annotations

from datetime import UTC, datetime

from refind_desktop.agent.context import build_context
from refind_desktop.agent.events import Note
from refind_desktop.agent.render import Tags
from refind_desktop.types import Block, TurnView

WHEN = datetime(2024, 3, 1, tzinfo=UTC)


def block(sid: str, hits: tuple[int, ...], n_turns: int = 5) -> Block:
    turns = tuple(TurnView(sid, i, "user", WHEN, f"{sid} turn {i} " + "word " * 40) for i in range(n_turns))
    return Block(1, sid, sid, WHEN, hits[0], 1.0, hits, turns)


def tokens(text: str) -> int:
    return len(text) // 4 + 1


NOTES = [
    Note(block("s:first-judged", (0, 2, 3)), 1, "judged"),  # three hit turns in one session
    Note(block("s:first-kept", (1,)), 1, "kept"),  # the first search's next result, not judged
    Note(block("s:later-judged", (0,)), 2, "judged"),
]


def context(budget_turns: int, lookup: bool):
    tags = Tags()
    for n in NOTES:
        tags.session(n.block.session_id)
    one_turn = tokens("[S1 T0] " + NOTES[0].block.turns[0].text) + 15
    return build_context(
        NOTES, ["word"], tags, budget_turns * one_turn + 10, tokens, first_search_first=lookup
    )


def test_a_lookup_reads_every_first_search_result_before_later_searches_and_other_hits():
    # room for three turns: each first-search session's best hit, then the later search's; the first
    # session's other hit turns (2, 3) and every neighbour wait
    assert context(3, lookup=True).refs == {("s:first-judged", 0), ("s:first-kept", 1), ("s:later-judged", 0)}
    wider = context(5, lookup=True).refs
    assert {("s:first-judged", 2), ("s:first-judged", 3)} <= wider
    assert not {("s:first-kept", 0), ("s:first-kept", 2)} & wider  # neighbours come after every hit


def test_an_aggregation_reads_judged_notes_of_every_search_before_unjudged_ones():
    assert context(3, lookup=False).refs == {
        ("s:first-judged", 0),
        ("s:first-judged", 2),
        ("s:first-judged", 3),
    }
    assert context(5, lookup=False).refs == {
        ("s:first-judged", 0),
        ("s:first-judged", 2),
        ("s:first-judged", 3),
        ("s:later-judged", 0),
        ("s:first-kept", 1),
    }
