"""Streaming JSON sources: a file, zip members or a folder's files, read one array element at a time.

Shared by the ChatGPT, Claude.ai, Open WebUI, Telegram and Discord readers: a top-level array is
read one element at a time with ijson, so a 1 GB export never sits in memory.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import ijson

from ..errors import ParseError
from ..types import Session
from .base import ParseContext
from .limits import BoundedReader, Limits, check_member, check_zip

CONVERSATIONS_MEMBER = re.compile(r"^conversations[^/]*\.json$", re.IGNORECASE)

# What a torn, truncated or corrupt file (or zip member) raises while it is being streamed.
STREAM_ERRORS = (ijson.JSONError, UnicodeDecodeError, zipfile.BadZipFile, zlib.error, EOFError, OSError)

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class JsonSource:
    """One JSON document to stream: a plain file or a member of a zip archive."""

    name: str
    opener: Callable[[], IO[bytes]]


def json_sources(
    path: Path, member: re.Pattern[str] = CONVERSATIONS_MEMBER, limits: Limits | None = None
) -> list[JsonSource]:
    """The JSON documents behind `path`: the file itself, matching zip members, or matching files of a dir.

    Zip members and directory entries are matched on their base name and returned in name order
    (so `conversations-000.json` comes before `conversations-001.json`). Every source is read
    through `limits` (member count, unpacked size, ratio, longest JSON string).
    """
    limits = limits or Limits()
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and member.match(p.name))
        if not files:
            raise ParseError(
                f"{path}: no file matching {member.pattern!r} in this folder; "
                "point refind at the export's conversations JSON or its .zip"
            )
        return [JsonSource(str(p), _file_opener(p, limits)) for p in files]
    suffix = path.suffix.lower()
    if suffix == ".zip" or (suffix != ".json" and zipfile.is_zipfile(path)):
        try:
            with zipfile.ZipFile(path) as zf:
                check_zip(path, zf, limits)
                names = sorted(
                    n
                    for n in zf.namelist()
                    if not n.endswith("/")
                    and not n.startswith("__MACOSX/")
                    and member.match(n.rsplit("/", 1)[-1])
                )
                for n in names:
                    check_member(path, zf.getinfo(n), limits)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ParseError(f"{path}: not a readable zip archive ({exc}); re-download the export") from exc
        if not names:
            raise ParseError(
                f"{path}: the archive holds no file matching {member.pattern!r}; is this the right export?"
            )
        return [JsonSource(f"{path}:{n}", _member_opener(path, n, limits)) for n in names]
    return [JsonSource(str(path), _file_opener(path, limits))]


def file_source(path: Path, limits: Limits) -> JsonSource:
    """A plain JSON file as a source, read with the string-length bound."""
    return JsonSource(str(path), _file_opener(path, limits))


def _file_opener(path: Path, limits: Limits) -> Callable[[], IO[bytes]]:
    return lambda: BoundedReader(open(path, "rb"), str(path), limits, json=True)  # type: ignore[return-value]


class _MemberFile:
    """A zip member opened for reading that closes its archive with it."""

    def __init__(self, archive: Path, name: str, limits: Limits) -> None:
        self._zf = zipfile.ZipFile(archive)
        try:
            info = self._zf.getinfo(name)
            self._fp = BoundedReader(
                self._zf.open(info), f"{archive}!{name}", limits, packed=max(info.compress_size, 1), json=True
            )
        except BaseException:
            self._zf.close()
            raise

    def read(self, size: int = -1) -> bytes:
        return self._fp.read(size)

    def close(self) -> None:
        self._fp.close()
        self._zf.close()

    def __enter__(self) -> _MemberFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _member_opener(archive: Path, name: str, limits: Limits) -> Callable[[], IO[bytes]]:
    return lambda: _MemberFile(archive, name, limits)  # type: ignore[return-value]


def open_json(src: JsonSource) -> tuple[IO[bytes], bytes]:
    """Open `src` positioned after an optional UTF-8 BOM; also return its first non-blank byte.

    The caller closes the returned file.
    """
    with src.opener() as f:
        head = f.read(4096)
    skip = len(_BOM) if head.startswith(_BOM) else 0
    first = head[skip:].lstrip()[:1]
    f = src.opener()
    if skip:
        f.read(skip)
    return f, first


def _has_top_key(src: JsonSource, key: str) -> bool:
    """Whether the top-level JSON object of `src` has `key` (scans the file, holds nothing)."""
    f, _ = open_json(src)
    with f:
        for prefix, event, value in ijson.parse(f, use_float=True):
            if prefix == "" and event == "map_key" and value == key:
                return True
    return False


def iter_records(src: JsonSource, wrapper_key: str | None = None) -> Iterator[Any]:
    """Yield the elements of a top-level JSON array one at a time.

    A top-level object is either a wrapper holding the array under `wrapper_key` (streamed too) or
    a single record (yielded whole). Raises one of STREAM_ERRORS on torn or invalid JSON.
    """
    f, first = open_json(src)
    with f:
        if first == b"[":
            prefix = "item"
        elif first == b"{":
            prefix = f"{wrapper_key}.item" if wrapper_key and _has_top_key(src, wrapper_key) else ""
        else:
            raise ijson.JSONError("not a JSON array or object" if first else "the file is empty")
        yield from ijson.items(f, prefix, use_float=True)


def stream_sessions(
    path: Path,
    ctx: ParseContext,
    build: Callable[[Any, str], Session | None],
    *,
    what: str,
    wrapper_key: str | None = None,
    member: re.Pattern[str] = CONVERSATIONS_MEMBER,
    records: Callable[[JsonSource], Iterator[Any]] | None = None,
) -> Iterator[Session]:
    """Stream every record of every source behind `path` through `build`, yielding the sessions.

    Records come from `records(source)` when given, else from `iter_records(source, wrapper_key)`.

    `build(record, source_name)` returns a session or None; any KeyError/TypeError/ValueError/
    AttributeError it raises marks that record malformed (warned, skipped). A source that breaks
    off midway (truncated download) is warned about and the sessions already yielded stand; when
    nothing at all could be yielded and a source failed, ParseError is raised.
    """
    yielded = 0
    failures: list[str] = []
    for src in json_sources(path, member, ctx.limits):
        count = 0
        try:
            for record in records(src) if records else iter_records(src, wrapper_key):
                count += 1
                try:
                    session = build(record, src.name)
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    ctx.warn(
                        f"{src.name}: {what} #{count} is malformed and was skipped ({type(exc).__name__})"
                    )
                    continue
                if session is not None:
                    yielded += 1
                    yield session
        except STREAM_ERRORS as exc:
            reason = error_reason(exc)
            failures.append(f"{src.name}: {reason}")
            ctx.mark_incomplete(
                f"{src.name}: reading stopped after {count} {what}(s): {reason}; "
                "the file looks truncated or corrupt, re-download the export to get the rest"
            )
    if failures and not yielded:
        raise ParseError(
            f"{path}: no {what} could be read ({'; '.join(failures)}); "
            "check that the file is a complete, unmodified export"
        )


def error_reason(exc: BaseException) -> str:
    """One line saying why a stream failed (ijson's multi-line messages cut to their first line)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
