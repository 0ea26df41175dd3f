"""Cline / Roo Code / Kilo Code reader: VS Code task folders `globalStorage/<extension>/tasks/<id>/`.

`ui_messages.json` (`claude_messages.json` in Claude Dev days) is what the user saw, with a time on every entry (`ts`, epoch ms): `say`
task / user_feedback are the user's words, `say` text / completion_result and `ask` followup
the assistant's, tool / command / command_output entries are tool use (kept, marked). When a task
has no `ui_messages.json`, `api_conversation_history.json` (Anthropic-style messages) is read
instead, with the `<task>` / `<feedback>` / `<answer>` wrappers taken apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, load_json, text_of, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp

EXTENSIONS = {
    "saoudrizwan.claude-dev": "cline",
    "rooveterinaryinc.roo-cline": "roo",
    "kilocode.kilo-code": "kilo",
}
UI_FILE, API_FILE = "ui_messages.json", "api_conversation_history.json"
OLD_UI_FILE = "claude_messages.json"  # the name before Claude Dev became Cline
_USER_SAYS = {"task", "user_feedback"}
_ASSISTANT_SAYS = {"text", "completion_result"}
_TOOL_SAYS = {"command_output", "tool", "mcp_server_response", "browser_action_result"}
_TOOL_ASKS = {"tool", "command", "use_mcp_server", "browser_action_launch"}
_WRAPPED = re.compile(r"<(task|feedback|answer|user_message)>\s*(.*?)\s*</\1>", re.DOTALL)
_ENV = re.compile(r"<environment_details>.*?(?:</environment_details>|$)", re.DOTALL)
_THINKING = re.compile(r"<thinking>.*?</thinking>", re.DOTALL)
_TOOL_RESULT = re.compile(r"^\[([^\]]+)\] Result:\s*", re.DOTALL)


def prefix_for(path: Path) -> str:
    """Session-id prefix from the extension folder the task lives in (cline, roo, kilo)."""
    for parent in path.parents:
        if parent.name.lower() in EXTENSIONS:
            return EXTENSIONS[parent.name.lower()]
    return "cline"


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one session of a task folder, given its ui_messages.json or api history file."""
    task_dir = path.parent
    if path.name == API_FILE and any((task_dir / n).is_file() for n in (UI_FILE, OLD_UI_FILE)):
        return  # the task is read from its ui_messages.json
    data = load_json(path, "a Cline task file")
    if not isinstance(data, list):
        raise ParseError(
            f"{path}: a Cline task file holds a JSON array, found {type(data).__name__}; skipped"
        )
    messages = _ui_messages(path, data, ctx) if path.name != API_FILE else _api_messages(path, data, ctx)
    task_id = task_dir.name
    title = next((first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"{prefix_for(path)}:{task_id}",
            title=title,
            started_at=parse_timestamp(task_id) if task_id.isdigit() else None,
            participants=["user", prefix_for(path)],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _ui_messages(path: Path, rows: list[Any], ctx: ParseContext) -> list[Message]:
    messages: list[Message] = []
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            ctx.warn(f"{path}: entry {n} is not an object; skipped")
            continue
        if row.get("partial"):
            continue  # a streaming fragment; the complete entry follows
        ts = parse_timestamp(row.get("ts"))
        text = row.get("text") if isinstance(row.get("text"), str) else ""
        say, ask = row.get("say"), row.get("ask")
        if row.get("type") == "say" and say in _USER_SAYS:
            if text.strip():
                messages.append(Message("user", text.strip(), ts, str(row.get("ts") or "")))
        elif row.get("type") == "say" and say in _ASSISTANT_SAYS:
            if text.strip():
                _reply(messages, text.strip(), ts)
        elif row.get("type") == "ask" and ask == "followup":
            _reply(messages, _followup(text), ts)
        elif (row.get("type") == "say" and say in _TOOL_SAYS) or (
            row.get("type") == "ask" and ask in _TOOL_ASKS
        ):
            _reply(messages, _tool(say or ask, text), ts)
        elif row.get("type") == "say" and say == "error" and text.strip():
            _reply(messages, f"[error] {text.strip()}", ts)
        # api_req_started, reasoning, checkpoint_created, resume_task, ... are bookkeeping
    return messages


def _reply(messages: list[Message], text: str, ts: object) -> None:
    if not text.strip():
        return
    if messages and messages[-1].role == "assistant":
        messages[-1].text += "\n\n" + text
    else:
        messages.append(Message("assistant", text, ts))  # type: ignore[arg-type]


def _followup(text: str) -> str:
    """An `ask: followup` entry holds `{question, options}` JSON in newer versions, plain text in older."""
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(data, dict) and isinstance(data.get("question"), str):
        options = data.get("options")
        opts = f"\n(options: {', '.join(map(str, options))})" if isinstance(options, list) and options else ""
        return data["question"].strip() + opts
    return text.strip()


def _tool(kind: str, text: str) -> str:
    """A tool entry: JSON `{tool, path, content|diff, ...}` for file tools, plain text for commands."""
    if kind == "command":
        return tool_text("command", text)
    if kind == "command_output":
        return tool_text("command output", "", text)
    try:
        data = json.loads(text)
    except ValueError:
        return tool_text(kind, "", text)
    if not isinstance(data, dict):
        return tool_text(kind, "", text)
    name = str(data.get("tool") or data.get("toolName") or data.get("serverName") or kind)
    body = data.get("diff") or data.get("content") or data.get("response") or ""
    detail = {k: v for k, v in data.items() if k in ("path", "regex", "filePattern", "command", "url")}
    return tool_text(name, args_text(detail), body if isinstance(body, str) else args_text(body))


def _api_messages(path: Path, rows: list[Any], ctx: ParseContext) -> list[Message]:
    """Anthropic-style `{role, content}` messages; wrappers and environment details taken apart."""
    messages: list[Message] = []
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("role") not in ("user", "assistant"):
            ctx.warn(f"{path}: message {n} has no user/assistant role; skipped")
            continue
        ts = parse_timestamp(row.get("ts"))
        blocks = row.get("content")
        blocks = [{"type": "text", "text": blocks}] if isinstance(blocks, str) else blocks
        if not isinstance(blocks, list):
            continue
        user, reply = [], []
        tool: list[str] | None = None  # [name, output...] of a "[tool] Result:" reply being read
        for b in blocks:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text" and isinstance(b.get("text"), str):
                text = _ENV.sub("", b["text"]).strip()
                if row["role"] == "assistant":
                    text = _THINKING.sub("", text).strip()
                    if text:
                        reply.append(text)
                    continue
                if not text:
                    continue
                m = _TOOL_RESULT.match(text)
                wrapped = [w[1] for w in _WRAPPED.findall(text)]
                if m:
                    if tool:
                        reply.append(tool_text(tool[0], "", "\n".join(tool[1:])))
                    tool = [m.group(1), _WRAPPED.sub("", text[m.end() :]).strip()]
                    user += wrapped
                elif wrapped:
                    user += wrapped
                elif tool is not None:
                    tool.append(text)  # the output of the tool named just before
                else:
                    user.append(text)
            elif b.get("type") == "tool_use":
                reply.append(tool_text(str(b.get("name") or "tool"), args_text(b.get("input"))))
            elif b.get("type") == "tool_result":
                reply.append(tool_text("tool result", "", text_of(b.get("content"))))
        if tool:
            reply.append(tool_text(tool[0], "", "\n".join(t for t in tool[1:] if t)))
        for text in reply if row["role"] == "user" else []:
            _reply(messages, text, ts)
        for text in user:
            messages.append(Message("user", text, ts))
        if row["role"] == "assistant":
            for text in reply:
                _reply(messages, text, ts)
    return messages
