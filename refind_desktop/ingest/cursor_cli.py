"""Cursor agent transcripts (cursor-agent CLI and the editor's agent): `~/.cursor/projects/<slug>/agent-transcripts/`.

Two layouts: `<id>/<id>.jsonl` (one `{role, message: {content: [blocks]}}` line per message,
Anthropic-style blocks `text` / `thinking` / `tool_use` / `tool_result`, plus `turn_ended`
markers) and the older plain-text `<id>.txt` (`user:` and `assistant:` lines open each message;
`[Thinking]`, `[Tool call] <name>` and `[Tool result] <name>` open sections inside a reply). The
user's words sit inside `<user_query>` tags; what Cursor wraps around them (`<user_info>`,
attached files, rules) is context, not the prompt. Neither layout records times. The CLI's
own chat stores (`~/.cursor/chats/<hash>/<id>/store.db`) are read by `cursor_cli_store.py`.
This is not the editor's `state.vscdb` (format `cursor`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_blocks import read_blocks, strip_reminders
from .agent_text import first_line, tool_text
from .base import Message, ParseContext, finish_session, jsonl_objects, pair_turns, text_lines

PREFIX = "cursor-cli"
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*(?:</user_query>|\Z)", re.DOTALL)
# Context blocks Cursor puts around the user's words when there is no <user_query> tag.
_CONTEXT = re.compile(
    r"<(user_info|attached_files|open_and_recently_viewed_files|git_status|project_layout|rules|"
    r"agent_requestable_workspace_rules|always_applied_workspace_rules|agent_skills|terminal_files_information|"
    r"system_reminder|manually_attached_skills|mcp_instructions)>.*?(?:</\1>|\Z)",
    re.DOTALL,
)
_ROLE_LINE = re.compile(r"^(user|assistant):\s*$")
_SECTION = re.compile(r"^\[(Thinking|Tool call|Tool result)\]\s*(.*)$")


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one session of an agent transcript (`.jsonl` or `.txt`) or of a CLI chat store."""
    if path.name == "store.db":
        from .cursor_cli_store import parse_store

        yield from parse_store(path, ctx, user_words)
        return
    messages = _jsonl(path, ctx) if path.suffix == ".jsonl" else _text(path, ctx)
    session = finish_session(
        Session(
            session_id=f"{PREFIX}:{path.stem}",
            title=next((first_line(m.text) for m in messages if m.role == "user"), ""),
            participants=["user", "cursor"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def user_words(text: str) -> str:
    """The user's own words in a user message: the `<user_query>` contents, else the text without context blocks."""
    queries = [q.strip() for q in _QUERY.findall(text) if q.strip()]
    if queries:
        return "\n\n".join(queries)
    return strip_reminders(_CONTEXT.sub("", text))


def _jsonl(path: Path, ctx: ParseContext) -> list[Message]:
    messages: list[Message] = []
    names: dict[str, str] = {}
    for lineno, line in jsonl_objects(path, ctx, "a Cursor agent transcript? skipped"):
        message = _line(line, names, f"{lineno}")
        if message is not None:
            messages.append(message)
    return messages


def _line(line: dict[str, Any], names: dict[str, str], msg_id: str) -> Message | None:
    """One transcript line as a Message (None for markers such as `turn_ended`)."""
    role = line.get("role")
    msg = line.get("message")
    content = msg.get("content") if isinstance(msg, dict) else line.get("content")
    blocks = read_blocks(content, names)
    if role == "user":
        texts = [t for t in (user_words(t) for t in blocks.texts) if t]
        if texts:
            return Message("user", "\n\n".join(texts), msg_id=msg_id)
        if blocks.tools:  # tool results travel in user messages: they belong to the reply
            return Message("assistant", "\n\n".join(blocks.tools), msg_id=msg_id)
        return None
    if role == "assistant":
        body = blocks.body()
        return Message("assistant", body, msg_id=msg_id) if body else None
    return None


def _text(path: Path, ctx: ParseContext) -> list[Message]:
    """A plain-text transcript: blocks opened by `user:` / `assistant:` lines."""
    blocks: list[tuple[str, list[str], int]] = []
    for lineno, raw in text_lines(path, ctx):
        if raw is None:
            continue
        line = raw.rstrip("\r\n")
        m = _ROLE_LINE.match(line.strip())
        if m:
            blocks.append((m.group(1), [], lineno))
        elif blocks:
            blocks[-1][1].append(line)
    if not blocks and path.stat().st_size:
        raise ParseError(
            f"{path}: no 'user:' or 'assistant:' line; is this really a Cursor agent transcript? skipped"
        )
    messages = []
    for role, lines, lineno in blocks:
        if role == "user":
            text = user_words("\n".join(lines))
        else:
            text = _reply("\n".join(lines).splitlines())
        if text:
            messages.append(Message(role, text, msg_id=str(lineno)))
    return messages


def _reply(lines: list[str]) -> str:
    """An assistant block: its text and tool sections; thinking sections are dropped."""
    parts: list[str] = []
    text: list[str] = []
    section: tuple[str, str, list[str]] | None = None

    def close() -> None:
        nonlocal section
        if section is not None:
            kind, name, body = section
            if kind == "Tool call":
                detail = ", ".join(b.strip() for b in body if b.strip())
                parts.append(tool_text(name or "tool", detail))
            elif kind == "Tool result":
                parts.append(tool_text(name or "tool", "", "\n".join(body).strip("\n")))
            section = None

    for line in lines:
        m = _SECTION.match(line.strip())
        if m:
            close()
            if text and "\n".join(text).strip():
                parts.append("\n".join(text).strip())
            text = []
            section = (m.group(1), m.group(2).strip(), [])
        elif section is not None:
            section[2].append(line)
        else:
            text.append(line)
    close()
    if "\n".join(text).strip():
        parts.append("\n".join(text).strip())
    return "\n\n".join(parts)
