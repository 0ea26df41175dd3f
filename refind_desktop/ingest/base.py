"""Shared parser contract and helpers: messages, turn pairing, timestamp parsing, parse context."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import IO, Any, Protocol

from ..errors import ParseError
from ..types import Session, Turn
from .conversations import SplitRule
from .decoding import bom_encoding, bomless_utf16
from .limits import BoundedReader, Limits, open_zst

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

USER_ROLES = {"user", "human", "you", "me"}
ASSISTANT_ROLES = {"assistant", "ai", "bot", "gpt", "model", "chatgpt", "claude", "gemini", "char"}
SKIP_ROLES = {"system", "tool", "function", "developer"}


@dataclass(slots=True)
class Message:
    """One visible message before it is grouped into turns."""

    role: str  # "user", "assistant", or a speaker name for multi-party sources
    text: str
    timestamp: datetime | None = None
    msg_id: str = ""


@dataclass
class ParseContext:
    """What a parser needs besides the path: the zone for naive times, the rule that cuts a messenger
    chat into conversations, and a warning sink."""

    tz: tzinfo = timezone.utc
    warnings: list[str] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    incomplete: bool = False
    split: SplitRule | None = None
    """Where a messenger chat's conversations begin (None: the default rule in `tz`)."""

    def conversations(self) -> SplitRule:
        """The split rule in force: `split`, else the default rule in the parse zone."""
        return self.split or SplitRule(tz=self.tz)

    def warn(self, message: str) -> None:
        """Record a non-fatal problem (a skipped message, a torn last line)."""
        self.warnings.append(message)

    def mark_incomplete(self, message: str) -> None:
        """The file could only be read in part (truncated export): keep what was read, delete nothing."""
        self.incomplete = True
        self.warn(message)


class FormatParser(Protocol):
    """Every format module exposes `parse(path, ctx) -> Iterator[Session]`."""

    def __call__(self, path: Path, ctx: ParseContext) -> Iterator[Session]: ...


def normalize_role(role: str | None) -> str | None:
    """Map a source role to "user"/"assistant"; None for roles that are skipped."""
    r = (role or "").strip().lower()
    if r in USER_ROLES:
        return "user"
    if r in ASSISTANT_ROLES:
        return "assistant"
    return None


def join_pair(
    user_text: str, assistant_texts: list[str], user_label: str = "User", assistant_label: str = "Assistant"
) -> str:
    """Verbatim turn text for assistant-style sources: labelled user part then assistant part."""
    parts = []
    if user_text:
        parts.append(f"{user_label}: {user_text}")
    reply = "\n\n".join(t for t in assistant_texts if t)
    if reply:
        parts.append(f"{assistant_label}: {reply}")
    return "\n\n".join(parts)


def pair_turns(
    messages: Iterable[Message], user_label: str = "User", assistant_label: str = "Assistant"
) -> list[Turn]:
    """Group user/assistant messages into turns: one user message plus the replies that follow.

    The labels name the two sides in the turn text (a role-play chat uses the persona names).

    An assistant message with no user message before it becomes a turn with empty user text.
    Messages whose role is neither user nor assistant are ignored.
    """
    turns: list[Turn] = []
    cur_user: Message | None = None
    replies: list[Message] = []

    def flush() -> None:
        if cur_user is None and not replies:
            return
        first = cur_user or replies[0]
        text = join_pair(
            cur_user.text if cur_user else "", [m.text for m in replies], user_label, assistant_label
        )
        if not text.strip():
            return
        ts = first.timestamp or next((m.timestamp for m in replies if m.timestamp), None)
        speaker = "user+assistant" if cur_user and replies else ("user" if cur_user else "assistant")
        turns.append(Turn(index=len(turns), text=text, speaker=speaker, timestamp=ts, turn_id=first.msg_id))

    for m in messages:
        if m.role == "user":
            flush()
            cur_user, replies = m, []
        elif m.role == "assistant":
            replies.append(m)
    flush()
    return turns


