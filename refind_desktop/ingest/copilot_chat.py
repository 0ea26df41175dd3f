"""GitHub Copilot Chat reader: VS Code `workspaceStorage/<hash>/chatSessions/<id>.json` or `.jsonl`.

A `.json` session is one object (`version`, `sessionId`, `creationDate` ms, `customTitle`,
`requests[]`); each request is one turn: `message.text` from the user, `response[]` parts from
Copilot (Markdown `value`s, inline file references, tool invocations kept marked), `timestamp` ms.
Newer VS Code writes `.jsonl` mutation logs instead: line `{kind: 0, v: state}` then
`{kind: 1, k: path, v}` (set), `{kind: 2, k: path, v: items, i?}` (append/splice) and
`{kind: 3, k: path}` (delete); replaying them gives the same object.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import ParseError
from ..types import Session, Turn
from . import described
from .agent_text import first_line, load_json, tool_text
from .base import JsonlStats, ParseContext, finish_session, iter_jsonl, join_pair, parse_timestamp


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the one chat session of a Copilot Chat session file."""
    data = _replay(path, ctx) if path.suffix == ".jsonl" else load_json(path, "a Copilot Chat session")
    if not isinstance(data, dict) or not isinstance(data.get("requests"), list):
        raise ParseError(f"{path}: a Copilot Chat session is an object with 'requests'; skipped")
    sid = data.get("sessionId") if isinstance(data.get("sessionId"), str) else path.stem
    turns: list[Turn] = []
    for n, req in enumerate(data["requests"]):
        if not isinstance(req, dict):
            ctx.warn(f"{path}: request {n} is not an object; skipped")
            continue
        msg = req.get("message")
        user = msg.get("text") if isinstance(msg, dict) else msg if isinstance(msg, str) else ""
        user = (user or "").strip()
        reply = _response(req.get("response"))
        if req.get("isCanceled") and reply:
            reply += "\n\n[cancelled]"
        result = req.get("result") if isinstance(req.get("result"), dict) else {}
        error = result.get("errorDetails") if isinstance(result.get("errorDetails"), dict) else {}
        if isinstance(error.get("message"), str) and error["message"].strip():
            reply = "\n\n".join(x for x in (reply, f"[error] {error['message'].strip()}") if x)
        text = join_pair(user, [reply] if reply else [])
        if text.strip():
            turns.append(
                Turn(
                    index=len(turns),
                    text=text,
                    speaker="user+assistant" if user and reply else ("user" if user else "assistant"),
                    timestamp=parse_timestamp(req.get("timestamp")),
                    turn_id=str(req.get("requestId") or ""),
                )
            )
    title = data.get("customTitle") if isinstance(data.get("customTitle"), str) else ""
    if not title:
        first = next((r for r in data["requests"] if isinstance(r, dict)), None)
        msg = first.get("message") if first else None
        title = first_line(msg.get("text", "") if isinstance(msg, dict) else "")
    session = finish_session(
        Session(
            session_id=f"copilot-chat:{sid}",
            title=title,
            started_at=parse_timestamp(data.get("creationDate")),
            participants=[
                str(data.get("requesterUsername") or "user"),
                str(data.get("responderUsername") or "GitHub Copilot"),
            ],
            turns=turns,
        )
    )
    if session is not None:
        yield session


def _response(parts: object) -> str:
    """Copilot's reply: Markdown values joined, file references by name, tool invocations marked."""
    out: list[str] = []
    for p in parts if isinstance(parts, list) else []:
        if not isinstance(p, dict):
            continue
        kind = p.get("kind")
        if kind in (None, "markdownContent", "markdownVuln"):
            value = p.get("value")
            value = (
                value
                if isinstance(value, str)
                else (p.get("content") or {}).get("value")
                if isinstance(p.get("content"), dict)
                else value
            )
            if isinstance(value, str):
                out.append(value)
        elif kind == "inlineReference":
            out.append(f"`{_ref_name(p)}`")
        elif kind in ("toolInvocationSerialized", "toolInvocation"):
            msg = p.get("pastTenseMessage") or p.get("invocationMessage")
            msg = msg.get("value") if isinstance(msg, dict) else msg
            out.append("\n\n" + tool_text(str(p.get("toolId") or "tool"), str(msg or "")) + "\n\n")
        elif kind == "textEditGroup":
            out.append("\n\n" + tool_text("edit", _ref_name({"inlineReference": p.get("uri")})) + "\n\n")
    text = "".join(out)
    return "\n\n".join(block.strip() for block in text.split("\n\n") if block.strip())


def _ref_name(part: dict[str, Any]) -> str:
    ref = part.get("inlineReference")
    if isinstance(part.get("name"), str):
        return part["name"]
    if isinstance(ref, dict):
        path = ref.get("path") or ref.get("fsPath") or (ref.get("uri") or {}).get("path")
        if isinstance(path, str):
            return PurePosixPath(path).name
        if isinstance(ref.get("name"), str):
            return ref["name"]
    return "reference"


def _replay(path: Path, ctx: ParseContext) -> Any:
    """Apply the mutation log of a `.jsonl` session: initial state, then set / splice / delete ops."""
    state: Any = None
    stats = JsonlStats()
    for lineno, op in iter_jsonl(path, ctx, stats):
        if not isinstance(op, dict) or op.get("kind") not in (0, 1, 2, 3):
            ctx.warn(f"{path}: line {lineno} is not a session update; skipped")
            continue
        kind, keys, value = op["kind"], op.get("k") or [], op.get("v")
        if kind == 0:
            state = value
            continue
        if state is None or not isinstance(keys, list) or not keys:
            ctx.warn(f"{path}: line {lineno} updates a session that has no initial state; skipped")
            continue
        try:
            parent = state
            for k in keys[:-1]:
                parent = parent[k]
            last = keys[-1]
            if kind == 1:
                parent[last] = value
            elif kind == 2:
                target = parent[last]
                start = op.get("i")
                if isinstance(start, int):
                    del target[start:]
                target.extend(value if isinstance(value, list) else [value])
            elif isinstance(parent, dict):
                parent.pop(last, None)
            else:
                del parent[last]
        except (KeyError, IndexError, TypeError, AttributeError):
            ctx.warn(
                f"{path}: line {lineno} updates a path [{', '.join(described.value(k) for k in keys)}] that does not exist; skipped"
            )
    if state is None and not stats.valid:
        raise ParseError(f"{path}: empty or unreadable Copilot Chat session log; skipped")
    return state
