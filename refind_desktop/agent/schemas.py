"""JSON schemas of every controller output (validation lives in llm/schema.py, done once by the back end)."""

from __future__ import annotations

from typing import Any

from ..llm.schema import extract_json, validate

DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_KEYWORDS = {"type": "array", "items": {"type": "string", "maxLength": 60}, "minItems": 1, "maxItems": 8}
_DATE = {"type": ["string", "null"], "pattern": DATE_PATTERN}

__all__ = [
    "JUDGE_SCHEMA",
    "booleans",
    "choose_schema",
    "extract_json",
    "next_schema",
    "query_schema",
    "relevant_room",
    "relevant_schema",
    "validate",
]


def _obj(props: dict[str, Any]) -> dict:
    # every property required and no extras: valid for llama.cpp grammars and OpenAI strict outputs
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def booleans(*fields: str) -> dict:
    """A reply of yes/no fields, each required (the checks of agent/earn.py)."""
    return _obj({f: {"type": "boolean"} for f in fields})


def query_schema(dates: bool) -> dict:
    """A search: keywords (and, when allowed, a date range)."""
    props: dict[str, Any] = {"keywords": _KEYWORDS}
    if dates:
        props |= {"date_from": _DATE, "date_to": _DATE}
    return _obj(props)


def next_schema(dates: bool) -> dict:
    """After a search: search again (new keywords, optional dates) or finish."""
    props: dict[str, Any] = {
        "action": {"type": "string", "enum": ["search_chatrecord", "finish_search"]},
        "keywords": {**_KEYWORDS, "minItems": 0},
    }
    if dates:
        props |= {"date_from": _DATE, "date_to": _DATE}
    return _obj(props)


JUDGE_SCHEMA = _obj({"answer": {"type": "string", "enum": ["yes", "no"]}})
"""One search result: is it related to the question? (kept for custom controllers)"""


def relevant_schema(k: int) -> dict:
    """The batched relevance decision over one search's K results: the numbers worth keeping."""
    numbers = list(range(1, max(k, 1) + 1))
    return _obj(
        {"relevant": {"type": "array", "items": {"type": "integer", "enum": numbers}, "maxItems": max(k, 1)}}
    )


def relevant_room(k: int) -> int:
    """Tokens a relevance reply over K results may take: room for every number listed (a digit, a comma
    and a space each, about three tokens) and the JSON around them, so a reply that lists many results
    is not cut and asked again (32 tokens hold about eight numbers)."""
    return 32 + 3 * max(k, 1)


def choose_schema(k: int) -> dict:
    """take_note for a whole result list at once (the one-shot controller of strong models)."""
    return _obj({"indices": {"type": "array", "items": {"type": "integer"}, "maxItems": max(k, 1)}})
