"""Warp terminal reader: Agent Mode conversations in its SQLite `warp.sqlite`, read-only.

Table `ai_queries` holds one row per exchange: `conversation_id`, `exchange_id`, `start_ts` (read
as UTC; the prompt's own `CurrentTime` context item, which carries its UTC offset, is preferred),
`input` (a JSON list: `{"Query": {"text", "context", ...}}` for a prompt the user typed,
`{"ActionResult": {"result": {"RequestCommandOutput" | "GetFiles" | ...}}}` for the results of the
agent's actions sent back to the model), `output_status` and the model. Warp keeps the assistant's
reply text on its server, not in this table; a reply present locally (an `output` column, or an
`output_status` object with text) is read too. Commands the agent ran are rows of table `blocks`
whose `ai_metadata` names the conversation: kept marked as tool calls with their output (ANSI codes
removed, shortened), once (a command whose result an exchange's input carries is taken from
there). `agent_conversations` only holds usage figures. The prompt's attached context (directory,
git, rules, time) is dropped.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Session
from .agent_db import blob_json, columns, read_db
from .agent_text import first_line, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_REPLY_KEYS = ("output", "text", "message", "answer", "response")


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield every Agent Mode conversation of one `warp.sqlite`."""
    yield from read_db(path, "Warp", ("ai_queries",), lambda db: _conversations(db, path, ctx))


def _conversations(db: sqlite3.Connection, path: Path, ctx: ParseContext) -> list[Session]:
    cols = columns(db, "ai_queries")
    extra = ", ".join(c for c in ("output", "output_status") if c in cols)
    query = "SELECT id, conversation_id, exchange_id, start_ts, input" + (", " + extra if extra else "")
    events: dict[str, list[tuple[str, Message]]] = {}
    ran: dict[str, set[str]] = {}  # commands whose output came back in an exchange's input
    for row in db.execute(query + " FROM ai_queries ORDER BY start_ts, id"):
        where = f"{path}: exchange {row['exchange_id'] or row['id']}"
        ts, mid, key = (
            parse_timestamp(row["start_ts"]),
            str(row["exchange_id"] or row["id"]),
            str(row["start_ts"]),
        )
        cid = str(row["conversation_id"])
        conv = events.setdefault(cid, [])
        value = blob_json(row["input"], where, ctx)
        for i, (text, command) in enumerate(_actions(value)):
            conv.append((key, Message("assistant", text, ts, f"{mid}:action{i}")))
            ran.setdefault(cid, set()).add(command)
        prompt, typed_at = _prompt(value)
        if prompt:
            conv.append((key, Message("user", prompt, typed_at or ts, mid)))
        reply = "\n\n".join(
            t for t in (_reply(row[c]) for c in ("output", "output_status") if c in cols) if t
        )
        if reply:
            conv.append((key, Message("assistant", reply, ts, mid + ":reply")))
    if "blocks" in {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}:
        _add_blocks(db, events, ran, path, ctx)
    out = []
    for cid, items in events.items():
        items.sort(key=lambda e: e[0])
        messages = [m for _, m in items]
        title = next((first_line(m.text) for m in messages if m.role == "user"), "")
        session = finish_session(
            Session(
                session_id=f"warp:{cid}",
                title=title,
                started_at=messages[0].timestamp if messages else None,
                participants=["user", "warp"],
                turns=pair_turns(messages),
            )
        )
        if session is not None:
            out.append(session)
    out.sort(key=lambda s: (s.started_at is None, s.started_at or 0, s.session_id))
    return out


def _prompt(value: Any) -> tuple[str, datetime | None]:
    """The text the user typed (`Query.text` entries of the input list, context items dropped) and
    the time the prompt's `CurrentTime` context item gives (with its UTC offset), if any."""
    entries = value if isinstance(value, list) else [value]
    texts, at = [], None
    for e in entries:
        if not isinstance(e, dict):
            continue
        for kind in ("Query", "UserQuery"):
            q = e.get(kind)
            text = q.get("text") or q.get("query") if isinstance(q, dict) else q
            if isinstance(text, str) and text.strip():
                texts.append(text.strip())
            for item in q.get("context") or [] if isinstance(q, dict) else []:
                now = item.get("CurrentTime") if isinstance(item, dict) else None
                if isinstance(now, dict) and at is None:
                    at = parse_timestamp(now.get("current_time"))
    return "\n\n".join(texts), at


