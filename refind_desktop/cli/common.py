"""Helpers shared by CLI commands: services, dates, JSON output and progress display."""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Any

from ..config import load_settings
from ..errors import ConfigError
from ..services import Services, build_services
from ..terminal import printable


def services(**overrides: object) -> Services:
    """Services from the layered settings with CLI overrides."""
    return build_services(load_settings().replace(**overrides))


def parse_day(value: str | None) -> date | None:
    """YYYY-MM-DD → date (None passes through)."""
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise ConfigError(f"dates are written YYYY-MM-DD, got {value!r}") from exc


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
