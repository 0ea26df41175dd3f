"""Tolerant reader for generic chat files (spec §8): JSON/JSONL messages, ShareGPT, Markdown/plain transcripts.

One module handles every "generic" shape, dispatching on content:
* JSON array of messages, `{messages: [...]}` / `{title, messages}`, arrays of such conversations;
* JSON lines, one message per line, grouped by `session_id`/`conversation_id`/`chat_id` when present;
* ShareGPT `{id, conversations: [{from, value}]}` as an array, JSON lines or a single object;
* Markdown / plain transcripts with `## User` headings, `**User:**` bold or `User:` plain labels.
Session ids are `generic:<stable_id(file name, key)>` so re-ingesting a file gives the same ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ..errors import ParseError
from ..types import Session
from . import described
from .base import (
    Message,
    ParseContext,
    finish_session,
    normalize_role,
    pair_turns,
    parse_timestamp,
    stable_id,
    text_lines,
)
from .decoding import decode_head, read_text

_TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text"}
_GROUP_KEYS = ("session_id", "conversation_id", "chat_id")
_TIME_KEYS = ("timestamp", "created_at", "create_time", "time", "date")
_ROLE_KEYS = ("role", "author", "sender", "from")
_TEXT_KEYS = ("content", "text", "value", "message")

_HEAD_LABELS = r"User|You|Human|Me|Assistant|ChatGPT|Claude|AI|Bot|Gemini"
_PLAIN_LABELS = r"User|You|Human|Assistant|AI|ChatGPT|Claude"
_HEADING = re.compile(rf"^#{{1,6}}\s*({_HEAD_LABELS})\s*:?\s*$", re.IGNORECASE)
_BOLD = re.compile(rf"^\*\*({_HEAD_LABELS})\s*:?\s*\*\*\s*:?\s*(.*)$", re.IGNORECASE)
_PLAIN = re.compile(rf"^({_PLAIN_LABELS})\s*:\s*(.*)$", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```|~~~)")
_FENCE = FENCE
_SEPARATOR = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_EXPORTED = re.compile(
    r"^_?Exported(?: on| at)?:?\s*(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?)", re.IGNORECASE
)
_COMMENT_TIME = re.compile(r"^<!--\s*(\d{4}-\d{2}-\d{2}[ T][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)\s*-->\s*$")
_FRONT_DATE = re.compile(
    r"^(?:date|created|created_at|exported)\s*:\s*['\"]?([^'\"]+?)['\"]?\s*$", re.IGNORECASE
)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the sessions of a generic JSON, JSONL, ShareGPT, Markdown or plain-text chat file."""
    kind = _kind(path)
    if kind == "text":
        yield from _parse_transcript(path, ctx)
    elif kind == "jsonl":
        yield from _parse_jsonl(path, ctx)
    else:
        yield from _parse_json(path, ctx)


def _kind(path: Path) -> str:
    """ "json", "jsonl" or "text", decided by content (and the suffix only where content is ambiguous)."""
    with path.open("rb") as f:
        head = f.read(64 * 1024)
    text = (decode_head(head, complete=False) or "").lstrip("\ufeff \t\r\n")
    suffix = path.suffix.lower()
    if not text.startswith(("{", "[")):
        return "text"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if text.startswith("{"):
        first, _, rest = text.partition("\n")
        try:
            json.loads(first)
            if rest.strip().startswith("{"):
                return "jsonl"
        except json.JSONDecodeError:
            pass
    if suffix in _TEXT_SUFFIXES:
        try:
            json.loads(read_text(path))
        except json.JSONDecodeError:
            return "text"
    return "json"


# --- messages ---------------------------------------------------------------------------------------


