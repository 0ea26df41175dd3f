"""File-supplied values in skip reasons and warnings: shown when they are short ids, otherwise described.

A skip reason or warning reaches `refind stats`, `stats --json` and the MCP `stats` tool, so it must never
quote a file's contents (a `.env` line, `/etc/passwd` behind a symlink, a chat message): an id, date or
field name made only of id characters is quoted (it says which record is meant); anything else is named by
its kind and size.
"""

from __future__ import annotations

import re

_ID_LIKE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:+/@-]{0,39}")


def value(v: object) -> str:
    """`'abc-123'` for a short id-like value (letters, digits, `_.:+/@-`, at most 40, no spaces); else its
    kind and size in parentheses, e.g. "(a 57-character text)", never its content."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return repr(v) if _ID_LIKE.fullmatch(v) else f"(a {len(v)}-character text)"
    if isinstance(v, list | tuple):
        return f"(a list of {len(v)} items)"
    if isinstance(v, dict):
        return f"(an object with {len(v)} keys)"
    return f"(a {type(v).__name__} value)"


def names(keys: list[str], most: int = 8) -> str:
    """JSON keys for a skip reason: id-like names listed, the others only counted."""
    shown = [k for k in keys if isinstance(k, str) and _ID_LIKE.fullmatch(k)]
    hidden = len(keys) - len(shown)
    out = ", ".join(shown[:most]) + (", ..." if len(shown) > most else "")
    if hidden:
        out += (", " if out else "") + f"{hidden} other key{'s' if hidden != 1 else ''}"
    return out or "(none)"


def text_kind(text: str, complete: bool) -> str:
    """What a text file looks like, without quoting it: "plain text, 12 lines" (the sniffed start only:
    "at least 900 lines")."""
    lines = len([ln for ln in text.splitlines() if ln.strip()])
    count = f"{lines} line{'s' if lines != 1 else ''}" if complete else f"at least {lines} lines"
    return f"plain text, {count}"
