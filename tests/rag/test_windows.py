"""Window boundaries, overlap, turn links and serialization against hand-made sessions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from refind_desktop.rag.windows import (
    Window,
    serialize_turns,
    session_windows,
    whitespace_tokenize,
    window_starts,
    window_text,
)
from refind_desktop.types import TurnView


def tv(i: int, text: str, speaker: str = "user", ts: datetime | None = None) -> TurnView:
    return TurnView("s", i, speaker, ts, text)


def tokens_of(w: Window) -> list[str]:
    return w.text.split()


@pytest.mark.parametrize(
    ("total", "starts"),
    [
        (0, []),
        (1, [0]),
        (255, [0]),
        (256, [0]),
        (257, [0, 224]),
        (480, [0, 224]),
        (481, [0, 224, 448]),
        (600, [0, 224, 448]),
    ],
)
def test_window_starts(total, starts):
    assert window_starts(total) == starts


def test_windows_are_256_tokens_overlapping_by_32_and_link_their_turns():
    # 6 turns of 100 words each (no speaker label, no date: every token is a word of the text)
    turns = [tv(i, " ".join(f"t{i}w{j}" for j in range(100)), speaker="user") for i in range(6)]
    wins = session_windows(turns, whitespace_tokenize)
    stream = [tok for t in turns for tok in t.text.split()]
    assert [w.start for w in wins] == [0, 224, 448]
    assert [w.n_tokens for w in wins] == [256, 256, 152]
    for w in wins:
        assert tokens_of(w) == stream[w.start : w.start + w.n_tokens]
    for a, b in zip(wins, wins[1:], strict=False):
        assert tokens_of(a)[-32:] == tokens_of(b)[:32]
    # token 0..255 = turns 0..2 (turn 2 holds tokens 200..299); 224..479 = turns 2..4; 448..599 = 4..5
    assert [(w.first_turn, w.last_turn) for w in wins] == [(0, 2), (2, 4), (4, 5)]
    # a window's text starts and ends on token boundaries of the source text
    assert wins[1].text.startswith("t2w24 ") and wins[1].text.endswith(" t4w79")


def test_small_session_is_one_window_and_turn_boundaries_are_kept():
    turns = [tv(0, "hello there"), tv(1, "general kenobi")]
    (w,) = session_windows(turns, whitespace_tokenize)
    assert (w.start, w.n_tokens, w.first_turn, w.last_turn) == (0, 4, 0, 1)
    assert w.text == "hello there\ngeneral kenobi"  # turns joined by their serialized newline


def test_serialization_has_dates_when_they_change_and_speakers_of_multiparty_chats():
    t1 = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
    t2 = datetime(2024, 5, 2, 8, 0, tzinfo=UTC)
    texts = serialize_turns(
        [
            tv(0, "hi", "Maya", t1),
            tv(1, "hello", "Bo", t1),
            tv(2, "again", "Maya", t2),
            tv(3, "User: q\n\nAssistant: a", "user+assistant", t2),
        ]
    )
    assert texts == [
        "[2024-05-01 09:30 UTC] Maya: hi\n",
        "Bo: hello\n",
        "[2024-05-02 08:00 UTC] Maya: again\n",
        "User: q\n\nAssistant: a\n",
    ]


def test_appending_turns_keeps_every_complete_window():
    base = [tv(i, " ".join(f"a{i}x{j}" for j in range(90))) for i in range(8)]  # 720 tokens
    longer = base + [tv(8, " ".join(f"new{j}" for j in range(90)))]
    old = session_windows(base, whitespace_tokenize)
    new = session_windows(longer, whitespace_tokenize)
    complete_old = {w.key for w in old if w.n_tokens == 256}
    assert complete_old <= {w.key for w in new}
    assert len({w.key for w in new} - {w.key for w in old}) <= 2  # the old partial tail + the new tail


def test_window_text_is_rebuilt_from_its_turns():
    ts = datetime(2024, 1, 1, tzinfo=UTC)
    turns = [tv(i, " ".join(f"w{i}_{j}" for j in range(70)), "Ann" if i % 2 else "Bob", ts) for i in range(9)]
    for w in session_windows(turns, whitespace_tokenize):
        lo = max(0, w.first_turn - 1)
        assert window_text(turns[lo : w.last_turn + 1], w.first_turn, w.char_start, w.char_end) == w.text


def test_real_tokenizer_windows_match_the_model_token_count():
    tokenizers = pytest.importorskip("transformers")
    from refind_desktop.rag.models import offline, packaged_model_dir

    offline()
    tok = tokenizers.AutoTokenizer.from_pretrained(str(packaged_model_dir()))

    def tokenize(text: str) -> list[tuple[int, int]]:
        return [
            tuple(o)
            for o in tok(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        ]

    turns = [
        tv(i, f"Turn {i}: the quick brown fox jumps over the lazy dog near the riverbank. " * 8)
        for i in range(5)
    ]
    wins = session_windows(turns, tokenize)
    assert [w.start for w in wins] == window_starts(sum(len(tokenize(t)) for t in serialize_turns(turns)))
    for w in wins[:-1]:
        assert w.n_tokens == 256
        assert abs(len(tok(w.text, add_special_tokens=False)["input_ids"]) - 256) <= 2
