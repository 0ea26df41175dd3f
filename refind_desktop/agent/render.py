"""The one renderer of chat-file strings into prompts, and the program-made citation tags `[S3 T4]`.

Every string from a chat file (turn text, speaker names, titles; session ids are never shown) passes
through `neutralise` before it enters a prompt: look-alikes are folded (NFKC: fullwidth `＞` is `>`),
format characters (Unicode Cf: soft hyphens, zero-width and bidi marks) and combining marks or variation
selectors on an angle bracket are dropped, control characters are removed, and only then are runs of
angle brackets (the data-section delimiters `<<<` and `>>>`, and every character Unicode names a
less-than, greater-than, angle bracket, angle quotation mark or chevron) broken up; square brackets
become parentheses so a file cannot forge a citation tag. Prompts cite with `Tags`: short tags the
program hands out and maps back to real (session id, turn) pairs; a file-supplied id never appears in a
prompt.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from datetime import date, datetime

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_ANGLE_WORDS = ("LESS-THAN", "GREATER-THAN", "ANGLE BRACKET", "ANGLE QUOTATION", "CHEVRON")
_TAG = re.compile(r"\[\s*S\s*(\d{1,4})\s*[,;:]?\s*T\s*(\d{1,6})\s*\]", re.IGNORECASE)
_TAG_LIST = re.compile(r"\[([^\[\]]{1,200})\]")
_TAG_PART = re.compile(r"S\s*(\d{1,4})\s*[,;:]?\s*T\s*(\d{1,6})", re.IGNORECASE)
_LEGACY = re.compile(r"(?:session\s+)?([^\s,;\[\]]+?)[,:]?\s+turns?\s*#?\s*(\d+)", re.IGNORECASE)


def angle_chars() -> frozenset[str]:
    """`<`, `>` and every character whose Unicode name makes it a less-than, greater-than, angle
    bracket, angle quotation mark or chevron, from the names (a full scan: ~1 s; `ANGLES` is its result,
    checked against it by tests/unit/test_neutralise.py)."""
    found = {"<", ">"}
    for cp in range(0x80, sys.maxunicode + 1):
        name = unicodedata.name(chr(cp), "")
        if name and any(word in name for word in _ANGLE_WORDS):
            found.add(chr(cp))
    return frozenset(found)


# the delimiter characters: `angle_chars()` as it is under Unicode 14 (Python 3.11)
ANGLES = frozenset(
    "<>\u00ab\u00bb\u2039\u203a\u2264\u2265\u2266\u2267\u2268\u2269\u226a\u226b\u226e\u226f"
    "\u2270\u2271\u2272\u2273\u2274\u2275\u2276\u2277\u2278\u2279\u22d6\u22d7\u22d8\u22d9\u22da"
    "\u22db\u22dc\u22dd\u22e6\u22e7\u2329\u232a\u2343\u2344\u2369\u2746\u276c\u276d\u276e\u276f"
    "\u2770\u2771\u27e8\u27e9\u27ea\u27eb\u2976\u2977\u2978\u2991\u2992\u2993\u2994\u2995\u2996"
    "\u29c0\u29c1\u29fc\u29fd\u2a79\u2a7a\u2a7b\u2a7c\u2a7d\u2a7e\u2a7f\u2a80\u2a81\u2a82\u2a83"
    "\u2a84\u2a85\u2a86\u2a87\u2a88\u2a89\u2a8a\u2a8b\u2a8c\u2a8d\u2a8e\u2a8f\u2a90\u2a91\u2a92"
    "\u2a93\u2a94\u2a95\u2a96\u2a97\u2a98\u2a99\u2a9a\u2a9b\u2a9c\u2a9d\u2a9e\u2a9f\u2aa0\u2aa1"
    "\u2aa2\u2aa3\u2aa4\u2aa5\u2aa6\u2aa7\u2aa8\u2aa9\u2af7\u2af8\u2af9\u2afa\u2b43\u3008\u3009"
    "\u300a\u300b\ufe3d\ufe3e\ufe3f\ufe40\ufe64\ufe65\uff1c\uff1e\U0001fbca\U000e003c\U000e003e"
)
_ANGLE_RUNS = re.compile("[" + "".join(re.escape(c) for c in sorted(ANGLES)) + "]{2,}")


def fold(text: str) -> str:
    """NFKC look-alikes folded; format characters (Cf) dropped, and combining marks or variation selectors
    (Mn, Me) dropped where they follow an angle bracket (`>` + U+034F or U+FE0F reads as `>`)."""
    if text.isascii():
        return text
    out: list[str] = []
    after_angle = False
    for ch in unicodedata.normalize("NFKC", text):
        kind = unicodedata.category(ch)
        if kind == "Cf" or (after_angle and kind in ("Mn", "Me")):
            continue
        out.append(ch)
        after_angle = ch in ANGLES
    return "".join(out)


def neutralise(text: str, limit: int | None = None, one_line: bool = False) -> str:
    """Chat-file text made safe to place inside a prompt's data section (see the module docstring)."""
    text = _CONTROL.sub(" ", fold(str(text or "")))
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = _ANGLE_RUNS.sub(lambda m: " ".join(m.group(0)), text)
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
