"""OpenCode reader: `~/.local/share/opencode/storage/session/<project>/<session>.json` and its messages.

A session file names the session (`id`, `title`, `time.created` in epoch ms); its messages are
`storage/message/<sessionID>/<messageID>.json` (`role`, `time.created`) and their content is in
parts, `storage/part/<messageID>/<partID>.json` (`type` text / tool / reasoning / file / step-*).
The older layout kept both under `storage/session/message/` and `storage/session/part/<sessionID>/`.
Text parts make the turn, tool parts are kept marked, reasoning and step markers are dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .agent_text import args_text, first_line, load_json, tool_text
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp


def storage_root(path: Path) -> Path | None:
    """The `storage` folder a session file sits in (`storage/session/<project>/<id>.json`)."""
    for parent in path.parents:
        if parent.name == "storage":
            return parent
    return None


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the session described by one OpenCode session file, with its messages and parts."""
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
    rows = [(p, m) for p, m in raw if isinstance(m, dict) and m.get("role") in ("user", "assistant")]
    rows.sort(key=lambda pm: (_ms(pm[1].get("time")), str(pm[1].get("id") or pm[0].stem)))
    messages: list[Message] = []
    for p, m in rows:
        mid = str(m.get("id") or p.stem)
        texts = [t for t in (_part_text(part, m["role"]) for part in _parts(root, sid, mid, ctx)) if t]
        if texts:
            messages.append(
                Message(m["role"], "\n\n".join(texts), parse_timestamp(_ms(m.get("time")) or None), mid)
            )
    title = info.get("title") if isinstance(info.get("title"), str) else ""
    if not title or title.startswith("New session - "):
        title = next((first_line(m.text) for m in messages if m.role == "user"), title)
    session = finish_session(
        Session(
            session_id=f"opencode:{sid}",
            title=title,
            started_at=parse_timestamp(_ms(info.get("time")) or None),
            participants=["user", "opencode"],
            turns=pair_turns(messages),
        )
    )
    if session is not None:
        yield session


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
