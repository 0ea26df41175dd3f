"""Aider reader: `.aider.chat.history.md`, one session per `# aider chat started at …` header.

In the history file user input is written as `#### ` lines, aider's own output (edits applied,
commits, command output) as `> ` lines, and the model's reply as plain Markdown. The header time
is local and naive; it is read in the configured zone. Lines before the first prompt of a session
(the start-up banner) are not chat.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ..errors import ParseError
from ..types import Session
from . import described
from .agent_text import clip, first_line
from .base import Message, ParseContext, as_utc, finish_session, pair_turns, stable_id
from .decoding import read_text

HEADER = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})\s*$")


def looks_like_aider(text: str) -> bool:
    """True when the first non-empty line of `text` is an aider session header."""
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    return HEADER.match(line.strip()) is not None


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per chat started in the history file."""
    text = read_text(path, ctx)
    chunks: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        m = HEADER.match(line.strip())
        if m:
            chunks.append((m.group(1), []))
        elif chunks:
            chunks[-1][1].append(line)
    if not chunks:
        raise ParseError(f"{path}: no '# aider chat started at' header; not an aider chat history; skipped")
    base = str(path.resolve().parent)
    for started, lines in chunks:
        try:
            ts = as_utc(datetime.fromisoformat(started.replace(" ", "T")), ctx.tz)
        except ValueError:
            ctx.warn(
                f"{path}: session header time {described.value(started)} is not a date; kept without a time"
            )
            ts = None
        messages = _messages(lines)
        for m in messages:
            m.timestamp = ts
        title = next(
            (first_line(m.text) for m in messages if m.role == "user" and not m.text.startswith("/")), ""
        )
        title = title or next((first_line(m.text) for m in messages if m.role == "user"), "")
        session = finish_session(
            Session(
                session_id=f"aider:{stable_id(base, started)}",
                title=title,
                started_at=ts,
                participants=["user", "aider"],
                turns=pair_turns(messages),
            )
        )
        if session is not None:
            yield session


def _messages(lines: list[str]) -> list[Message]:
    """Group the lines of one session into user prompts and replies (tool output marked)."""
    messages: list[Message] = []
    block: list[str] = []
    kind = ""  # "user", "tool" or "reply"

    def flush() -> None:
        body = "\n".join(block).strip("\n")
        if kind == "user" and body.strip():
            messages.append(Message("user", body.strip()))
        elif kind == "reply" and body.strip() and any(m.role == "user" for m in messages):
            _append_reply(messages, body.strip())
        elif kind == "tool" and body.strip() and any(m.role == "user" for m in messages):
            _append_reply(messages, f"[tool output]\n{clip(body)}\n[end tool output]")
        block.clear()

    for raw in lines:
        line = raw.rstrip()
        if line.startswith("####"):
            new, content = "user", line[4:].removeprefix(" ")
        elif line.startswith(">"):
            new, content = "tool", line[1:].removeprefix(" ")
        else:
            new, content = ("reply" if kind != "user" or line.strip() else kind), line
            if kind == "user" and not line.strip():
                new = "user"
        if new != kind:
            flush()
            kind = new
        block.append(content)
    flush()
    return messages


def _append_reply(messages: list[Message], text: str) -> None:
    """Reply text and tool output after one prompt become one assistant message, in order."""
    if messages and messages[-1].role == "assistant":
        messages[-1].text += "\n\n" + text
    else:
        messages.append(Message("assistant", text))
