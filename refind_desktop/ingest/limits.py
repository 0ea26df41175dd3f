"""Bounded reading of archives and JSON: unpacked size, compression ratio, member count, string length.

A zip bomb or a multi-gigabyte JSON string must not take the machine down: every zip member,
`.zst` or `.gz` stream and JSON document is read through these checks, and a file over a limit
raises `LimitExceeded` (a `ParseError`), so the pipeline skips that file with the reason and
goes on with the rest. The limits come from the settings (`max_unpacked_mb`, `max_unpack_ratio`,
`max_archive_members`, `max_string_mb`).
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import ParseError

MIB = 1 << 20
RATIO_FLOOR = 8 * MIB  # the ratio is only judged once this much was unpacked (small files compress well)


@dataclass(frozen=True)
class Limits:
    """How much an archive may unpack to and how long one JSON string may be."""

    max_unpacked_bytes: int = 8 << 30
    max_ratio: float = 200.0
    max_members: int = 200_000
    max_string_bytes: int = 16 * MIB  # ijson handles one long string in quadratic time: 64 MiB took 42 s

    @classmethod
    def from_settings(cls, settings: Any) -> Limits:
        """Limits from a `Settings` (sizes there are in MiB)."""
        return cls(
            max_unpacked_bytes=int(settings.max_unpacked_mb) * MIB,
            max_ratio=float(settings.max_unpack_ratio),
            max_members=int(settings.max_archive_members),
            max_string_bytes=int(settings.max_string_mb) * MIB,
        )


class LimitExceeded(ParseError):
    """A file is over one of the reading limits; the message names the limit and the setting."""


def _mib(n: float) -> str:
    """A size for a message: MiB, or KiB below one MiB."""
    return f"{n / MIB:,.0f} MiB" if n >= MIB else f"{n / 1024:,.0f} KiB"


def check_zip(path: Path | str, zf: zipfile.ZipFile, limits: Limits) -> None:
    """Member-count limit, checked on the central directory before anything is unpacked."""
    n = len(zf.infolist())
    if n > limits.max_members:
        raise LimitExceeded(
            f"{path}: zip archive has {n:,} members, over the limit of {limits.max_members:,} "
            "(setting max_archive_members); unpack it and ingest the chat files"
        )


def check_member(path: Path | str, info: zipfile.ZipInfo, limits: Limits) -> None:
    """Declared size and ratio of one zip member (Python's zipfile never unpacks past the declared size)."""
    where = f"{path}!{info.filename}"
    if info.file_size > limits.max_unpacked_bytes:
        raise LimitExceeded(
            f"{where}: unpacks to {_mib(info.file_size)}, over the limit of "
            f"{_mib(limits.max_unpacked_bytes)} (setting max_unpacked_mb)"
        )
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > RATIO_FLOOR and ratio > limits.max_ratio:
        raise LimitExceeded(
            f"{where}: compression ratio {ratio:,.0f}:1 ({_mib(info.compress_size)} -> "
            f"{_mib(info.file_size)}) is over the limit of {limits.max_ratio:,.0f}:1 "
            "(setting max_unpack_ratio); this looks like a zip bomb"
        )


class BoundedReader(io.RawIOBase):
    """A binary stream that stops with `LimitExceeded` when it unpacks too much or too densely.

    `packed` is the compressed size behind the stream (0 for a plain file: no size/ratio check).
    With `json=True` it also bounds the longest run of bytes without a `"`: no JSON string (or
    number) can be longer than that, so a multi-gigabyte string is refused before it is built.
    Wrap it in `io.BufferedReader` for line reading.
    """

    def __init__(
        self, raw: IO[bytes], name: str, limits: Limits, packed: int = 0, json: bool = False
    ) -> None:
        super().__init__()
        self._raw = raw
        self._name = name
        self._limits = limits
        self._packed = packed
        self._json = json
        self._total = 0
        self._gap = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        if n:
            self._total += n
            if self._packed:
                self._check_size()
            if self._json:
                self._check_gap(data)
        return n

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()

    def _check_size(self) -> None:
        lim = self._limits
        if self._total > lim.max_unpacked_bytes:
            raise LimitExceeded(
                f"{self._name}: unpacks to more than {_mib(lim.max_unpacked_bytes)} "
                "(setting max_unpacked_mb); skipped"
            )
        if self._total > RATIO_FLOOR and self._total / self._packed > lim.max_ratio:
            raise LimitExceeded(
                f"{self._name}: compression ratio over {lim.max_ratio:,.0f}:1 "
                f"({_mib(self._packed)} packed, past {_mib(self._total)} unpacked; setting max_unpack_ratio); "
                "this looks like a compression bomb"
            )

    def _check_gap(self, data: bytes) -> None:
        limit = self._limits.max_string_bytes
        first = data.find(b'"')
        if first < 0:
            self._gap += len(data)
        else:
            if self._gap + first > limit:
                self._fail_string()
            if len(data) > limit:  # a huge single read: look at every gap inside it
                pos = first
                while (nxt := data.find(b'"', pos + 1)) >= 0:
                    if nxt - pos - 1 > limit:
                        self._fail_string()
                    pos = nxt
            self._gap = len(data) - data.rfind(b'"') - 1
        if self._gap > limit:
            self._fail_string()

    def _fail_string(self) -> None:
        raise LimitExceeded(
            f"{self._name}: holds a JSON string or value longer than "
            f"{_mib(self._limits.max_string_bytes)} (setting max_string_mb); skipped"
        )


def open_zst(path: Path, limits: Limits) -> BoundedReader:
    """A `.zst` file as a bounded decompressed stream."""
    import zstandard

    fh = open(path, "rb")  # noqa: SIM115 - closed by the returned reader
    try:
        raw = zstandard.ZstdDecompressor().stream_reader(fh, closefd=True)
    except BaseException:
        fh.close()
        raise
    return BoundedReader(raw, str(path), limits, packed=max(path.stat().st_size, 1))  # type: ignore[arg-type]


def read_member(path: Path | str, zf: zipfile.ZipFile, name: str, limits: Limits) -> bytes:
    """The bytes of one zip member, after the declared-size and ratio checks."""
    info = zf.getinfo(name)
    check_member(path, info, limits)
    with zf.open(info) as f:
        return f.read()
