"""LongMemEval parser: every distinct haystack session of a `longmemeval_*.json[.gz]` file, streamed."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

import ijson

from ..errors import ParseError
from ..types import Session
from . import described
from .base import Message, ParseContext, as_utc, finish_session, normalize_role, open_binary, pair_turns

# "2023/05/20 (Sat) 02:21": the weekday is redundant, so it is not parsed (locale independent).
_DATE = re.compile(r"^\s*(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\(\w+\))?\s*(\d{1,2}):(\d{2})")
_READ_ERRORS = (ijson.JSONError, EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield `lme:<haystack_session_id>` sessions, each distinct id once, in file order.

    Questions share filler sessions, so an id recurs across haystacks; the first copy wins (a
    copy with different content is reported through `ctx.warn`, a different date is not).
    Turn ids are `lme:<sid>:<i>` with i the index of the turn's first message in the session,
    so `has_answer` message labels can be mapped to turns.
    """
    fingerprints: dict[str, str] = {}
    conflicts: set[str] = set()
    n_items = n_questions = 0
    with open_binary(path, ctx.limits) as f:
        try:
            for item in ijson.items(f, "item"):
                n_items += 1
                if not _is_question(item):
                    ctx.warn(f"{path}: element {n_items} is not a LongMemEval question; skipped")
                    continue
                n_questions += 1
                yield from _haystack(path, item, ctx, fingerprints, conflicts)
        except _READ_ERRORS as exc:
            if not n_questions:
                raise ParseError(
                    f"{path}: not readable as LongMemEval JSON ({_one_line(exc)}); "
                    "expected the benchmark's top-level array of questions"
                ) from exc
            ctx.mark_incomplete(
                f"{path}: file is truncated or corrupt after question {n_items} "
                f"({_one_line(exc)}); kept the sessions read so far"
            )
            return
    if not n_questions:
        raise ParseError(
            f"{path}: no LongMemEval questions found (expected a top-level array of objects "
            "with haystack_session_ids / haystack_dates / haystack_sessions)"
        )


def parse_date(value: object, tz: tzinfo) -> datetime | None:
    """`"2023/05/20 (Sat) 02:21"` (naive, read in `tz`) → aware UTC; None when unparseable."""
    if not isinstance(value, str):
        return None
    m = _DATE.match(value)
    if not m:
        return None
    try:
        return as_utc(datetime(*(int(g) for g in m.groups())), tz)
    except ValueError:
        return None


def _is_question(item: object) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("haystack_session_ids"), list)
        and isinstance(item.get("haystack_sessions"), list)
    )


def _haystack(
    path: Path, item: dict[str, Any], ctx: ParseContext, fingerprints: dict[str, str], conflicts: set[str]
) -> Iterator[Session]:
    ids, sessions = item["haystack_session_ids"], item["haystack_sessions"]
    dates = item.get("haystack_dates") if isinstance(item.get("haystack_dates"), list) else []
    qid = item.get("question_id", "?")
    if not (len(ids) == len(sessions) == len(dates)):
        ctx.warn(
            f"{path}: question {qid}: haystack ids/dates/sessions have different lengths "
            f"({len(ids)}/{len(dates)}/{len(sessions)}); extra entries ignored or undated"
        )
    for i, (sid, raw) in enumerate(zip(ids, sessions, strict=False)):
        sid = str(sid)
        if not isinstance(raw, list):
            ctx.warn(f"{path}: question {qid}: haystack session {sid} is not a list of messages; skipped")
            continue
        fp = _fingerprint(raw)
        if sid in fingerprints:
            if fingerprints[sid] != fp and sid not in conflicts:
                conflicts.add(sid)
                ctx.warn(
                    f"{path}: session {sid} appears again (question {qid}) with different content; "
                    "kept the first copy"
                )
            continue
        fingerprints[sid] = fp
        started = parse_date(dates[i], ctx.tz) if i < len(dates) else None
        if started is None and i < len(dates):
            ctx.warn(f"{path}: session {sid}: unreadable date {described.value(dates[i])}")
        session = _session(sid, raw, started)
        if session is not None:
            yield session


def _session(sid: str, raw: list[Any], started: datetime | None) -> Session | None:
    messages = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict):
            continue
        role = normalize_role(str(m.get("role", "")))
        content = m.get("content")
        if role is None or content is None:
            continue
        # the session date is the only time known; every turn carries it
        messages.append(
            Message(role, content if isinstance(content, str) else str(content), started, f"lme:{sid}:{i}")
        )
    return finish_session(
        Session(
            session_id=f"lme:{sid}",
            title="",
            started_at=started,
            participants=["user", "assistant"],
            turns=pair_turns(messages),
        )
    )


def _fingerprint(raw: list[Any]) -> str:
    """Content hash of a session's messages (roles and texts; labels such as has_answer ignored)."""
    pairs = [(m.get("role"), m.get("content")) if isinstance(m, dict) else m for m in raw]
    return hashlib.blake2b(json.dumps(pairs, default=str).encode(), digest_size=12).hexdigest()


def _one_line(exc: BaseException) -> str:
    """ijson's messages span several lines (with a caret diagram); keep them on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
