"""Cursor reader: chats in its SQLite `state.vscdb` databases, opened read-only and immutable.

Global database (`User/globalStorage/state.vscdb`), table `cursorDiskKV`: `composerData:<id>`
(one composer/agent chat: name, createdAt, and either inline `conversation` bubbles or
`fullConversationHeadersOnly` pointing at `bubbleId:<composerId>:<bubbleId>` rows). Workspace
databases (`User/workspaceStorage/<hash>/state.vscdb`), table `ItemTable`: the older chat pane
under `workbench.panel.aichat.view.aichat.chatdata` (`tabs[].bubbles[]`, type user/ai).
The database is opened read-only (`sqlite_ro.open_readonly`): the file is never written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from . import described
from .agent_text import args_text, first_line, output_text, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp
from .sqlite_ro import SQLITE_MAGIC, open_readonly

CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
_USER_TYPES = {1, "1", "user"}
_AI_TYPES = {2, "2", "ai", "assistant"}


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection: nothing is locked, created or written next to the file."""
    return open_readonly(path)


def has_chats(path: Path) -> bool | None:
    """True when a `.vscdb` file holds Cursor chat keys, False when it holds none, None if unreadable."""
    try:
        with open(path, "rb") as f:
            if f.read(16) != SQLITE_MAGIC:
                return None
        with closing(connect(path)) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if (
                "cursorDiskKV" in tables
                and db.execute(
                    "SELECT 1 FROM cursorDiskKV WHERE key LIKE 'composerData:%' LIMIT 1"
                ).fetchone()
            ):
                return True
            if (
                "ItemTable" in tables
                and db.execute("SELECT 1 FROM ItemTable WHERE key = ? LIMIT 1", (CHAT_KEY,)).fetchone()
            ):
                return True
    except (OSError, sqlite3.Error):
        return None
    return False


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield every composer chat and chat-pane tab stored in one Cursor state database."""
    try:
        with closing(connect(path)) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            sessions = []
            if "cursorDiskKV" in tables:
                sessions += list(_composers(db, path, ctx))
            if "ItemTable" in tables:
                sessions += list(_chat_tabs(db, path, ctx))
    except sqlite3.DatabaseError as e:
        raise ParseError(f"{path}: cannot read this SQLite database ({e}); skipped") from None
    yield from sessions


def _value(raw: object, path: Path, key: str, ctx: ParseContext) -> Any:
    """Decode one JSON value of a key-value row; a bad value is warned about and gives None."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        return None
    try:
        return json.loads(raw)
    except ValueError:
        ctx.warn(f"{path}: value of {described.value(key)} is not valid JSON; skipped")
        return None


def _composers(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> Iterator[Session]:
    rows = db.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' ORDER BY key")
    for key, raw in rows.fetchall():
        data = _value(raw, path, key, ctx)
        if not isinstance(data, dict):
            continue
        cid = str(data.get("composerId") or key.split(":", 1)[1])
        bubbles = data.get("conversation")
        if not isinstance(bubbles, list) or not bubbles:
            bubbles = []
            for head in data.get("fullConversationHeadersOnly") or []:
                bid = head.get("bubbleId") if isinstance(head, dict) else None
                if not isinstance(bid, str):
                    continue
                row = db.execute(
                    "SELECT value FROM cursorDiskKV WHERE key = ?", (f"bubbleId:{cid}:{bid}",)
                ).fetchone()
                bubble = _value(row[0], path, f"bubbleId:{cid}:{bid}", ctx) if row else None
                if isinstance(bubble, dict):
                    bubble.setdefault("type", head.get("type"))
                    bubbles.append(bubble)
                else:
                    ctx.warn(f"{path}: chat {cid} lists bubble {bid} that is not stored; skipped")
        messages = [m for m in (_bubble(b) for b in bubbles if isinstance(b, dict)) if m]
        created = parse_timestamp(data.get("createdAt"))
        title = str(data.get("name") or "") or next(
            (first_line(m.text) for m in messages if m.role == "user"), ""
        )
        session = finish_session(
            Session(
                session_id=f"cursor:{cid}",
                title=title,
                started_at=created,
                participants=["user", "cursor"],
                turns=pair_turns(messages),
            )
        )
        if session is not None:
            yield session


def _bubble(b: dict[str, Any]) -> Message | None:
    """One bubble (message) of a composer chat: user text, or assistant text plus a marked tool call."""
    kind = b.get("type")
    text = b.get("text") if isinstance(b.get("text"), str) else ""
    if not text and isinstance(b.get("rawText"), str):
        text = b["rawText"]
    text = text.strip()
    ts = parse_timestamp(b.get("createdAt"))
    timing = b.get("timingInfo")
    if ts is None and isinstance(timing, dict):
        ts = parse_timestamp(timing.get("clientStartTime") or timing.get("clientRpcSendTime"))
    bid = str(b.get("bubbleId") or b.get("id") or "")
    if kind in _USER_TYPES:
        return Message("user", text, ts, bid) if text else None
    if kind in _AI_TYPES:
        parts = [text] if text else []
        tool = b.get("toolFormerData")
        if isinstance(tool, dict) and tool.get("name"):
            args = args_text(tool.get("rawArgs") or tool.get("params"))
            parts.append(tool_text(str(tool["name"]), args, output_text(tool.get("result"))))
        return Message("assistant", "\n\n".join(parts), ts, bid) if parts else None
    return None


def _chat_tabs(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> Iterator[Session]:
    row = db.execute("SELECT value FROM ItemTable WHERE key = ?", (CHAT_KEY,)).fetchone()
    data = _value(row[0], path, CHAT_KEY, ctx) if row else None
    tabs = data.get("tabs") if isinstance(data, dict) else None
    for n, tab in enumerate(tabs if isinstance(tabs, list) else []):
        if not isinstance(tab, dict) or not isinstance(tab.get("bubbles"), list):
            ctx.warn(f"{path}: chat tab {n} has no bubbles; skipped")
            continue
        messages = [m for m in (_bubble(b) for b in tab["bubbles"] if isinstance(b, dict)) if m]
        tab_id = str(tab.get("tabId") or n)
        last = parse_timestamp(tab.get("lastSendTime"))
        title = str(tab.get("chatTitle") or "") or next(
            (first_line(m.text) for m in messages if m.role == "user"), ""
        )
        session = finish_session(
            Session(
                session_id=f"cursor:chat:{tab_id}",
                title=title,
                started_at=next((m.timestamp for m in messages if m.timestamp), None) or last,
                participants=["user", "cursor"],
                turns=pair_turns(messages),
            )
        )
        if session is not None:
            yield session
