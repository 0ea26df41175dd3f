"""JSON schemas of every controller output, a small validator for them, and JSON extraction from text."""

from __future__ import annotations

import json
import re
from typing import Any

DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_KEYWORDS = {"type": "array", "items": {"type": "string", "maxLength": 60}, "minItems": 1, "maxItems": 8}
_DATE = {"type": ["string", "null"], "pattern": DATE_PATTERN}


def _obj(props: dict[str, Any]) -> dict:
    # every property required and no extras: valid for llama.cpp grammars and OpenAI strict outputs
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def query_schema(dates: bool) -> dict:
    """First search of a question: keywords (and, when allowed, a date range)."""
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
"""One search result: is it related to the question?"""


def choose_schema(k: int) -> dict:
    """take_note for a whole result list at once: the numbers worth saving."""
    return _obj({"indices": {"type": "array", "items": {"type": "integer"}, "maxItems": max(k, 1)}})


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def validate(value: Any, schema: dict, path: str = "$") -> str | None:
    """The first violation of `schema` (the subset used above) as a sentence, or None when valid."""
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        ok = False
        for name in names:
            if name == "integer":
                ok = ok or (isinstance(value, int) and not isinstance(value, bool))
            elif name == "number":
                ok = ok or (isinstance(value, int | float) and not isinstance(value, bool))
            else:
                ok = ok or isinstance(value, _TYPES[name])
        if not ok:
            return f"{path} must be {' or '.join(names)}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path} must be one of {', '.join(map(str, schema['enum']))}"
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{path} is longer than {schema['maxLength']} characters"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return f"{path} does not match {schema['pattern']}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{path} needs at least {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{path} has more than {schema['maxItems']} items"
        for i, item in enumerate(value):
            err = validate(item, schema.get("items", {}), f"{path}[{i}]")
            if err:
                return err
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}.{key} is missing"
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(props))
            if extra:
                return f"{path} has unknown field {extra[0]!r}"
        for key, sub in props.items():
            if key in value:
                err = validate(value[key], sub, f"{path}.{key}")
                if err:
                    return err
    return None


def extract_json(text: str) -> Any:
    """The JSON value in a model's text (whole text, else the first {...} span); ValueError if none."""
    text = text.strip()
    if text.startswith("```"):
        text = re.sub(r"^```\w*\s*|\s*```$", "", text)
    try:
        return json.loads(text)
    except ValueError:
        pass
    start = text.find("{")
    while start != -1:
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:])
            return value
        except ValueError:
            start = text.find("{", start + 1)
    raise ValueError("no JSON object in the output")
