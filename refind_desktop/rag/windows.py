"""Raw-RAG windows: a session serialized with dates and speakers, cut into overlapping token windows."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..types import TurnView

WINDOW_TOKENS = 256
OVERLAP_TOKENS = 32
ASSISTANT_STYLE = frozenset({"user", "assistant", "user+assistant"})
"""Speakers whose turn text already carries "User:" / "Assistant:" labels (no extra label)."""

Offsets = list[tuple[int, int]]
TokenizeFn = Callable[[str], Offsets]
"""Text -> character span of each token (the embedding model's tokenizer, no special tokens)."""


@dataclass(frozen=True, slots=True)
class Window:
    """One window of a session: its token span, the turns it overlaps and its text."""

    start: int
    """First token, counted from the start of the serialized session."""
    n_tokens: int
    first_turn: int
    last_turn: int
    text: str
    char_start: int = 0
    """Where the window starts inside the serialized first turn."""
    char_end: int = 0
    """Where the window ends inside the serialized last turn."""

    @property
    def key(self) -> str:
        """Content key: equal keys mean an identical window (so its vector can be kept)."""
        return hashlib.blake2b(f"{self.start}\x1f{self.text}".encode(), digest_size=12).hexdigest()


def stamp(ts: datetime | None) -> str:
    """The date label written before a turn ("2023-05-20 02:21 UTC"); empty when unknown."""
    if ts is None:
        return ""
    return ts.strftime("%Y-%m-%d %H:%M") + (f" {ts.tzname()}" if ts.tzname() else "")


def serialize_turns(turns: Sequence[TurnView]) -> list[str]:
    """One string per turn: `[date] speaker: text`, the date written only when it changes.

    A turn's string depends only on the turns before it, so appending turns never changes the
    serialization (or the windows) of what came before.
    """
    out: list[str] = []
    last = ""
    for t in turns:
        label = stamp(t.timestamp)
        head = f"[{label}] " if label and label != last else ""
        if label:
            last = label
        who = "" if (t.speaker or "").lower() in ASSISTANT_STYLE or not t.speaker else f"{t.speaker}: "
        out.append(f"{head}{who}{t.text}\n")
    return out


def window_starts(total: int, size: int = WINDOW_TOKENS, overlap: int = OVERLAP_TOKENS) -> list[int]:
    """Token offsets of the windows over `total` tokens: stride size-overlap, no overlap-only tail."""
    if total <= 0:
        return []
    stride = size - overlap
    if stride <= 0:
        raise ValueError(f"overlap {overlap} must be smaller than the window size {size}")
    starts = [0]
    while starts[-1] + size < total:
        starts.append(starts[-1] + stride)
    return starts


def session_windows(
    turns: Sequence[TurnView], tokenize: TokenizeFn, size: int = WINDOW_TOKENS, overlap: int = OVERLAP_TOKENS
) -> list[Window]:
    """Cut one session into windows of `size` tokens overlapping by `overlap` tokens.

    Each turn is tokenized on its own and the token streams are concatenated; a window's text is
    the exact slice of the serialized session from its first token to its last, and `first_turn` /
    `last_turn` are the turns whose tokens it contains.
    """
    texts = serialize_turns(turns)
    spans: list[tuple[int, int, int]] = []  # (turn position, char start, char end) per token
    for pos, text in enumerate(texts):
        spans += [(pos, a, b) for a, b in tokenize(text) if b > a]
    out: list[Window] = []
    for s in window_starts(len(spans), size, overlap):
        part = spans[s : s + size]
        (p0, c0, _), (p1, _, c1) = part[0], part[-1]
        text = texts[p0][c0:c1] if p0 == p1 else texts[p0][c0:] + "".join(texts[p0 + 1 : p1]) + texts[p1][:c1]
        out.append(Window(s, len(part), turns[p0].turn, turns[p1].turn, text, c0, c1))
    return out


def window_text(turns: Sequence[TurnView], first_turn: int, char_start: int, char_end: int) -> str:
    """Rebuild a stored window's text from its turns (plus the turn before it, for the date label)."""
    pieces = [text for t, text in zip(turns, serialize_turns(turns), strict=True) if t.turn >= first_turn]
    if not pieces:
        return ""
    if len(pieces) == 1:
        return pieces[0][char_start:char_end]
    return pieces[0][char_start:] + "".join(pieces[1:-1]) + pieces[-1][:char_end]


def whitespace_tokenize(text: str) -> Offsets:
    """A stand-in tokenizer (one token per whitespace-separated word) for tests and benchmarks."""
    out: Offsets = []
    start = None
    for i, ch in enumerate(text):
        if ch.isspace():
            if start is not None:
                out.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        out.append((start, len(text)))
    return out
