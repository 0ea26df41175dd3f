"""OpenCode reader: `~/.local/share/opencode/storage/session/<project>/<session>.json` and its messages.

A session file names the session (`id`, `title`, `time.created` in epoch ms); its messages are
`storage/message/<sessionID>/<messageID>.json` (`role`, `time.created`) and their content is in
parts, `storage/part/<messageID>/<partID>.json` (`type` text / tool / reasoning / file / step-*).
The older layout kept both under `storage/session/message/` and `storage/session/part/<sessionID>/`.
OpenCode 1.2 moved everything into `~/.local/share/opencode/opencode.db` (tables session,
message and part, each message and part a JSON `data` column), read here read-only.
Text parts make the turn, tool parts are kept marked, reasoning and step markers are dropped.
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
from .agent_text import args_text, first_line, load_json, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp
from .sqlite_ro import is_sqlite, open_readonly


def storage_root(path: Path) -> Path | None:
    """The `storage` folder a session file sits in (`storage/session/<project>/<id>.json`)."""
    for parent in path.parents:
        if parent.name == "storage":
            return parent
    return None


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session of one OpenCode session file, or every session of an `opencode.db`."""
    if is_sqlite(path):
        yield from _parse_db(path, ctx)
        return
    info = load_json(path, "an OpenCode session")
    if not isinstance(info, dict) or not isinstance(info.get("id"), str):
        raise ParseError(f"{path}: an OpenCode session file is an object with an 'id'; skipped")
    root = storage_root(path)
    if root is None:
        raise ParseError(f"{path}: not inside an OpenCode 'storage' folder, so its messages cannot be found")
    sid = info["id"]
    raw = []
    for folder in (root / "message" / sid, root / "session" / "message" / sid):
        raw += [(p, _read(p, ctx)) for p in sorted(folder.glob("*.json"))]
    rows = []
    for p, m in raw:
        if isinstance(m, dict) and m.get("role") in ("user", "assistant"):
            mid = str(m.get("id") or p.stem)
            rows.append((m, mid, _parts(root, sid, mid, ctx)))
    session = _session(info, rows)
    if session is not None:
        yield session


def _parse_db(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """OpenCode 1.2+: tables session, message (`data` JSON) and part (`data` JSON) in opencode.db."""
    sessions = []
    try:
        with closing(open_readonly(path)) as db:
            db.row_factory = sqlite3.Row
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"session", "message", "part"} <= tables:
                raise ParseError(f"{path}: SQLite database without OpenCode's session/message/part tables")
            for srow in db.execute("SELECT * FROM session ORDER BY time_created, id").fetchall():
                cols = srow.keys()
                info = {
                    "id": srow["id"],
                    "title": srow["title"] if "title" in cols else "",
                    "time": {"created": srow["time_created"]},
                }
                rows = []
                for m in db.execute(
                    "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id",
                    (srow["id"],),
                ).fetchall():
                    data = _json(m["data"], f"{path}: message {m['id']}", ctx)
                    if not isinstance(data, dict) or data.get("role") not in ("user", "assistant"):
                        continue
                    data.setdefault("time", {"created": m["time_created"]})
                    parts = []
                    for r in db.execute(
                        "SELECT id, data FROM part WHERE message_id = ? ORDER BY id", (m["id"],)
                    ):
                        part = _json(r["data"], f"{path}: part {r['id']}", ctx)
                        if isinstance(part, dict):
                            parts.append({**part, "id": r["id"]})
                    rows.append((data, str(m["id"]), parts))
                session = _session(info, rows)
                if session is not None:
                    sessions.append(session)
    except sqlite3.DatabaseError as e:
        raise ParseError(f"{path}: cannot read this SQLite database ({e}); skipped") from None
    yield from sessions


def _json(raw: object, where: str, ctx: ParseContext) -> Any:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        ctx.warn(f"{where} is not valid JSON; skipped")
        return None


def _session(
    info: dict[str, Any], rows: list[tuple[dict[str, Any], str, list[dict[str, Any]]]]
) -> Session | None:
    """One session from its info and its (message, message id, parts) rows, in time order."""
    rows.sort(key=lambda r: (_ms(r[0].get("time")), r[1]))
    messages: list[Message] = []
    for m, mid, parts in rows:
        texts = [t for t in (_part_text(part, m["role"]) for part in parts) if t]
        if texts:
            ts = parse_timestamp(_ms(m.get("time")) or None)
            messages.append(Message(m["role"], "\n\n".join(texts), ts, mid))
    title = info.get("title") if isinstance(info.get("title"), str) else ""
    if not title or title.startswith("New session - "):
        title = next((first_line(m.text) for m in messages if m.role == "user"), title)
    return finish_session(
        Session(
            session_id=f"opencode:{info['id']}",
            title=title,
            started_at=parse_timestamp(_ms(info.get("time")) or None),
            participants=["user", "opencode"],
            turns=pair_turns(messages),
        )
    )


def _ms(time: object) -> int:
    created = time.get("created") if isinstance(time, dict) else None
    return created if isinstance(created, int) else 0


def _read(path: Path, ctx: ParseContext) -> Any:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        ctx.warn(f"{path}: unreadable OpenCode record ({e}); skipped")
        return None


def _parts(root: Path, sid: str, mid: str, ctx: ParseContext) -> list[dict[str, Any]]:
    files = sorted((root / "part" / mid).glob("*.json")) + sorted(
        (root / "session" / "part" / sid / mid).glob("*.json")
    )
    parts = [p for p in (_read(f, ctx) for f in files) if isinstance(p, dict)]
    parts.sort(key=lambda p: str(p.get("id") or ""))
    return parts


def _part_text(part: dict[str, Any], role: str) -> str:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        if part.get("synthetic") and role == "user":
            return ""  # injected by opencode (file contents, mode reminders), not typed by the user
        return part["text"].strip()
    if kind == "tool":
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        output = state.get("output") if isinstance(state.get("output"), str) else ""
        if not output and isinstance(state.get("error"), str):
            output = "[error] " + state["error"]
        detail = state.get("title") if isinstance(state.get("title"), str) else args_text(state.get("input"))
        return tool_text(str(part.get("tool") or "tool"), detail, output)
    if kind == "file":
        return f"[attached file: {part.get('filename') or part.get('url') or 'file'}]"
    return ""  # reasoning, step-start/finish, snapshot, patch, agent, compaction