def _text_of(value: object) -> str:
    """Message text: a string, or OpenAI-style list of parts (`{type: text, text}` or strings)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for p in value:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and p.get("type", "text") in ("text", "input_text", "output_text"):
                t = p.get("text")
                if isinstance(t, str):
                    parts.append(t)
        return "\n".join(parts)
    if isinstance(value, dict):
        return _text_of(value.get("text", value.get("content")))
    return ""


def _message(d: object, ctx: ParseContext, where: str) -> Message | None:
    """A Message from one generic message object; None for skipped roles and non-messages."""
    if not isinstance(d, dict):
        ctx.warn(f"{where}: not a message object, skipped")
        return None
    inner = d.get("message")
    if isinstance(inner, dict) and not any(k in d for k in ("role", "author", "sender", "from")):
        d = {**d, **inner}  # {"message": {"role", "content"}} wrappers
    raw_role = next((d[k] for k in _ROLE_KEYS if k in d), None)
    if isinstance(raw_role, dict):
        raw_role = raw_role.get("role") or raw_role.get("name")
    role = normalize_role(raw_role if isinstance(raw_role, str) else None)
    if role is None:
        if str(raw_role).strip().lower() not in ("system", "tool", "function", "developer"):
            ctx.warn(f"{where}: unknown role {described.value(raw_role)}, message skipped")
        return None
    text = next((_text_of(d[k]) for k in _TEXT_KEYS if k in d and not isinstance(d[k], dict)), "")
    if not text.strip():
        text = _text_of(inner) if isinstance(inner, dict) else text
    ts = next((parse_timestamp(d[k], ctx.tz) for k in _TIME_KEYS if d.get(k) not in (None, "")), None)
    msg_id = next((str(d[k]) for k in ("id", "uuid", "message_id") if isinstance(d.get(k), (str, int))), "")
    return Message(role=role, text=text, timestamp=ts, msg_id=msg_id)


def _build(
    session_id: str, title: str, messages: list[Message], started: object, ctx: ParseContext
) -> Session | None:
    turns = pair_turns(messages)
    for i, turn in enumerate(turns):
        if not turn.turn_id:
            turn.turn_id = f"{session_id}:{i}"
    roles = []
    for m in messages:
        if m.role not in roles:
            roles.append(m.role)
    session = Session(
        session_id=session_id,
        title=title,
        participants=roles,
        turns=turns,
        started_at=parse_timestamp(started, ctx.tz),
    )
    return finish_session(session)


def _sid(path: Path, *key: str) -> str:
    return "generic:" + stable_id(path.name, *key)


def _first_line(messages: list[Message]) -> str:
    return next((m.text.strip().split("\n", 1)[0] for m in messages if m.text.strip()), "")


def _conversation(obj: dict, path: Path, ctx: ParseContext, index: int | None) -> Session | None:
    """One session from `{id?, title?, messages|conversations: [...]}`."""
    where = f"{path}" if index is None else f"{path} item {index}"
    items = obj.get("conversations") if "messages" not in obj else obj.get("messages")
    if not isinstance(items, list):
        ctx.warn(f"{where}: no message list, skipped")
        return None
    messages = [m for i, d in enumerate(items) if (m := _message(d, ctx, f"{where} message {i}"))]
    ident = obj.get("id", obj.get("conversation_id"))
    if isinstance(ident, (str, int)) and str(ident):
        sid = _sid(path, str(ident))
    else:
        sid = _sid(path, "" if index is None else str(index), _first_line(messages))
    title = obj.get("title") or obj.get("name")
    if not isinstance(title, str) or not title.strip():
        title = path.stem if index is None or ident is None else f"{path.stem} ({ident})"
    started = next((obj[k] for k in ("created_at", "create_time", "timestamp", "date") if obj.get(k)), None)
    return _build(sid, title, messages, started, ctx)


# --- JSON -------------------------------------------------------------------------------------------


def _parse_json(path: Path, ctx: ParseContext) -> Iterator[Session]:
    value = _load_or_stream(path)
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list) or _is_sharegpt(value):
            session = _conversation(value, path, ctx, None)
            if session is not None:
                yield session
            return
        convs = value.get("conversations")
        if isinstance(convs, list):
            value = iter(convs)
        else:
            raise ParseError(
                f"{path}: JSON object without a 'messages' or 'conversations' list; "
                'expected generic chat JSON like {"messages": [{"role", "content"}]}'
            )
    if isinstance(value, list):
        value = iter(value)
    loose: list[Message] = []
    for i, item in enumerate(value):  # type: ignore[arg-type]
        if isinstance(item, dict) and (isinstance(item.get("messages"), list) or _is_sharegpt(item)):
            session = _conversation(item, path, ctx, i)
            if session is not None:
                yield session
        else:
            msg = _message(item, ctx, f"{path} item {i}")
            if msg is not None:
                loose.append(msg)
    if loose:
        session = _build(_sid(path, _first_line(loose)), path.stem, loose, None, ctx)
        if session is not None:
            yield session


def _load_or_stream(path: Path) -> object:
    """A top-level array is streamed item by item (ijson); anything else is loaded whole."""
    with path.open("rb") as f:
        head = f.read(4)
    try:
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        if head.lstrip()[:1] == b"[" and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
            return _stream_array(path)
        return json.loads(read_text(path))
    except json.JSONDecodeError as e:
        raise ParseError(f"{path}: not valid JSON ({e.msg} at line {e.lineno} column {e.colno})") from None


def _stream_array(path: Path) -> Iterator[object]:
    import ijson

    with path.open("rb") as f:
        if f.read(3) != b"\xef\xbb\xbf":
            f.seek(0)
        try:
            yield from ijson.items(f, "item", use_float=True)
        except ijson.JSONError as e:
            raise ParseError(f"{path}: not valid JSON ({e})") from None


def _is_sharegpt(obj: dict) -> bool:
    convs = obj.get("conversations")
    return isinstance(convs, list) and (not convs or (isinstance(convs[0], dict) and "from" in convs[0]))


# --- JSON lines -------------------------------------------------------------------------------------


def _parse_jsonl(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Conversation-per-line objects are yielded as read; message lines are grouped and yielded at the end."""
    groups: dict[str, list[Message]] = {}
    for n, line in text_lines(path, ctx):
        if line is not None:
            yield from _jsonl_line(line, n, path, ctx, groups)
    for key, messages in groups.items():
        sid = _sid(path, key) if key else _sid(path, _first_line(messages))
        title = f"{path.stem} ({key})" if key else path.stem
        session = _build(sid, title, messages, None, ctx)
        if session is not None:
            yield session


