"""LoCoMo parser: one multi-party session per `session_N` of each conversation (`locomo*.json[.gz]`)."""

from __future__ import annotations

import gzip
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
from .base import MONTH_NAMES, Message, ParseContext, as_utc, finish_session, multiparty_turns, open_binary

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_READ_ERRORS = (ijson.JSONError, EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield `locomo:<sample_id>:session_<N>` sessions; turn ids are the dialog ids (`D1:3`)."""
    n_items = n_samples = 0
    with open_binary(path, ctx.limits) as f:
        try:
            for sample in ijson.items(f, "item"):
                n_items += 1
                conv = sample.get("conversation") if isinstance(sample, dict) else None
                if not isinstance(conv, dict):
                    ctx.warn(f"{path}: element {n_items} has no `conversation` object; skipped")
                    continue
                n_samples += 1
                yield from _sessions(path, str(sample.get("sample_id") or f"sample-{n_items}"), conv, ctx)
        except _READ_ERRORS as exc:
            if not n_samples:
                raise ParseError(
                    f"{path}: not readable as LoCoMo JSON ({_one_line(exc)}); "
                    "expected a top-level array of conversations"
                ) from exc
            ctx.mark_incomplete(
                f"{path}: file is truncated or corrupt after conversation {n_items} "
                f"({_one_line(exc)}); kept the sessions read so far"
            )
            return
    if not n_samples:
        raise ParseError(
            f"{path}: no LoCoMo conversations found (expected a top-level array of objects "
            "with a `conversation` holding session_N lists)"
        )


def parse_date(value: object, tz: tzinfo) -> datetime | None:
    """`"1:56 pm on 8 May, 2023"` (naive, read in `tz`) → aware UTC; None when unparseable.

    Parsed by hand rather than with strptime's `%p`/`%B`, which depend on the process locale.
    """
    m = _DATE.match(value) if isinstance(value, str) else None
    if not m or m.group(5).lower() not in MONTH_NAMES:
        return None
    hour, minute, half, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    try:
        return as_utc(datetime(int(year), MONTH_NAMES.index(month.lower()) + 1, int(day), h, int(minute)), tz)
    except ValueError:
        return None


def _sessions(path: Path, sample_id: str, conv: dict[str, Any], ctx: ParseContext) -> Iterator[Session]:
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.match(k)))
    participants = [str(conv[k]) for k in ("speaker_a", "speaker_b") if conv.get(k)]
    for n in numbers:
        dialog = conv[f"session_{n}"]
        if not isinstance(dialog, list):
            ctx.warn(f"{path}: {sample_id} session_{n} is not a list of dialog turns; skipped")
            continue
        raw_date = conv.get(f"session_{n}_date_time")
        started = parse_date(raw_date, ctx.tz)
        if started is None and raw_date is not None:
            ctx.warn(f"{path}: {sample_id} session_{n}: unreadable date {described.value(raw_date)}")
        messages = []
        for entry in dialog:
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
                ctx.warn(f"{path}: {sample_id} session_{n}: dialog entry without text; skipped")
                continue
            text = entry["text"]
            caption = entry.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                text = f"{text} [image: {caption.strip()}]" if text else f"[image: {caption.strip()}]"
            # the session date is the only time known; every turn carries it
            messages.append(
                Message(str(entry.get("speaker") or ""), text, started, str(entry.get("dia_id") or ""))
            )
        speakers = participants + [m.role for m in messages if m.role and m.role not in participants]
        session = finish_session(
            Session(
                session_id=f"locomo:{sample_id}:session_{n}",
                title="",
                started_at=started,
                participants=list(dict.fromkeys(speakers)),
                turns=multiparty_turns(messages),
            )
        )
        if session is not None:
            for t in session.turns:
                t.turn_id = t.turn_id or f"{session.session_id}:{t.index}"
            yield session


def _one_line(exc: BaseException) -> str:
    """ijson's messages span several lines (with a caret diagram); keep them on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
