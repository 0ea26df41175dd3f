"""Continue reader: `~/.continue/sessions/<sessionId>.json` (title, workspace, `history[]`).

Each history item is `{message: {role, content}, contextItems: [...]}`; roles user / assistant
make the turn, `tool` messages and assistant `toolCalls` are kept marked, `thinking` is dropped.
Attached context items are named (not copied: they are whole files). Session files carry no
times; the creation time comes from the `sessions.json` index next to them when it is there.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, load_json, text_of, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp

INDEX = "sessions.json"


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one session of a Continue session file."""
    data = load_json(path, "a Continue session")
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        raise ParseError(f"{path}: a Continue session is an object with a 'history' list; skipped")
    sid = str(data.get("sessionId") or path.stem)
    meta = _index(str(path.parent / INDEX)).get(sid, {})
    started = parse_timestamp(meta.get("dateCreated") or data.get("dateCreated"))
    messages: list[Message] = []
    for n, item in enumerate(data["history"]):
        msg = item.get("message") if isinstance(item, dict) else None
        if not isinstance(msg, dict):
            ctx.warn(f"{path}: history item {n} has no message; skipped")
            continue
        role, text = msg.get("role"), text_of(msg.get("content")).strip()
        if role == "user":
            names = [
                str(c.get("name"))
                for c in item.get("contextItems") or []
                if isinstance(c, dict) and c.get("name")
            ]
            if names:
                text += "\n\n[attached context: " + ", ".join(names) + "]"
            if text.strip():
                messages.append(Message("user", text.strip(), started, str(msg.get("id") or "")))
        elif role == "assistant":
            parts = [text] if text else []
            for call in msg.get("toolCalls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    parts.append(tool_text(str(fn.get("name") or "tool"), args_text(fn.get("arguments"))))
            if parts:
                messages.append(Message("assistant", "\n\n".join(parts), started))
        elif role == "tool" and text:
            messages.append(Message("assistant", tool_text("tool result", "", text), started))
    title = data.get("title") if isinstance(data.get("title"), str) else ""
    if not title or title == "New Session":
        title = next((first_line(m.text) for m in messages if m.role == "user"), title)
    session = finish_session(
        Session(
            session_id=f"continue:{sid}",
            title=title,
            started_at=started,
            participants=["user", "continue"],
            turns=pair_turns(_merge(messages)),
        )
    )
    if session is not None:
        yield session


def _merge(messages: list[Message]) -> list[Message]:
    """Consecutive assistant messages (reply, tool call, tool result, reply) stay one reply."""
    out: list[Message] = []
    for m in messages:
        if out and m.role == "assistant" and out[-1].role == "assistant":
            out[-1].text += "\n\n" + m.text
        else:
            out.append(m)
    return out


def _index(index: str) -> dict[str, dict[str, Any]]:
    try:
        st = Path(index).stat()
    except OSError:
        return {}
    return _read_index(index, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _read_index(index: str, size: int, mtime_ns: int) -> dict[str, dict[str, Any]]:
    """sessionId -> index row, cached per (path, size, mtime) since every session shares it."""
    try:
        with open(index, encoding="utf-8", errors="replace") as f:
            rows = json.load(f)
    except (OSError, ValueError):
        return {}
    return (
        {str(r["sessionId"]): r for r in rows if isinstance(r, dict) and r.get("sessionId")}
        if isinstance(rows, list)
        else {}
    )