def _jsonl_line(
    raw: str, n: int, path: Path, ctx: ParseContext, groups: dict[str, list[Message]]
) -> Iterator[Session]:
    line = raw.strip().lstrip("\ufeff")
    if not line:
        return
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        torn = not raw.endswith("\n")  # only the last line can lack its newline
        ctx.warn(f"{path}:{n}: {'torn last line' if torn else 'malformed JSON line'} skipped ({e.msg})")
        return
    if isinstance(obj, dict) and (isinstance(obj.get("messages"), list) or _is_sharegpt(obj)):
        session = _conversation(obj, path, ctx, n)
        if session is not None:
            yield session
        return
    msg = _message(obj, ctx, f"{path}:{n}")
    if msg is None:
        return
    key = next(
        (str(obj[k]) for k in _GROUP_KEYS if isinstance(obj, dict) and obj.get(k) not in (None, "")), ""
    )
    groups.setdefault(key, []).append(msg)


# --- Markdown / plain-text transcripts --------------------------------------------------------------


def label_of(line: str) -> tuple[str, str] | None:
    """(label, rest of line) when `line` opens a new message, else None (spec §8 patterns, in order)."""
    m = _HEADING.match(line)
    if m:
        return m.group(1), ""
    for rx in (_BOLD, _PLAIN):
        m = rx.match(line)
        if m:
            return m.group(1), m.group(2)
    return None


def count_labels(text: str) -> int:
    """Number of speaker-label lines outside fenced code (used by detection rule T2)."""
    count, fenced = 0, False
    for line in re.split(r"\r\n|\r|\n", text):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and label_of(line):
            count += 1
    return count


def _parse_transcript(path: Path, ctx: ParseContext) -> Iterator[Session]:
    lines = re.split(r"\r\n|\r|\n", read_text(path, ctx))
    title, started = "", None
    blocks: list[tuple[str, list[str]]] = []
    fenced = False
    i = 0
    if lines and lines[0].strip() == "---":  # YAML front matter
        end = next((j for j in range(1, len(lines)) if lines[j].strip() == "---"), 0)
        for meta in lines[1:end]:
            m = _FRONT_DATE.match(meta.strip())
            if m and started is None:
                started = parse_timestamp(m.group(1).strip(), ctx.tz)
            if meta.lower().startswith("title:") and not title:
                title = meta.split(":", 1)[1].strip().strip("'\"")
        i = end + 1 if end else 0
    for line in lines[i:]:
        label = None if fenced else label_of(line)
        if _FENCE.match(line):
            fenced = not fenced
        if label is not None:
            blocks.append((label[0], [label[1]] if label[1] else []))
        elif blocks:
            blocks[-1][1].append(line)
        else:
            s = line.strip()
            if s.startswith("# ") and not title:
                title = s[2:].strip()
            m = _EXPORTED.match(s)
            if m and started is None:
                started = parse_timestamp(m.group(1).strip(), ctx.tz)
    if not blocks:
        raise ParseError(
            f"{path}: no speaker labels found; a transcript needs lines like 'User:' / "
            "'Assistant:' or Markdown headings '## User' / '## Assistant'"
        )
    messages = []
    for label, body in blocks:
        text, ts = _body(body, ctx)
        role = normalize_role(label)
        if role:
            messages.append(Message(role=role, text=text, timestamp=ts))
    session = _build(_sid(path, _first_line(messages)), title or path.stem, messages, started, ctx)
    if session is not None:
        yield session


def _body(lines: list[str], ctx: ParseContext) -> tuple[str, datetime | None]:
    """Message text without surrounding blank/separator lines; a leading `<!-- ISO -->` is its time."""
    while lines and (not lines[0].strip() or _SEPARATOR.match(lines[0])):
        lines = lines[1:]
    ts: datetime | None = None
    if lines:
        m = _COMMENT_TIME.match(lines[0].strip())
        if m:
            ts = parse_timestamp(m.group(1), ctx.tz)
            lines = lines[1:]
    while lines and (not lines[-1].strip() or _SEPARATOR.match(lines[-1])):
        lines = lines[:-1]
    while lines and not lines[0].strip():
        lines = lines[1:]
    return "\n".join(lines), ts
