"""Terminal-safe text: control characters from chat files are shown escaped, never sent to the terminal.

Chat text, titles, speaker names, ids and file names are untrusted. Printed raw, an ESC sequence
in them could clear the screen, set the window title or write the clipboard (OSC 52), a carriage
return could overwrite the line before it, and bidirectional overrides could reorder what is
shown. `printable()` is the one function every front end passes such text through.
"""

from __future__ import annotations

import re
import shlex

_CONTROL = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def _escape(cp: int) -> str:
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


_SURROGATES = {
    cp: f"\\x{cp - 0xDC00:02x}" if 0xDC80 <= cp <= 0xDCFF else f"\\u{cp:04x}" for cp in range(0xD800, 0xE000)
}
_ESCAPED = {cp: _escape(cp) for cp in (*_CONTROL, *_BIDI)} | _SURROGATES
_MULTI_TABLE = {cp: v for cp, v in _ESCAPED.items() if cp not in (0x09, 0x0A)}  # tab, newline stay
_ONE_LINE_TABLE = _MULTI_TABLE | {0x09: " ", 0x0A: "\\n"}


def printable(text: object, one_line: bool = False) -> str:
    """`text` with every terminal control character written as a visible escape like `\\x1b`.

    Newlines and tabs stay unless `one_line` (titles, names, ids, paths), where a newline is
    shown as `\\n`. Lone surrogates (undecodable file-name bytes) are escaped too, so printing
    never fails.
    """
    s = text if isinstance(text, str) else str(text)
    return s.translate(_ONE_LINE_TABLE if one_line else _MULTI_TABLE)


def scrub(text: str) -> str:
    """`text` with lone surrogates (undecodable bytes carried through Python) replaced by U+FFFD,
    so it can be stored in SQLite and tantivy, which take only valid UTF-8."""
    return _LONE.sub("\ufffd", text) if _LONE.search(text) else text


_LONE = re.compile("[\ud800-\udfff]")


def is_printable(text: str) -> bool:
    """True when `printable(text)` would change nothing."""
    return printable(text) == text


def shell_command(*words: object) -> str:
    """A command line to paste into a POSIX shell: each word quoted as the shell needs (`shlex.join`),
    so a suggested `refind ingest '/home/me/WhatsApp Chat - Jonas'` runs as shown. Pass the result
    through `printable` before showing it."""
    return shlex.join(str(w) for w in words)
