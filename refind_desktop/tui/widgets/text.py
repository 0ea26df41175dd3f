"""Pure rendering helpers for the TUI: keyword highlighting, snippets, dates and trajectory lines."""

from __future__ import annotations

import re
from datetime import datetime

from rich.text import Text

from ...terminal import printable

_WORD = re.compile(r"\w+", re.UNICODE)
_CITATION = re.compile(
    r"\[[^\[\]]{1,300}?turns?\s*#?\s*\d+[^\[\]]*\]|\[S\d+ T\d+(?:[;,] ?S\d+ T\d+)*\]", re.IGNORECASE
)


def term_pattern(keywords: str) -> re.Pattern[str] | None:
    """A regex matching the query's words and their inflections (a crude stem: the word's head)."""
    heads = []
    for word in _WORD.findall(keywords.lower()):
        if len(word) < 2:
            continue
        heads.append(word[: max(3, len(word) - 2)] if len(word) > 4 else word)
    if not heads:
        return None
    alternatives = "|".join(re.escape(h) for h in sorted(set(heads), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\w*", re.IGNORECASE)


def highlight(text: str, keywords: str, style: str = "bold reverse") -> Text:
    """`text` as rich Text with the query's words styled."""
    out = Text(printable(text))
    pattern = term_pattern(keywords)
    if pattern is not None:
        out.highlight_regex(pattern, style)
    return out


def plain(text: str, one_line: bool = False) -> Text:
    """Chat-supplied text as rich Text: never parsed as markup, control characters escaped."""
    return Text(printable(text, one_line=one_line))


def snippet(text: str, keywords: str, width: int = 220) -> str:
    """About `width` characters of `text` around the first query word, on one line."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    pattern = term_pattern(keywords)
    match = pattern.search(flat) if pattern else None
    start = max(0, (match.start() if match else 0) - width // 3)
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")


def day(when: datetime | None) -> str:
    """YYYY-MM-DD or a placeholder."""
    return when.date().isoformat() if when else "????-??-??"


def stamp(when: datetime | None) -> str:
    """YYYY-MM-DD HH:MM or empty."""
    return when.strftime("%Y-%m-%d %H:%M") if when else ""


def answer_text(answer: str) -> Text:
    """The answer with its `[session turn N]` citation markers styled."""
    out = Text(printable(answer))
    out.highlight_regex(_CITATION, "bold cyan")
    return out


def trajectory_line(event: object) -> Text:
    """One trajectory event (search, note, retry, finish) as a line of the live view."""
    kind = getattr(event, "type", "")
    if kind == "search":
        span = ""
        if event.date_from or event.date_to:  # type: ignore[attr-defined]
            span = f"  [{event.date_from or '…'} → {event.date_to or '…'}]"  # type: ignore[attr-defined]
        hits = len(event.hits)  # type: ignore[attr-defined]
        line = Text.assemble(
            ("🔎 search ", "bold"),
            (printable(", ".join(event.keywords), one_line=True), "yellow"),  # type: ignore[attr-defined]
            (span, "magenta"),
            (f"  → {hits} hit{'s' if hits != 1 else ''}", "dim"),
        )
        if event.step == 1:  # type: ignore[attr-defined]  # evidence first: the top hits, verbatim
            for b in list(getattr(event, "blocks", []))[:3]:
                turn = next((t for t in b.turns if t.turn == b.turn), b.turns[0])
                line.append("\n   ")
                line.append(day(b.date), "cyan")
                line.append("  " + snippet(turn.text, " ".join(event.keywords), 160), "dim")  # type: ignore[attr-defined]
        return line
    if kind == "note":
        where = ", ".join(f"{s} turn {t}" for s, t in event.saved)  # type: ignore[attr-defined]
        return Text.assemble(("   📝 noted ", "green"), (printable(where, one_line=True) or "nothing", ""))
    if kind == "batch":
        return Text(f"   ⏳ {event.describe()}…", style="dim")  # type: ignore[attr-defined]
    if kind == "read":
        said = "; ".join(str(i["words"]) for i in event.items) or "nothing"  # type: ignore[attr-defined]
        return Text.assemble(
            ("   📖 read ", "blue"), (printable(said, one_line=True), "" if event.items else "dim")
        )  # type: ignore[attr-defined]
    if kind == "retry":
        state = "gave up" if event.gave_up else "retrying"  # type: ignore[attr-defined]
        return Text.assemble(
            ("   ↻ ", "red"),
            (printable(f"invalid {event.stage} output: {event.reason} ({state})", one_line=True), "dim"),
        )  # type: ignore[attr-defined]
    if kind == "finish":
        return Text.assemble(
            ("✓ finished ", "bold green"),
            (f"({event.reason}): {event.searches} searches, {event.notes} notes", "dim"),
        )  # type: ignore[attr-defined]
    return plain(str(event))
