"""Text decoding for chat files: BOM / BOM-less UTF-16 detection, UTF-8 with a cp1252 fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Warns(Protocol):
    """Anything with a `warn(message)` (a `ParseContext`); decoding sits below base, so no import."""

    def warn(self, message: str) -> None: ...


def decode_head(data: bytes, complete: bool = True) -> str | None:
    """Decode a file's first bytes for sniffing; None when they look binary."""
    enc = bom_encoding(data)
    if enc is None and b"\x00" in data[:4096]:
        enc = bomless_utf16(data)
        if enc is None:
            return None
    if enc is not None:
        if not complete:
            data = data[: len(data) - len(data) % (4 if enc == "utf-32" else 2)]
        text = data.decode(enc, errors="replace")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            if not complete and e.start >= len(data) - 3:
                text = data[: e.start].decode("utf-8-sig", errors="replace")
            else:
                text = data.decode("cp1252", errors="replace")
    sample = text[:4096]
    controls = sum(1 for c in sample if ord(c) < 32 and c not in "\t\n\r\f\x1b")
    if sample and controls / len(sample) > 0.1:
        return None
    return text


def read_text(path: Path, ctx: Warns | None = None) -> str:
    """Read a whole text file: UTF-8 (BOM ok), UTF-16/32 with BOM, else cp1252 with a warning."""
    return decode_text(Path(path).read_bytes(), str(path), ctx)


def decode_text(data: bytes, where: str, ctx: Warns | None = None) -> str:
    """Decode a whole text file's bytes (see `read_text`); `where` names it in the warning."""
    enc = bom_encoding(data) or (bomless_utf16(data) if b"\x00" in data[:4096] else None)
    if enc is not None:
        text = data.decode(enc, errors="replace")
        return text.lstrip("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if ctx is not None:
            ctx.warn(f"{where}: not UTF-8, decoded as cp1252")
        return data.decode("cp1252", errors="replace")


def bom_encoding(data: bytes) -> str | None:
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return None


def bomless_utf16(data: bytes) -> str | None:
    """UTF-16 without BOM: text whose every other byte is NUL."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None