def multiparty_turns(messages: Iterable[Message]) -> list[Turn]:
    """One message = one turn, with its speaker (WhatsApp, Telegram, Slack, Discord, LoCoMo)."""
    turns: list[Turn] = []
    for m in messages:
        if not m.text.strip():
            continue
        turns.append(
            Turn(index=len(turns), text=m.text, speaker=m.role, timestamp=m.timestamp, turn_id=m.msg_id)
        )
    return turns


_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")


def parse_timestamp(value: object, tz: tzinfo = timezone.utc) -> datetime | None:
    """Parse epoch seconds/milliseconds (number or numeric string) or ISO-8601 into aware UTC.

    Values above 1e12 are milliseconds. Naive ISO strings are read in `tz`. Unparseable → None.
    """
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)) or (isinstance(value, str) and _NUMERIC.match(value.strip())):
            x = float(value)
            if x <= 0:
                return None
            if x > 1e12:
                x /= 1000.0
            return datetime.fromtimestamp(x, tz=timezone.utc)
        if isinstance(value, str):
            s = value.strip()
            if s.endswith("Z") or s.endswith("z"):
                s = s[:-1] + "+00:00"
            dt = datetime.fromisoformat(s)
            return as_utc(dt, tz)
        if isinstance(value, datetime):
            return as_utc(value, tz)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def as_utc(dt: datetime, tz: tzinfo = timezone.utc) -> datetime:
    """Attach `tz` to a naive datetime, then convert to UTC."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(timezone.utc)


MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
"""English month names, lower case, January first (for exports that write dates out in words)."""


def stable_id(*parts: str) -> str:
    """Short stable hash for sources without ids (text exports)."""
    return hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def finish_session(session: Session) -> Session | None:
    """Fill `started_at` from the first timed turn; drop sessions without turns."""
    if not session.turns:
        return None
    for i, t in enumerate(session.turns):
        t.index = i
    if session.started_at is None:
        session.started_at = next((t.timestamp for t in session.turns if t.timestamp), None)
    return session


def open_binary(path: Path, limits: Limits | None = None) -> IO[bytes]:
    """Open a file for reading bytes, transparently gunzipping it when it starts with the gzip magic.

    With `limits`, a gzip stream is bounded (unpacked size and ratio) and JSON strings are bounded.
    """
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    raw: IO[bytes] = gzip.open(path, "rb") if gzipped else open(path, "rb")  # type: ignore[assignment]
    if limits is None:
        return raw
    packed = max(Path(path).stat().st_size, 1) if gzipped else 0
    return BoundedReader(raw, str(path), limits, packed=packed, json=True)  # type: ignore[return-value]


@dataclass
class JsonlStats:
    """What `iter_jsonl` saw: decoded lines, malformed complete lines, and a torn last line."""

    valid: int = 0
    malformed: int = 0
    torn: bool = False


def iter_jsonl(path: Path, ctx: ParseContext, stats: JsonlStats | None = None) -> Iterator[tuple[int, Any]]:
    """Yield (line number, decoded value) for each JSON line of a (possibly live) JSONL file.

    Blank lines are skipped. A malformed line is skipped with a warning; a torn last line
    (no trailing newline, half-written by a live writer) is skipped with a warning too.
    Lines are read by `text_lines` (UTF-16/32, cp1252 fallback with a warning, `.zst`, length bound).
    Pass `stats` to learn afterwards whether anything decoded (e.g. to reject a non-JSONL file).
    """
    stats = stats if stats is not None else JsonlStats()
    for lineno, line in text_lines(path, ctx):
        if line is None:
            stats.malformed += 1
            continue
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except RecursionError:
            stats.malformed += 1
            ctx.warn(f"{path}: line {lineno} is nested too deeply to read; skipped")
            continue
        except ValueError:
            if line.endswith("\n"):
                stats.malformed += 1
                ctx.warn(f"{path}: line {lineno} is not valid JSON; skipped")
            else:
                stats.torn = True
                ctx.warn(f"{path}: last line {lineno} is incomplete (file still being written?); skipped")
            continue
        stats.valid += 1
        yield lineno, value


def jsonl_objects(path: Path, ctx: ParseContext, really: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """`iter_jsonl`'s lines that are JSON objects, each (line number, object); any other value is skipped
    with a warning. A file whose lines decode but none is an object raises ParseError once read to the end
    ("no line is a JSON object; is this really {really}")."""
    stats = JsonlStats()
    objects = 0
    for lineno, value in iter_jsonl(path, ctx, stats):
        if not isinstance(value, dict):
            ctx.warn(f"{path}: line {lineno} is not a JSON object; skipped")
            continue
        objects += 1
        yield lineno, value
    if not objects and (stats.valid or stats.malformed):
        raise ParseError(f"{path}: no line is a JSON object; is this really {really}")


def text_lines(path: Path, ctx: ParseContext) -> Iterator[tuple[int, str | None]]:
    """(line number, text with its line ending) for each line of a JSONL/text file.

    UTF-16/32 files (BOM, or BOM-less UTF-16) are decoded as such; lines that are not UTF-8 are
    read as cp1252 and one warning says how many; a line longer than `ctx.limits.max_string_bytes`
    is skipped with a warning (yielded as None); a `.zst` file is decompressed (bounded).
    """
    limit = ctx.limits.max_string_bytes
    not_utf8 = 0
    with open_jsonl(path, ctx.limits) as f:
        head = f.peek(4096)[:4096]  # type: ignore[attr-defined]
        wide = bom_encoding(head) or (bomless_utf16(head) if b"\x00" in head else None)
        lines = _wide_lines(f, wide, limit) if wide else _byte_lines(f, limit)
        for lineno, (line, ok) in enumerate(lines, 1):
            if not ok and line == "long":
                ctx.warn(
                    f"{path}: line {lineno} is longer than {limit >> 20} MiB (setting max_string_mb); skipped"
                )
                yield lineno, None
                continue
            not_utf8 += not ok
            yield lineno, line
    if not_utf8:
        ctx.warn(
            f"{path}: {not_utf8} line(s) are not UTF-8 and were read as cp1252 (Windows/latin-1); "
            "check accented characters, or re-save the file as UTF-8"
        )


def open_jsonl(path: Path, limits: Limits) -> IO[bytes]:
    """A JSONL file as a buffered binary stream; `.zst` files are decompressed (bounded)."""
    with open(path, "rb") as f:
        magic = f.read(4)
    if magic == ZSTD_MAGIC:
        return io.BufferedReader(open_zst(path, limits))  # type: ignore[arg-type]
    return open(path, "rb")


def _byte_lines(f: IO[bytes], limit: int) -> Iterator[tuple[str, bool]]:
    """(text, ok) per line: ok is False for a cp1252 fallback line; ("long", False) for an over-long one."""
    first = True
    while raw := f.readline(limit + 1):
        if len(raw) > limit and not raw.endswith(b"\n"):
            while (rest := f.readline(limit)) and not rest.endswith(b"\n"):
                pass
            yield "long", False
            continue
        if first and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        first = False
        try:
            yield raw.decode("utf-8"), True
        except UnicodeDecodeError:
            yield raw.decode("cp1252", errors="replace"), False


def _wide_lines(f: IO[bytes], encoding: str, limit: int) -> Iterator[tuple[str, bool]]:
    """(text, True) per line of a UTF-16/32 file; ("long", False) for an over-long line."""
    text = io.TextIOWrapper(f, encoding=encoding, errors="replace", newline="")  # type: ignore[arg-type]
    while line := text.readline(limit + 1):
        if len(line) > limit and not line.endswith("\n"):
            while (rest := text.readline(limit)) and not rest.endswith("\n"):
                pass
            yield "long", False
            continue
        yield line.lstrip("\ufeff"), True


def fill_turn_times(turns: list[Turn], default: datetime | None) -> None:
    """Give untimed turns the previous turn's time (the session start for leading ones)."""
    last = default
    for t in turns:
        if t.timestamp is None:
            t.timestamp = last
        else:
            last = t.timestamp


def roles_present(messages: list[Message]) -> list[str]:
    """The distinct roles of `messages` in first-seen order (session participants)."""
    return list(dict.fromkeys(m.role for m in messages))
