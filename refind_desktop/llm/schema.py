"""The one JSON-Schema check of model output (the subset our schemas use) and JSON parsing of replies.

Every back end validates a schema-constrained reply here exactly once (`parse_json_output`); the agent
trusts `Completion.data` and checks only its own rules (dates, result numbers) on top.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import InvalidOutputError, TruncatedOutputError

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "null": (type(None),),
}


def schema_errors(data: Any, schema: dict, path: str = "$") -> list[str]:
    """Problems of `data` under `schema` (type, enum, const, required, properties,
    additionalProperties, items, length and range bounds, anyOf/oneOf); empty when valid."""
    errors: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        ok = any(
            isinstance(data, _TYPES.get(k, (object,)))
            and not (k in ("integer", "number") and isinstance(data, bool))
            for k in kinds
        )
        if not ok:
            return [f"{path}: expected {'/'.join(kinds)}, got {type(data).__name__}"]
    if "enum" in schema and data not in schema["enum"]:
        errors.append(f"{path}: {data!r} not one of {schema['enum']!r}")
    if "const" in schema and data != schema["const"]:
        errors.append(f"{path}: must be {schema['const']!r}")
    for key in ("anyOf", "oneOf"):
        if key in schema and all(schema_errors(data, sub, path) for sub in schema[key]):
            errors.append(f"{path}: matches none of {key}")
    if isinstance(data, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in data:
                errors.append(f"{path}: missing {name!r}")
        for name, value in data.items():
            if name in props:
                errors.extend(schema_errors(value, props[name], f"{path}.{name}"))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected {name!r}")
    if isinstance(data, list):
        if "items" in schema:
            for i, item in enumerate(data):
                errors.extend(schema_errors(item, schema["items"], f"{path}[{i}]"))
        if len(data) < schema.get("minItems", 0) or len(data) > schema.get("maxItems", len(data)):
            errors.append(f"{path}: {len(data)} items outside the allowed count")
    if isinstance(data, str) and not (
        schema.get("minLength", 0) <= len(data) <= schema.get("maxLength", len(data))
    ):
        errors.append(f"{path}: length {len(data)} outside the allowed bounds")
    if isinstance(data, str) and "pattern" in schema and not re.search(schema["pattern"], data):
        errors.append(f"{path}: {data[:40]!r} does not match {schema['pattern']}")
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        if "minimum" in schema and data < schema["minimum"]:
            errors.append(f"{path}: below {schema['minimum']}")
        if "maximum" in schema and data > schema["maximum"]:
            errors.append(f"{path}: above {schema['maximum']}")
    return errors


def validate(data: Any, schema: dict) -> str | None:
    """The problems of `data` under `schema` as one sentence, or None when it is valid."""
    problems = schema_errors(data, schema)
    return "; ".join(problems[:3]) if problems else None


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


OUTPUT_MARK = " Output began: "
"""Where an invalid-output message starts quoting the model's text (a retry prompt leaves it out: the
text may echo chat text, which enters a prompt only inside a data section)."""


def parse_json_output(text: str, schema: dict, who: str, truncated: bool = False) -> Any:
    """Parse a model's JSON answer and check it against `schema`; BackendError says what to change."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = (
            "the output was cut at max_tokens: raise max_tokens or bound free-text fields with maxLength"
            if truncated
            else "retry, or use a larger model"
        )
        error = TruncatedOutputError if truncated else InvalidOutputError
        raise error(
            f"{who} returned invalid JSON ({exc.msg} at char {exc.pos}); {hint}.{OUTPUT_MARK}{text[:200]!r}"
        ) from exc
    problems = schema_errors(data, schema)
    if problems:
        raise InvalidOutputError(
            f"{who} returned JSON that does not fit the schema: {'; '.join(problems[:5])}"
        )
    return data
