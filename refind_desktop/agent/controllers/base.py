"""The controller protocol (stage 1: search and take notes into a Run) and the choice of one by setting."""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Protocol

from ...errors import ConfigError
from .. import prompts
from ..run import Run
from ..schemas import query_schema

CONTROLLERS = ("small", "reader", "oneshot")
"""Names the `controller` setting takes besides "auto"."""


class Controller(Protocol):
    """Fills `run.notes` by searching; ends with `run.finish(reason)`."""

    name: str

    def collect(self, run: Run) -> None:
        """Stage 1 for one question."""
        ...


_JUNK = re.compile(r"^(\d{4}-\d{2}(-\d{2})?|date_from|date_to|keywords?|null|none|\.\.\.)$", re.IGNORECASE)
_SMALL = re.compile(r"(?<![\d.])(0\.5|1\.5|1|2|3)\s*b\b", re.IGNORECASE)


def controller_for(backend: Any, setting: str = "auto") -> str:
    """ "small" or "oneshot": the setting when it names one, else the back end's catalog hint, else
    "small" for local GGUF models and models whose name says 0.5B-3B, "oneshot" for other served models."""
    setting = (setting or "auto").strip().lower()
    if setting in CONTROLLERS:
        return setting
    if setting != "auto":
        raise ConfigError(f"unknown controller {setting!r}; choose auto, {', '.join(CONTROLLERS)}")
    hint = getattr(backend, "controller_hint", None)
    if hint in CONTROLLERS:
        return hint
    label = f"{getattr(backend, 'model', '')} {getattr(backend, 'model_path', '')}"
    if _SMALL.search(label) or getattr(backend, "name", "") != "openai":
        return "small"
    return "oneshot"


def parse_day(value: Any, label: str) -> tuple[date | None, str | None]:
    """A YYYY-MM-DD from the model (None for null/empty), or an error sentence."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    try:
        return date.fromisoformat(str(value).strip().replace("/", "-")), None
    except ValueError:
        return None, f"{label} {value!r} is not a date (YYYY-MM-DD)"


def check_search(
    run: Run, data: dict
) -> tuple[tuple[list[str], date | None, date | None] | None, str | None]:
    """The program's rules on a search the model asked for: keywords present, dates valid and ordered."""
    keywords = list(dict.fromkeys(k.strip() for k in data.get("keywords", []) if k and k.strip()))
    keywords = [k for k in keywords if not _JUNK.match(k)]  # dates and field names are not search words
    if not keywords:
        return None, "keywords are empty; give 1-6 keywords"
    d_from, err = parse_day(data.get("date_from"), "date_from")
    if err:
        return None, err
    d_to, err = parse_day(data.get("date_to"), "date_to")
    if err:
        return None, err
    if d_from and d_to and d_from > d_to:
        return None, f"date_from {d_from} is after date_to {d_to}"
    if d_from and d_from > run.today:
        return None, f"date_from {d_from} is after today ({run.today})"
    return (keywords, d_from, d_to), None


def model_query(run: Run, max_tokens: int, dates: bool = False) -> tuple | None:
    """One model-written search (keywords not used before in `run`, a date range when `dates`),
    checked by `check_search`; None when the model never gave a valid one."""
    return run.ask(
        "query",
        prompts.keywords_prompt(run.head, run.used, dates),
        query_schema(dates),
        max_tokens,
        lambda d: check_search(run, d),
    )
