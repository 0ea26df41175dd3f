"""Shared parser contract and helpers: messages, turn pairing, timestamp parsing, parse context."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import IO, Any, Protocol

from ..types import Session, Turn

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
    """What a parser needs besides the path: the zone for naive times and a warning sink."""

    tz: tzinfo = timezone.utc
    warnings: list[str] = field(default_factory=list)
    incomplete: bool = False

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


def join_pair(user_text: str, assistant_texts: list[str]) -> str:
    """Verbatim turn text for assistant-style sources: labelled user part then assistant part."""
    parts = []
    if user_text:
        parts.append(f"User: {user_text}")
    reply = "\n\n".join(t for t in assistant_texts if t)
    if reply:
        parts.append(f"Assistant: {reply}")
    return "\n\n".join(parts)


def pair_turns(messages: Iterable[Message]) -> list[Turn]:
    """Group user/assistant messages into turns: one user message plus the replies that follow.

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
        text = join_pair(cur_user.text if cur_user else "", [m.text for m in replies])
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


def open_binary(path: Path) -> IO[bytes]:
    """Open a file for reading bytes, transparently gunzipping it when it starts with the gzip magic."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gzipped else open(path, "rb")


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
    Pass `stats` to learn afterwards whether anything decoded (e.g. to reject a non-JSONL file).
    """
    stats = stats if stats is not None else JsonlStats()
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
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
