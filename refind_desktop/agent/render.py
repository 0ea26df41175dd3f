"""The one renderer of chat-file strings into prompts, and the program-made citation tags `[S3 T4]`.

Every string from a chat file (turn text, speaker names, titles; session ids are never shown) passes
through `neutralise` before it enters a prompt: control and bidi characters are removed, runs of `<`
and `>` (the data-section delimiters) are broken, and square brackets become parentheses so a file
cannot forge a citation tag. Prompts cite with `Tags`: short tags the program hands out and maps back
to real (session id, turn) pairs; a file-supplied id never appears in a prompt.
"""

from __future__ import annotations

import re
from datetime import date, datetime

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_ANGLES = re.compile(r"[<>«»‹›〈〉《》]{2,}")
_TAG = re.compile(r"\[\s*S\s*(\d{1,4})\s*[,;:]?\s*T\s*(\d{1,6})\s*\]", re.IGNORECASE)
_TAG_LIST = re.compile(r"\[([^\[\]]{1,200})\]")
_TAG_PART = re.compile(r"S\s*(\d{1,4})\s*[,;:]?\s*T\s*(\d{1,6})", re.IGNORECASE)
_LEGACY = re.compile(r"(?:session\s+)?([^\s,;\[\]]+?)[,:]?\s+turns?\s*#?\s*(\d+)", re.IGNORECASE)


def neutralise(text: str, limit: int | None = None, one_line: bool = False) -> str:
    """Chat-file text made safe to place inside a prompt's data section (see the module docstring)."""
    text = _CONTROL.sub(" ", str(text or ""))
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = _ANGLES.sub(lambda m: " ".join(m.group(0)), text)
    text = text.replace("[", "(").replace("]", ")")
    if one_line:
        text = " ".join(text.split())
    else:
        text = re.sub(r"[ ]{2,}", " ", text)
        text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 6, 0)].rstrip() + " (...)"
    return text


def name(text: str, limit: int = 40) -> str:
    """A speaker name or title: one line, neutralised, short."""
    return neutralise(text, limit, one_line=True)


def day_label(d: date | datetime | None) -> str:
    """ "2024-03-01 (Friday)", or "unknown date"."""
    if d is None:
        return "unknown date"
    if isinstance(d, datetime):
        d = d.date()
    return f"{d.isoformat()} ({d.strftime('%A')})"


class Tags:
    """Program-made citation tags: session S<n> (numbered in order of first appearance), turn T<index>."""

    def __init__(self) -> None:
        self._number: dict[str, int] = {}
        self._sid: dict[int, str] = {}

    def session(self, session_id: str) -> str:
        """ "S3" for a session (a new number the first time it is seen)."""
        n = self._number.get(session_id)
        if n is None:
            n = self._number[session_id] = len(self._number) + 1
            self._sid[n] = session_id
        return f"S{n}"

    def tag(self, session_id: str, turn: int) -> str:
        """ "[S3 T4]"."""
        return f"[{self.session(session_id)} T{turn}]"

    def label(self, session_id: str, turn: int) -> str:
        """ "S3 T4" (the tag without brackets, as schema enums use it)."""
        return f"{self.session(session_id)} T{turn}"

    def lookup(self, label: str) -> tuple[str, int] | None:
        """(session_id, turn) of "S3 T4" / "[S3 T4]", or None when the program never made it."""
        m = _TAG_PART.search(label or "")
        if not m:
            return None
        sid = self._sid.get(int(m.group(1)))
        return (sid, int(m.group(2))) if sid is not None else None

    def resolve(self, text: str, valid: set[tuple[str, int]]) -> list[tuple[str, int]]:
        """The (session_id, turn) pairs cited in `text` that are in `valid`, in order, each once.

        Tags like `[S3 T4]`, several in one bracket (`[S1 T2; S3 T4]`), and, for answers that copy
        the old form, `[session_id turn N]` naming a valid turn."""
        out: dict[tuple[str, int], None] = {}
        for bracket in _TAG_LIST.finditer(text or ""):
            inner = bracket.group(1)
            parts = list(_TAG_PART.finditer(inner))
            for m in parts:
                sid = self._sid.get(int(m.group(1)))
                ref = (sid, int(m.group(2))) if sid is not None else None
                if ref is not None and ref in valid:
                    out.setdefault(ref, None)
            if not parts:
                for m in _LEGACY.finditer(inner):
                    ref = (m.group(1).strip("'\"`"), int(m.group(2)))
                    if ref in valid:
                        out.setdefault(ref, None)
        return list(out)

    def mapping(self) -> dict[str, str]:
        """{"S1": session_id, ...} for the result JSON."""
        return {f"S{n}": sid for n, sid in self._sid.items()}
