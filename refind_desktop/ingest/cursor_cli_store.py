"""cursor-agent CLI chat stores: `~/.cursor/chats/<workspace-hash>/<agent-id>/store.db`, read-only.

One SQLite file per chat with two tables: `meta` (one row whose value is hex-encoded JSON:
`agentId`, `name`, `createdAt` in ms, `latestRootBlobId`, ...) and `blobs(id, data)`, a
content-addressed store. The root blob named by `latestRootBlobId` is a protobuf message whose
field 1 repeats the 32-byte ids of the chat's message blobs in order; each message blob is JSON
`{role: system|user|assistant|tool, content}` with parts `text`, `reasoning`, `tool-call` and
`tool-result`. System prompts and reasoning are dropped; without a readable root the JSON
message blobs are read in the order they were stored. The database is opened read-only
(`sqlite_ro.open_readonly`): never written, locked or checkpointed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, output_text, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp
from .sqlite_ro import open_readonly

PREFIX = "cursor-cli"


def parse_store(path: Path, ctx: ParseContext, user_words: Callable[[str], str]) -> Iterator[Session]:
    """Yield the chat of one `store.db`; `user_words` picks the user's words out of a user message."""
    try:
        with closing(open_readonly(path)) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"blobs", "meta"} <= tables:
                raise ParseError(
                    f"{path}: no 'blobs' and 'meta' tables; not a Cursor CLI chat store; skipped"
                )
            meta = _meta(db)
            blobs = _message_blobs(db, meta.get("latestRootBlobId"), path, ctx)
    except sqlite3.DatabaseError as e:
        raise ParseError(f"{path}: cannot read this SQLite database ({e}); skipped") from None
    messages: list[Message] = []
    names: dict[str, str] = {}
    for n, value in enumerate(blobs):
        message = _message(value, names, user_words, str(n))
        if message is not None:
            messages.append(message)
    agent_id = meta.get("agentId") if isinstance(meta.get("agentId"), str) else path.parent.name
    name = meta.get("name").strip() if isinstance(meta.get("name"), str) else ""
    if name in ("", "New Agent", "Untitled"):
        name = next((first_line(m.text) for m in messages if m.role == "user"), name)
    session = finish_session(
        Session(
            session_id=f"{PREFIX}:{agent_id}",
            title=name,
            started_at=parse_timestamp(meta.get("createdAt")),
            participants=["user", "cursor"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


def _meta(db: sqlite3.Connection) -> dict[str, Any]:
    """The chat's metadata: the hex-encoded JSON row, or the rows as a key-value map."""
    rows = db.execute("SELECT key, value FROM meta").fetchall()
    out: dict[str, Any] = {}
    for key, value in rows:
        decoded = _hex_json(value)
        if isinstance(decoded, dict):
            out.update(decoded)
        elif isinstance(key, str):
            out[key] = decoded if decoded is not None else value
    return out


def _hex_json(value: object) -> Any:
    if isinstance(value, bytes):
        value = value.decode("ascii", errors="replace")
    if not isinstance(value, str):
        return None
    try:
        return json.loads(bytes.fromhex(value).decode("utf-8"))
    except ValueError:
        try:
            return json.loads(value)
        except ValueError:
            return None


def _message_blobs(db: sqlite3.Connection, root_id: object, path: Path, ctx: ParseContext) -> list[Any]:
    """Decoded message blobs in chat order (the root's list, else the order they were stored in)."""
    ids: list[str] = []
    if isinstance(root_id, str) and root_id:
        row = db.execute("SELECT data FROM blobs WHERE id = ?", (root_id,)).fetchone()
        if row is not None and isinstance(row[0], bytes):
            ids = [child.hex() for child in _field_bytes(row[0], 1) if len(child) == 32]
    if ids:
        out = []
        for blob_id in ids:
            row = db.execute("SELECT data FROM blobs WHERE id = ?", (blob_id,)).fetchone()
            if row is None:
                ctx.warn(f"{path}: message blob {blob_id[:12]}… is missing (still being written?); skipped")
                continue
            value = _json(row[0])
            if value is not None:
                out.append(value)
        return out
    return [
        v for (data,) in db.execute("SELECT data FROM blobs ORDER BY rowid") if (v := _json(data)) is not None
    ]


def _json(data: object) -> Any:
    """A blob's JSON value, or None for protobuf and other binary blobs."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes) or data[:1] not in (b"{", b"["):
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _field_bytes(data: bytes, field_no: int) -> list[bytes]:
    """The length-delimited values of one field of a protobuf message (other fields skipped)."""
    out, i, end = [], 0, len(data)
    while i < end:
        key, i = _varint(data, i)
        if key < 0:
            break
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(data, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            size, i = _varint(data, i)
            if size < 0 or i + size > end:
                break
            if number == field_no:
                out.append(data[i : i + size])
            i += size
        else:
            break  # groups or garbage: stop at what was read
        if i < 0:
            break
    return out


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """(value, next index) of the varint at `i`; (-1, -1) when it runs past the end."""
    value = shift = 0
    while i < len(data):
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7
        if shift > 63:
            break
    return -1, -1


def _message(
    value: Any, names: dict[str, str], user_words: Callable[[str], str], msg_id: str
) -> Message | None:
    """One message blob as a Message; system prompts, reasoning and empty messages give None."""
    if not isinstance(value, dict):
        return None
    role, content = value.get("role"), value.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(parts, list):
        return None
    texts, tools = [], []
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str) and part["text"].strip():
            texts.append(part["text"].strip())
        elif kind in ("tool-call", "tool_use"):
            name = str(part.get("toolName") or part.get("name") or "tool")
            if isinstance(part.get("toolCallId"), str):
                names[part["toolCallId"]] = name
            tools.append(tool_text(name, args_text(part.get("args", part.get("input")))))
        elif kind in ("tool-result", "tool_result"):
            name = str(part.get("toolName") or names.get(str(part.get("toolCallId")), "tool"))
            tools.append(tool_text(name, "", output_text(part.get("result", part.get("output")))))
    if role == "user":
        words = [w for w in (user_words(t) for t in texts) if w]
        if words:
            return Message("user", "\n\n".join(words), msg_id=msg_id)
        return Message("assistant", "\n\n".join(tools), msg_id=msg_id) if tools else None
    if role in ("assistant", "tool"):
        body = "\n\n".join(texts + tools) if role == "assistant" else "\n\n".join(tools)
        return Message("assistant", body, msg_id=msg_id) if body else None
    return None  # system prompt