def _actions(value: Any) -> list[tuple[str, str]]:
    """(marked tool text, command or "") per `ActionResult` entry: the results of the agent's actions
    (a command and its output, files read or edited) sent back to the model with the next exchange."""
    out = []
    for e in value if isinstance(value, list) else []:
        action = e.get("ActionResult") if isinstance(e, dict) else None
        result = action.get("result") if isinstance(action, dict) else None
        if not isinstance(result, dict):
            continue
        for kind, body in result.items():
            inner = body.get("result") if isinstance(body, dict) else None
            ok = inner.get("Success") if isinstance(inner, dict) else None
            if kind == "RequestCommandOutput" and isinstance(ok, dict):
                command = str(ok.get("command") or "")
                out.append((tool_text("run_command", command, str(ok.get("output") or "")), command))
            elif kind == "GetFiles" and isinstance(ok, dict) and isinstance(ok.get("files"), list):
                names = [
                    str(f.get("file_name")) for f in ok["files"] if isinstance(f, dict) and f.get("file_name")
                ]
                out.append((tool_text("read_files", ", ".join(names)), ""))
            else:
                out.append((tool_text(_snake(kind)), ""))
    return out


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _reply(raw: object) -> str:
    """Reply text kept locally: an output column's text, or text inside an `output_status` object."""
    if not isinstance(raw, str | bytes) or not raw:
        return ""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    try:
        value = json.loads(text)
    except ValueError:
        return "" if re.fullmatch(r"\w+", text.strip()) else text.strip()  # "Completed" is a status
    return "\n\n".join(_texts(value, 0))


def _texts(value: Any, depth: int) -> list[str]:
    if depth > 5:
        return []
    if isinstance(value, list):
        return [t for v in value for t in _texts(v, depth + 1)]
    if not isinstance(value, dict):
        return []
    out = []
    for k, v in value.items():
        if isinstance(v, str) and k.lower() in _REPLY_KEYS and v.strip():
            out.append(v.strip())
        elif isinstance(v, dict | list):
            out += _texts(v, depth + 1)
    return out


def _add_blocks(
    db: sqlite3.Connection,
    events: dict[str, list[tuple[str, Message]]],
    ran: dict[str, set[str]],
    path: Path,
    ctx: ParseContext,
) -> None:
    """Commands the agent ran (blocks whose `ai_metadata` names a conversation), as marked tool calls;
    a command whose output an exchange already carries is not repeated."""
    have = columns(db, "blocks")
    if not {"ai_metadata", "stylized_command", "start_ts"} <= have:
        return
    out_col = ", stylized_output" if "stylized_output" in have else ""
    for b in db.execute(
        f"SELECT id, ai_metadata, stylized_command, start_ts{out_col} FROM blocks "
        "WHERE ai_metadata IS NOT NULL AND ai_metadata != '' ORDER BY start_ts, id"
    ):
        meta = blob_json(b["ai_metadata"], f"{path}: block {b['id']}", ctx)
        cid = meta.get("conversation_id") if isinstance(meta, dict) else None
        if not isinstance(cid, str) or cid not in events:
            continue
        command = _plain(b["stylized_command"])
        if not command or command in ran.get(cid, ()):
            continue
        output = _plain(b["stylized_output"]) if out_col else ""
        text = tool_text("run_command", command, output)
        events[cid].append(
            (
                str(b["start_ts"]),
                Message("assistant", text, parse_timestamp(b["start_ts"]), f"block:{b['id']}"),
            )
        )


def _plain(raw: object) -> str:
    if isinstance(raw, bytes | memoryview):
        raw = bytes(raw).decode("utf-8", errors="replace")
    return _ANSI.sub("", raw).strip() if isinstance(raw, str) else ""
