"""Registry from format name to parser: `get_parser("chatgpt")` imports the format module lazily."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import ParseError
from ..types import Session
from . import agent_paths
from .base import ParseContext

# The known formats, one module each (`refind_desktop.ingest.<name>`); append new readers here.
FORMATS = (
    "chatgpt",
    "claude_ai",
    "claude_code",
    "codex",
    "longmemeval",
    "locomo",
    "generic",
    "whatsapp",
    "telegram",
    "slack",
    "discord",
    "openwebui",
    "sillytavern",
)
FORMATS += agent_paths.AGENT_FORMATS  # coding agents: gemini_cli, cursor, aider, cline, ...

Parser = Callable[[Path, ParseContext], Iterator[Session]]


def get_parser(name: str) -> Parser:
    """Return `refind_desktop.ingest.<name>.parse`; unknown names raise ParseError listing the known ones."""
    if name not in FORMATS:
        raise ParseError(f"unknown chat format {name!r}; known formats: {', '.join(FORMATS)}")
    module = importlib.import_module(f"{__package__}.{name}")
    return module.parse
