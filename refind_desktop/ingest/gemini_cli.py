"""Gemini CLI reader: `~/.gemini/tmp/<project>/chats/session-*.jsonl` (or `.json`), saved chats and `logs.json`.

Three files hold conversations: auto-saved sessions (`chats/session-*.json`, an object with
`sessionId`, `startTime` and `messages` of type user/gemini/info/error; since 0.35 the append-only
`chats/session-*.jsonl`: a metadata line, then message records, a message written again when it
changes, `{"$set": …}` metadata updates and `{"$rewindTo": id}` rewinds), chats saved with
`/chat save <tag>` (`checkpoint-<tag>.json`, a list of API `{role, parts}` contents) and, in
older versions without `chats/`, the prompt log `logs.json` (user prompts only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, load_json, text_of, tool_text
from .base import (
    Message,
    ParseContext,
    finish_session,
    iter_jsonl,
    pair_turns,
    parse_timestamp,
    stable_id,
)

# The context message Gemini CLI (and its fork Qwen Code) sends first in every chat, and its canned reply.
_SETUP = re.compile(r"^This is the [^.\n]{1,40}\. We are setting up the context for our chat\.")
_SETUP_REPLY = "Got it. Thanks for the context!"
_REPLY_TYPES = ("gemini", "qwen", "model", "assistant")


def is_setup(text: str) -> bool:
    """True for the context message the CLI sends first in a chat, or the model's canned reply to it."""
    return bool(_SETUP.match(text.lstrip())) or text.strip() == _SETUP_REPLY


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session(s) of one Gemini CLI file (session, saved chat or prompt log)."""
    yield from read(path, ctx, "gemini-cli", "gemini", "Gemini CLI")


def read(path: Path, ctx: ParseContext, prefix: str, speaker: str, agent: str) -> Iterator[Session]:
    """Sessions of a Gemini-style file; ids start with `prefix:`, `speaker` names the model side.

    Qwen Code (a Gemini CLI fork) wrote the same files under `~/.qwen/tmp/` before its JSONL layout.
    """
    if path.name.endswith(".jsonl"):
        yield from _session_file(path, _session_log(path, ctx, agent), ctx, prefix, speaker)
        return
    data = load_json(path, f"a {agent} chat")
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        yield from _session_file(path, data, ctx, prefix, speaker)
    elif isinstance(data, list) and path.name == "logs.json":
        yield from _prompt_log(path, data, ctx, prefix)
    elif isinstance(data, list) or (isinstance(data, dict) and isinstance(data.get("history"), list)):
        history = data if isinstance(data, list) else data["history"]
        yield from _saved_chat(path, history, ctx, prefix, speaker)
    else:
        raise ParseError(f"{path}: not a {agent} session (no 'messages' list); skipped")


def _session_file(
    path: Path, data: dict[str, Any], ctx: ParseContext, prefix: str, speaker: str
) -> Iterator[Session]:
    sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else stable_id(str(path))
    messages: list[Message] = []
    for n, m in enumerate(data["messages"]):
        if not isinstance(m, dict):
            ctx.warn(f"{path}: message {n} is not an object; skipped")
            continue
        ts = parse_timestamp(m.get("timestamp"))
        kind = m.get("type")
        text = text_of(m.get("content")).strip()
        if kind == "user":
            if text:
                messages.append(Message("user", text, ts, str(m.get("id") or "")))
        elif kind in _REPLY_TYPES:
            parts = [text] if text else []
            parts += [_tool_call(c) for c in m.get("toolCalls") or [] if isinstance(c, dict)]
            if parts:
                messages.append(Message("assistant", "\n\n".join(parts), ts, str(m.get("id") or "")))
        elif kind == "error" and text:
            messages.append(Message("assistant", f"[error] {text}", ts))
        # info / warning lines are UI notices, not chat
    title = data.get("summary") if isinstance(data.get("summary"), str) else ""
    title = title or next((first_line(m.text) for m in messages if m.role == "user"), "")
    session = finish_session(
        Session(
            session_id=f"{prefix}:{sid}",
            title=title,
            started_at=parse_timestamp(data.get("startTime")),
            participants=["user", speaker],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _session_log(path: Path, ctx: ParseContext, agent: str) -> dict[str, Any]:
    """The conversation an append-only session log holds, as the CLI itself loads it: the metadata
    line with its `$set` updates, and the messages by id (a message written again replaces its earlier
    copy in place; `$rewindTo` drops that message and every later one; a `messages` list set by `$set`
    stands for the whole conversation)."""
    meta: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}
    for _lineno, rec in iter_jsonl(path, ctx):
        if not isinstance(rec, dict):
            continue
        if isinstance(rec.get("$rewindTo"), str):
            ids = list(messages)
            cut = ids.index(rec["$rewindTo"]) if rec["$rewindTo"] in messages else 0
            for mid in ids[cut:]:
                del messages[mid]
        elif isinstance(rec.get("id"), str):
            messages[rec["id"]] = rec
        elif isinstance(rec.get("$set"), dict):
            meta.update(rec["$set"])
        elif isinstance(rec.get("sessionId"), str) and isinstance(rec.get("projectHash"), str):
            meta.update(rec)
    if not isinstance(meta.get("sessionId"), str):
        raise ParseError(f"{path}: not a {agent} session log (no session metadata line); skipped")
    listed = meta.get("messages")
    meta["messages"] = listed if isinstance(listed, list) and listed else list(messages.values())
    return meta


def _tool_call(call: dict[str, Any]) -> str:
    """A tool call of a gemini message: its name, arguments and what it returned."""
    name = str(call.get("displayName") or call.get("name") or "tool")
    output = call.get("resultDisplay") if isinstance(call.get("resultDisplay"), str) else ""
    if not output:
        output = "\n".join(_responses(call.get("result")))
    status = call.get("status")
    if status and status != "success" and not output:
        output = f"({status})"
    return tool_text(name, args_text(call.get("args")), output)


def _responses(result: object) -> list[str]:
    """Output strings inside a list of `{functionResponse: {response: {output}}}` parts."""
    out = []
    for part in result if isinstance(result, list) else [result]:
        fr = part.get("functionResponse") if isinstance(part, dict) else None
        resp = fr.get("response") if isinstance(fr, dict) else None
        if isinstance(resp, dict):
            value = resp.get("output", resp.get("error", ""))
            out.append(value if isinstance(value, str) else args_text(value))
    return out


def _saved_chat(
    path: Path, history: list[Any], ctx: ParseContext, prefix: str, speaker: str
) -> Iterator[Session]:
    """`checkpoint-<tag>.json`: API contents `{role: user|model, parts: [...]}` without times."""
    messages: list[Message] = []
    for n, content in enumerate(history):
        if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
            ctx.warn(f"{path}: entry {n} is not a {{role, parts}} content; skipped")
            continue
        texts, tools = [], []
        for part in content["parts"]:
            if not isinstance(part, dict) or part.get("thought"):
                continue
            if isinstance(part.get("text"), str) and part["text"].strip():
                texts.append(part["text"].strip())
            elif isinstance(part.get("functionCall"), dict):
                fc = part["functionCall"]
                tools.append(tool_text(str(fc.get("name") or "tool"), args_text(fc.get("args"))))
            elif isinstance(part.get("functionResponse"), dict):
                fr = part["functionResponse"]
                tools.append(tool_text(str(fr.get("name") or "tool"), "", "\n".join(_responses([part]))))
        text = "\n\n".join(texts)
        if content.get("role") == "user":
            if text and not _SETUP.match(text):
                messages.append(Message("user", text))
            elif tools:  # function responses travel in user contents: they belong to the reply
                messages.append(Message("assistant", "\n\n".join(tools)))
        elif content.get("role") == "model" and text != _SETUP_REPLY:
            body = "\n\n".join([text, *tools] if text else tools)
            if body:
                messages.append(Message("assistant", body))
    tag = path.stem.removeprefix("checkpoint-")
    session = finish_session(
        Session(
            session_id=f"{prefix}:saved:{stable_id(path.parent.name, tag)}",
            title=tag or next((first_line(m.text) for m in messages if m.role == "user"), ""),
            participants=["user", speaker],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _prompt_log(path: Path, rows: list[Any], ctx: ParseContext, prefix: str) -> Iterator[Session]:
    """`logs.json` of versions before `chats/`: `{sessionId, type: user, message, timestamp}` rows."""
    if (path.parent / "chats").is_dir():
        return  # the chats folder holds the same prompts with their replies
    sessions: dict[str, list[Message]] = {}
    for n, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("message"), str):
            ctx.warn(f"{path}: row {n} has no message; skipped")
            continue
        if row.get("type", "user") != "user" or not row["message"].strip() or row["message"].startswith("/"):
            continue  # slash commands (/quit, /chat save) are not prompts
        sid = str(row.get("sessionId") or "unknown")
        sessions.setdefault(sid, []).append(
            Message("user", row["message"].strip(), parse_timestamp(row.get("timestamp")))
        )
    for sid, messages in sessions.items():
        session = finish_session(
            Session(
                session_id=f"{prefix}:{sid}",
                title=first_line(messages[0].text),
                participants=["user"],
                turns=pair_turns(messages),
            )
        )
        if session is not None:
            yield session
