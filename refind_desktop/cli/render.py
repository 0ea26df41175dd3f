"""Terminal layout of search results: one header per block, one snippet per turn, continuation lines indented.

Called by `refind search` (text output) and `refind demo`. The whole text of a turn is one
`refind show SESSION --turn N` away; here each turn is cut to a snippet at a word boundary.
Chat text, titles, names and ids go through `terminal.printable`, as everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import tzinfo

from ..terminal import printable, shell_command
from ..types import Block, TurnView

HIT_CHARS = 400
"""Characters of a hit turn shown in a result block (the rest is behind `refind show`)."""
CONTEXT_CHARS = 200
"""Characters of a context turn (a neighbour of a hit) shown in a result block."""
ELLIPSIS = "…"

PAIRED_SPEAKERS = frozenset({"user", "assistant", "user+assistant"})
"""Speaker values of assistant chats, whose turn text already carries its `User:`/`Assistant:` labels;
any other speaker is a person's name (WhatsApp, Telegram, Slack...) that the text does not repeat."""

_SPACE = re.compile(r"\s")


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters plus an ellipsis, at the last whitespace before the
    limit (mid-word only when one word is longer than half the limit, e.g. a long URL)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = max((m.start() for m in _SPACE.finditer(head)), default=-1)
    if space > limit // 2:
        head = head[:space]
    return head.rstrip() + ELLIPSIS


def first_match(text: str, words: Iterable[str]) -> int:
    """Offset of the earliest place where one of `words` starts a word of `text` (case-insensitive),
    or -1 when none does."""
    best = -1
    for word in words:
        if not word:
            continue
        m = re.search(r"(?<!\w)" + re.escape(word), text, re.IGNORECASE)
        if m and (best < 0 or m.start() < best):
            best = m.start()
    return best


def compact(text: str) -> str:
    """A turn's text without its blank lines and trailing spaces (a result block stays dense)."""
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def snippet(text: str, limit: int, words: Iterable[str] = ()) -> str:
    """The part of a turn to show: `compact(text)` cut to at most `limit` characters at word
    boundaries; when the first of `words` lies beyond the first two thirds, the window starts a
    little before it (and opens with an ellipsis)."""
    text = compact(text)
    if len(text) <= limit:
        return text
    pos = first_match(text, words)
    if pos <= limit * 2 // 3:
        return clip(text, limit)
    start = pos - limit // 3
    space = _SPACE.search(text, start, pos)
    start = space.end() if space else start
    return ELLIPSIS + clip(text[start:], limit)


def speaker_label(turn: TurnView) -> str:
    """`Name: ` for a named speaker (the text of such a turn does not say who wrote it), else ''."""
    name = (turn.speaker or "").strip()
    return "" if not name or name in PAIRED_SPEAKERS else f"{name}: "


def turn_lines(
    turn: TurnView, hit: bool, words: Iterable[str] = (), hide: Callable[[str], str] = str
) -> tuple[list[str], bool]:
    """One turn of a result block (`  > 12  first line`, later lines indented under the first), and
    whether its text was cut; `hide` redacts the text before it is cut (a secret is never half shown)."""
    body = snippet(hide(turn.text), HIT_CHARS if hit else CONTEXT_CHARS, words)
    lines = (printable(speaker_label(turn), one_line=True) + printable(body)).split("\n")
    lead = f"  {'>' if hit else ' '} {turn.turn:>4}  "
    return [lead + lines[0], *(" " * len(lead) + line for line in lines[1:])], body != compact(turn.text)


def block_lines(
    block: Block, words: Iterable[str] = (), hide: Callable[[str], str] = str, tz: tzinfo | None = None
) -> tuple[list[str], bool]:
    """A search result (its header line, then each turn of its context window), and whether a turn's
    text was cut; `hide` redacts titles and text (svc.redactor.text); the hit turn's time is shown in
    `tz` (the user's zone)."""
    words = list(words)
    when = block.date or block.session_date  # the hit turn's own time, else its session's
    day = when.astimezone(tz).strftime("%Y-%m-%d %H:%M") if when else "unknown date"
    title = printable(hide(block.session_title or block.session_id), one_line=True)
    where = f" on {printable(block.host, one_line=True)}" if block.host else ""
    out = [
        f"[{block.rank}] {title} ({day}){where} turn {block.turn}  "
        f"score {block.score:.4f}  id {printable(block.session_id, one_line=True)}"
    ]
    cut = False
    for t in block.turns:
        lines, clipped = turn_lines(t, t.turn in block.hit_turns, words, hide)
        out += lines
        cut = cut or clipped
    return out, cut


def show_hint(block: Block) -> str:
    """The command that prints the whole of a block's hit turn and its neighbours."""
    return printable(shell_command("refind", "show", block.session_id, "--turn", block.turn), one_line=True)
