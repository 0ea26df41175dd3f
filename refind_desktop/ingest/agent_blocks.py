"""Anthropic-style content blocks (text / thinking / tool_use / tool_result) as turn text, for agent readers.

Factory Droid, Amp and Cursor's agent transcripts store a message as `{role, content}` where
`content` is a string or a list of blocks. `Blocks` turns one message's blocks into the texts a
person wrote or read and the marked tool lines (`agent_text.tool_text`); thinking, images and
unknown block types are dropped. A user message that carries only tool results belongs to the
assistant's reply (`Blocks.only_tools`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .agent_text import args_text, output_text, tool_text
from .base import Message

SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)


@dataclass
class Blocks:
    """The visible parts of one message: its texts, its tool lines, and whether tools were all it held."""

    texts: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)

    @property
    def only_tools(self) -> bool:
        """True when the message held tool calls or results and no text."""
        return bool(self.tools) and not self.texts

    def body(self) -> str:
        """Texts, then tool lines, as one message text."""
        return "\n\n".join(self.texts + self.tools)


def read_blocks(content: object, names: dict[str, str], keep_text: bool = True) -> Blocks:
    """Split `content` (a string or a list of blocks) into texts and tool lines.

    `names` maps tool-call ids to tool names: filled from `tool_use` blocks, read for `tool_result`
    blocks (whose own block carries only the id). With `keep_text` False, text blocks are dropped.
    """
    out = Blocks()
    if isinstance(content, str):
        if keep_text and content.strip():
            out.texts.append(content.strip())
        return out
    if not isinstance(content, list):
        return out
    for block in content:
        if isinstance(block, str):
            if keep_text and block.strip():
                out.texts.append(block.strip())
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if keep_text and block["text"].strip():
                out.texts.append(block["text"].strip())
        elif kind in ("tool_use", "tool_call", "server_tool_use"):
            name = str(block.get("name") or block.get("toolName") or "tool")
            call_id = block.get("id")
            if isinstance(call_id, str):
                names[call_id] = name
            out.tools.append(tool_text(name, args_text(block.get("input", block.get("args")))))
        elif kind == "tool_result":
            call_id = block.get("tool_use_id") or block.get("toolUseID") or block.get("toolUseId")
            name = names.get(call_id, "tool") if isinstance(call_id, str) else "tool"
            out.tools.append(tool_text(name, "", result_text(block)))
    return out


def result_text(block: dict[str, Any]) -> str:
    """The output of a `tool_result` block: its `content` (string or text blocks) or Amp's `run`."""
    run = block.get("run")
    if isinstance(run, dict):  # Amp: {status, result | progress | error}
        for key in ("result", "progress", "error"):
            value = run.get(key)
            if value not in (None, "", [], {}):
                text = _content_text(value)
                if text:
                    return text
        status = run.get("status")
        return f"({status})" if isinstance(status, str) and status not in ("done", "success") else ""
    return _content_text(block.get("content", block.get("output")))


def _content_text(value: object) -> str:
    """Text of a tool output given as a string, a list of text blocks or an object."""
    if isinstance(value, list):
        texts = []
        for item in value:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                texts.append(item["text"])
            elif isinstance(item, str):
                texts.append(item)
        if texts:
            return "\n".join(texts)
    return output_text(value)


def strip_reminders(text: str) -> str:
    """`text` without the `<system-reminder>` blocks a harness adds to the user's message."""
    if "<system-reminder>" not in text:
        return text.strip()
    return SYSTEM_REMINDER.sub("", text).strip()


def block_message(role: object, content: object, names: dict[str, str], ts, msg_id: str) -> Message | None:
    """A message of Anthropic-style content blocks: the user's text (reminders stripped), tool results
    (which travel in user messages but belong to the reply), or the assistant's text and tool calls;
    None for other roles and for nothing visible."""
    blocks = read_blocks(content, names)
    if role == "user":
        texts = [t for t in (strip_reminders(t) for t in blocks.texts) if t]
        if texts:
            return Message("user", "\n\n".join(texts), ts, msg_id)
        if blocks.tools:
            return Message("assistant", "\n\n".join(blocks.tools), ts, msg_id)
        return None
    if role == "assistant":
        body = blocks.body()
        return Message("assistant", body, ts, msg_id) if body else None
    return None
