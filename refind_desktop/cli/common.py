"""Helpers shared by CLI commands: services, argument types, session ids, JSON output and progress display."""

from __future__ import annotations

import argparse
import calendar
import json
import re
import sys
from collections.abc import Callable
from datetime import date
from typing import Any

from ..config import load_settings
from ..errors import NotFoundError, UsageError
from ..index.catalog import SessionRecord
from ..services import Services, build_services
from ..terminal import printable


def services(**overrides: object) -> Services:
    """Services from the layered settings with CLI overrides."""
    return build_services(load_settings().replace(**overrides))


def day(value: str) -> date:
    """argparse type: a calendar day written YYYY-MM-DD; the error says what is wrong with it."""
    reason = day_problem(value)
    if reason:
        raise argparse.ArgumentTypeError(reason)
    return date.fromisoformat(value.strip())


def day_problem(value: str) -> str | None:
    """Why `value` is not a calendar day written YYYY-MM-DD ("month 13 is not a month"), or None."""
    text = value.strip()
    m = _DAY.fullmatch(text)
    if not m:
        return f"dates are written YYYY-MM-DD, e.g. 2025-03-01; got {printable(value, one_line=True)!r}"
    year, month, dom = (int(g) for g in m.groups())
    if year == 0:
        return f"year 0 is not a year (the calendar starts at 0001); got {text}"
    if not 1 <= month <= 12:
        return f"month {month} is not a month (01 to 12); got {text}"
    days = calendar.monthrange(year, month)[1]
    if not 1 <= dom <= days:
        return f"{calendar.month_name[month]} {year} has {days} days, so {dom} is not a day of it; got {text}"
    return None


_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def day_range(date_from: date | None, date_to: date | None) -> tuple[date | None, date | None]:
    """The --from/--to pair, with UsageError when the first day comes after the last."""
    if date_from and date_to and date_from > date_to:
        raise UsageError(f"--from {date_from} is after --to {date_to}: swap them (both days are included)")
    return date_from, date_to


def whole_number(least: int) -> Callable[[str], int]:
    """argparse type: an integer >= `least` (a clear error instead of a traceback or a silent clamp)."""

    def parse(value: str) -> int:
        try:
            n = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a whole number, got {printable(value, one_line=True)!r}"
            ) from None
        if n < least:
            raise argparse.ArgumentTypeError(f"must be {least} or more, got {n}")
        return n

    parse.__name__ = f"whole number >= {least}"
    return parse


non_negative = whole_number(0)
positive = whole_number(1)


def empty_archive_hint(svc: Services) -> str | None:
    """What to do when nothing is indexed yet (None when something is)."""
    if svc.catalog.session_count():
        return None
    return (
        "nothing is indexed yet: add chat exports with `refind ingest PATH` (files or folders), "
        "or find the chats on this machine with `refind sources discover`"
    )


HOST_HELP = (
    "only sessions from this machine: USER@HOST[:PORT] as added with `refind sources add`, the host "
    "name alone, or `local` for this machine's own"
)


def check_host(svc: Services, host: str | None) -> str | None:
    """`--host` as given, or NotFoundError naming the known hosts when it selects no machine."""
    if host is None:
        return None
    reason = svc.machines.unknown(host)
    if reason:
        raise NotFoundError(reason)
    return host


def pick_session(svc: Services, text: str) -> SessionRecord:
    """The session whose id is `text` or starts with it; an ambiguous prefix lists the candidates on
    stderr and raises NotFoundError, as does an id that matches nothing."""
    rec = svc.catalog.get_session(text)
    if rec is not None:
        return rec
    sids = svc.catalog.session_ids_starting(text, limit=CANDIDATES + 1) if text else []
    if len(sids) == 1:
        rec = svc.catalog.get_session(sids[0])
        if rec is not None:
            return rec
    shown = printable(text, one_line=True)
    if not sids:
        raise NotFoundError(f"no session {shown!r}; list them with `refind sessions`")
    more = " (and more)" if len(sids) > CANDIDATES else ""
    print(f"sessions whose id starts with {shown!r}{more}:", file=sys.stderr)
    for sid in sids[:CANDIDATES]:
        s = svc.catalog.get_session(sid)
        when = s.started_at.date().isoformat() if s and s.started_at else "????-??-??"
        print(printable(f"  {sid}  {when}  {s.title if s else ''}", one_line=True), file=sys.stderr)
    raise NotFoundError(f"{shown!r} is the start of several session ids; give more of it", "ambiguous id")


CANDIDATES = 10
"""At most this many sessions are listed for an ambiguous id prefix."""


def print_json(data: Any) -> None:
    """Stable, UTF-8 JSON on stdout."""
    sys.stdout.write(json_text(data) + "\n")


def json_text(data: Any) -> str:
    """JSON with C1 controls, bidi overrides and lone surrogates written as \\u escapes.

    The JSON encoder already escapes C0 controls (ESC is `\\u001b`); this escapes the rest, so a
    terminal that shows the JSON never obeys a control sequence from a chat file. The decoded
    values are unchanged.
    """
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    return text.translate(_JSON_ESCAPES)


_JSON_ESCAPES = {
    cp: f"\\u{cp:04x}"
    for cp in (
        0x7F,
        *range(0x80, 0xA0),
        0x061C,
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        *range(0xD800, 0xE000),
    )
}


class Progress:
    """A progress bar on stderr when it is a terminal; silent otherwise (and when `enabled` is False).

    With `turns`, the bar reads "files done/found", the turns added so far and the time left."""

    def __init__(self, label: str, enabled: bool = True, turns: bool = False) -> None:
        self.label = label
        self._bar = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
            if turns:
                columns += [
                    TextColumn("files, {task.fields[turns]} turns,"),
                    TimeRemainingColumn(),
                    TextColumn("left"),
                ]
            self._bar = RichProgress(
                *columns,
                TextColumn("{task.fields[note]}", markup=False),  # a file name is never markup
                transient=True,
                console=Console(stderr=True),
            )
            self._task = self._bar.add_task(label, total=None, note="", turns=0)
            self._bar.start()

    def update(self, done: int, total: int | None, note: str = "", turns: int | None = None) -> None:
        """Move the bar."""
        if self._bar is not None:
            extra = {} if turns is None else {"turns": f"{turns:,}"}
            shown = printable(note, one_line=True)[-60:]
            self._bar.update(self._task, completed=done, total=total, note=shown, **extra)

    def close(self) -> None:
        """Remove the bar."""
        if self._bar is not None:
            self._bar.stop()


_CONTROL = {c: "?" for c in [*range(32), *range(127, 160)] if chr(c) not in "\t"}


def safe(text: object) -> str:
    """A path or name from disk with control characters replaced, so no terminal sequence gets through."""
    return str(text).translate(_CONTROL)


def plural(n: int, noun: str) -> str:
    """ "1 place", "3 places"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def human_size(n: int) -> str:
    """Bytes as B/kB/MB/GB with one decimal."""
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"
