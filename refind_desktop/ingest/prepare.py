"""Per-session checks before indexing: scrub invalid text, drop out-of-range timestamps, hash the turns."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone

from ..index.schema import TS_MAX, TS_MIN
from ..terminal import scrub
from ..types import Session
from .base import ParseContext

# a turn stamped outside the index's date span (TS_MIN..TS_MAX) keeps its text and loses only its timestamp


def turn_hash(text: str, speaker: str, ts: object) -> str:
    """Short fingerprint of a turn's content, used to find what changed in a re-read file."""
    return hashlib.blake2b(f"{speaker}\x1f{ts}\x1f{text}".encode(), digest_size=6).hexdigest()


def prepare_session(s: Session, source: str, ctx: ParseContext) -> tuple[str, ...]:
    """Drop out-of-range timestamps (say so), date undated turns by the session, return turn hashes.

    Lone surrogates (a JSON `\\udf79` escape, undecodable bytes) become U+FFFD: the index
    and catalog store only valid UTF-8.
    """
    s.session_id, s.title = scrub(s.session_id), scrub(s.title or "")
    s.participants = [scrub(p) for p in s.participants or []]
    for t in s.turns:
        t.text, t.speaker = scrub(t.text), scrub(t.speaker or "")
    bad = 0
    for t in s.turns:
        if t.timestamp is not None and not _in_range(t.timestamp):
            t.timestamp = None
            bad += 1
    if s.started_at is not None and not _in_range(s.started_at):
        s.started_at = None
        bad += 1
    if bad:
        ctx.warn(
            f"{source}: session {s.session_id}: {bad} timestamps outside 1678-2261 dropped "
            "(the turns are kept, undated)"
        )
    for t in s.turns:
        if t.timestamp is None:
            t.timestamp = s.started_at
    return tuple(turn_hash(t.text, t.speaker, t.timestamp) for t in s.turns)


def alt_id(sid: str, source: str) -> str:
    """Id of a differing copy of session `sid` found in another file: unique per source."""
    return f"{sid}@{hashlib.blake2b(source.encode(), digest_size=4).hexdigest()}"


def _in_range(dt: datetime) -> bool:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    try:
        return TS_MIN <= dt <= TS_MAX
    except (OverflowError, ValueError):
        return False
