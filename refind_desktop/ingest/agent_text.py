"""Text helpers shared by the coding-agent readers: marked tool output, titles, JSON loading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ParseError

TOOL_OUTPUT_CHARS = 4000
"""Longest tool output kept verbatim in a turn; the rest is cut with a marker saying how much."""
TITLE_CHARS = 80


def clip(text: str, limit: int = TOOL_OUTPUT_CHARS) -> str:
    """`text` cut to `limit` characters, with a marker saying how many were left out."""
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n[... {len(text) - limit} more characters of tool output]"


def tool_text(name: str, detail: str = "", output: str = "") -> str:
    """A tool call and its output as turn text, marked so readers and the answer stage know what it is."""
    head = f"[tool: {name.strip() or 'tool'}]"
    if detail.strip():
        head += " " + " ".join(detail.split())[:300]
    output = output.strip("\n")
    if not output.strip():
        return head
    return f"{head}\n[tool output]\n{clip(output)}\n[end tool output]"


def args_text(args: object) -> str:
    """A short one-line view of tool-call arguments (a dict, a JSON string or anything else)."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return args
    if isinstance(args, dict):
        parts = []
        for k, v in args.items():
            v = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
            parts.append(f"{k}={v}")
        return ", ".join(parts)
    return "" if args is None else json.dumps(args, ensure_ascii=False, default=str)


def first_line(text: str, limit: int = TITLE_CHARS) -> str:
    """The first non-empty line of `text`, shortened to `limit` characters for a session title."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def load_json(path: Path, what: str) -> Any:
    """Parse a whole JSON file; a file that is not JSON raises ParseError naming `what` it should be."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as f:
            return json.load(f)
    except ValueError as e:
        raise ParseError(f"{path}: not valid JSON ({e}); is this really {what}? skipped") from None


def text_of(value: object) -> str:
    """Text of a string, or of a list of `{text}` / `{type: text, text}` parts (other parts dropped)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return value.get("text") if isinstance(value.get("text"), str) else ""
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(p) for p in value) if t)
    return ""


def output_text(value: object) -> str:
    """A tool result as text: a JSON string or object is opened and its `output`-like field used."""
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        if not isinstance(decoded, dict | list):
            return value
        value = decoded
    if isinstance(value, dict):
        for key in ("output", "stdout", "result", "content", "contents", "text"):
            if isinstance(value.get(key), str):
                return value[key]
        return args_text(value)
    return "" if value is None else args_text(value)
