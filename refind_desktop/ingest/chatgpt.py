"""ChatGPT data-export parser (`conversations*.json`, split shards, or the export `.zip`), streamed.

Visible text = the `current_node` branch (walked up `parent`, reversed); only user/assistant
messages that are not hidden, not addressed to a tool, not on the analysis/commentary channel and
of a visible content type (`text`, `multimodal_text`) count. Images become `[image <pointer>]`
markers, audio transcriptions are kept, citation markers are stripped. `metadata.attachments` is not
used (images already appear as parts).

Also hosts the streaming JSON helpers (`json_sources`, `open_json`, `iter_records`,
`stream_sessions`, `error_reason`, `fill_turn_times`) that the Claude.ai, Open WebUI, Telegram and
Discord parsers share: a top-level array is read one element at a time with ijson, so a 1 GB
export never sits in memory.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import ijson

from ..errors import ParseError
from ..types import Session, Turn
from .base import Message, ParseContext, finish_session, pair_turns, parse_timestamp, stable_id

# --------------------------------------------------------------------------------------------------
# Shared streaming helpers (used by claude_ai.py and openwebui.py too)
# --------------------------------------------------------------------------------------------------

CONVERSATIONS_MEMBER = re.compile(r"^conversations[^/]*\.json$", re.IGNORECASE)

# What a torn, truncated or corrupt file (or zip member) raises while it is being streamed.
STREAM_ERRORS = (ijson.JSONError, UnicodeDecodeError, zipfile.BadZipFile, zlib.error, EOFError, OSError)

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class JsonSource:
    """One JSON document to stream: a plain file or a member of a zip archive."""

    name: str
    opener: Callable[[], IO[bytes]]


def json_sources(path: Path, member: re.Pattern[str] = CONVERSATIONS_MEMBER) -> list[JsonSource]:
    """The JSON documents behind `path`: the file itself, matching zip members, or matching files of a dir.

    Zip members and directory entries are matched on their base name and returned in name order
    (so `conversations-000.json` comes before `conversations-001.json`).
    """
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and member.match(p.name))
        if not files:
            raise ParseError(
                f"{path}: no file matching {member.pattern!r} in this folder; "
                "point refind at the export's conversations JSON or its .zip"
            )
        return [JsonSource(str(p), _file_opener(p)) for p in files]
    suffix = path.suffix.lower()
    if suffix == ".zip" or (suffix != ".json" and zipfile.is_zipfile(path)):
        try:
            with zipfile.ZipFile(path) as zf:
                names = sorted(
                    n
                    for n in zf.namelist()
                    if not n.endswith("/")
                    and not n.startswith("__MACOSX/")
                    and member.match(n.rsplit("/", 1)[-1])
                )
        except (zipfile.BadZipFile, OSError) as exc:
            raise ParseError(f"{path}: not a readable zip archive ({exc}); re-download the export") from exc
        if not names:
            raise ParseError(
                f"{path}: the archive holds no file matching {member.pattern!r}; is this the right export?"
            )
        return [JsonSource(f"{path}:{n}", _member_opener(path, n)) for n in names]
    return [JsonSource(str(path), _file_opener(path))]


def _file_opener(path: Path) -> Callable[[], IO[bytes]]:
    return lambda: open(path, "rb")


class _MemberFile:
    """A zip member opened for reading that closes its archive with it."""

    def __init__(self, archive: Path, name: str) -> None:
        self._zf = zipfile.ZipFile(archive)
        try:
            self._fp = self._zf.open(name)
        except BaseException:
            self._zf.close()
            raise

    def read(self, size: int = -1) -> bytes:
        return self._fp.read(size)

    def close(self) -> None:
        self._fp.close()
        self._zf.close()

    def __enter__(self) -> _MemberFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _member_opener(archive: Path, name: str) -> Callable[[], IO[bytes]]:
    return lambda: _MemberFile(archive, name)  # type: ignore[return-value]


def open_json(src: JsonSource) -> tuple[IO[bytes], bytes]:
    """Open `src` positioned after an optional UTF-8 BOM; also return its first non-blank byte.

    The caller closes the returned file.
    """
    with src.opener() as f:
        head = f.read(4096)
    skip = len(_BOM) if head.startswith(_BOM) else 0
    first = head[skip:].lstrip()[:1]
    f = src.opener()
    if skip:
        f.read(skip)
    return f, first


def _has_top_key(src: JsonSource, key: str) -> bool:
    """Whether the top-level JSON object of `src` has `key` (scans the file, holds nothing)."""
    f, _ = open_json(src)
    with f:
        for prefix, event, value in ijson.parse(f, use_float=True):
            if prefix == "" and event == "map_key" and value == key:
                return True
    return False


def iter_records(src: JsonSource, wrapper_key: str | None = None) -> Iterator[Any]:
    """Yield the elements of a top-level JSON array one at a time.

    A top-level object is either a wrapper holding the array under `wrapper_key` (streamed too) or
    a single record (yielded whole). Raises one of STREAM_ERRORS on torn or invalid JSON.
    """
    f, first = open_json(src)
    with f:
        if first == b"[":
            prefix = "item"
        elif first == b"{":
            prefix = f"{wrapper_key}.item" if wrapper_key and _has_top_key(src, wrapper_key) else ""
        else:
            raise ijson.JSONError("not a JSON array or object" if first else "the file is empty")
        yield from ijson.items(f, prefix, use_float=True)


def stream_sessions(
    path: Path,
    ctx: ParseContext,
    build: Callable[[Any, str], Session | None],
    *,
    what: str,
    wrapper_key: str | None = None,
    member: re.Pattern[str] = CONVERSATIONS_MEMBER,
    records: Callable[[JsonSource], Iterator[Any]] | None = None,
) -> Iterator[Session]:
    """Stream every record of every source behind `path` through `build`, yielding the sessions.

    Records come from `records(source)` when given, else from `iter_records(source, wrapper_key)`.

    `build(record, source_name)` returns a session or None; any KeyError/TypeError/ValueError/
    AttributeError it raises marks that record malformed (warned, skipped). A source that breaks
    off midway (truncated download) is warned about and the sessions already yielded stand; when
    nothing at all could be yielded and a source failed, ParseError is raised.
    """
    yielded = 0
    failures: list[str] = []
    for src in json_sources(path, member):
        count = 0
        try:
            for record in records(src) if records else iter_records(src, wrapper_key):
                count += 1
                try:
                    session = build(record, src.name)
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    ctx.warn(f"{src.name}: {what} #{count} is malformed and was skipped ({exc!r})")
                    continue
                if session is not None:
                    yielded += 1
                    yield session
        except STREAM_ERRORS as exc:
            reason = error_reason(exc)
            failures.append(f"{src.name}: {reason}")
            ctx.mark_incomplete(
                f"{src.name}: reading stopped after {count} {what}(s): {reason}; "
                "the file looks truncated or corrupt, re-download the export to get the rest"
            )
    if failures and not yielded:
        raise ParseError(
            f"{path}: no {what} could be read ({'; '.join(failures)}); "
            "check that the file is a complete, unmodified export"
        )


def error_reason(exc: BaseException) -> str:
    """One line saying why a stream failed (ijson's multi-line messages cut to their first line)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def fill_turn_times(turns: list[Turn], default: datetime | None) -> None:
    """Give untimed turns the previous turn's time (the session start for leading ones)."""
    last = default
    for t in turns:
        if t.timestamp is None:
            t.timestamp = last
        else:
            last = t.timestamp


def roles_present(messages: list[Message]) -> list[str]:
    """The distinct roles of `messages` in first-seen order (session participants)."""
    return list(dict.fromkeys(m.role for m in messages))


# --------------------------------------------------------------------------------------------------
# ChatGPT conversations
# --------------------------------------------------------------------------------------------------

VISIBLE_TYPES = {"text", "multimodal_text"}
HIDDEN_TYPES = {
    "code",
    "execution_output",
    "tether_browsing_display",
    "tether_quote",
    "thoughts",
    "reasoning_recap",
    "user_editable_context",
    "computer_output",
    "super_widget",
    "system_error",
    "model_editable_context",
    "system_message",
    "app_pairing_content",
    "sonic_webpage",
}
HIDDEN_CHANNELS = {"analysis", "commentary"}

# Citation markers: `\ue200cite\ue202turn0search1\ue201` (2025+) and `【4:0†source】` (older).
_CITATIONS = re.compile("[ \t]?(?:\ue200[^\ue200\ue201]*\ue201|【[^【】\n]*†[^【】\n]*】)")


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per ChatGPT conversation with visible messages (the `current_node` branch)."""
    unknown: set[str] = set()

    def build(conv: Any, source: str) -> Session | None:
        return _conversation(conv, source, ctx, unknown)

    yield from stream_sessions(path, ctx, build, what="conversation", wrapper_key="conversations")


def _conversation(conv: Any, source: str, ctx: ParseContext, unknown: set[str]) -> Session | None:
    if not isinstance(conv, dict):
        raise TypeError(f"expected a conversation object, got {type(conv).__name__}")
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ValueError("conversation has no 'mapping' object")
    title = conv.get("title") or ""
    conv_id = conv.get("conversation_id") or conv.get("id")
    if not conv_id:
        conv_id = stable_id(str(title), str(conv.get("create_time")))
    label = f"{source}: conversation {conv_id}"
    messages: list[Message] = []
    for node in _active_path(mapping, conv.get("current_node"), ctx, label):
        msg = _visible_message(node.get("message"), ctx, label, unknown)
        if msg is not None:
            messages.append(msg)
    started = parse_timestamp(conv.get("create_time"))
    turns = pair_turns(messages)
    fill_turn_times(turns, started)
    session = Session(
        session_id=f"chatgpt:{conv_id}",
        title=str(title),
        started_at=started,
        participants=roles_present(messages),
        turns=turns,
    )
    return finish_session(session)


def _active_path(mapping: dict[str, Any], current: Any, ctx: ParseContext, label: str) -> list[dict]:
    """Nodes from the root to `current_node` (the branch the user last saw), in order."""
    if not isinstance(current, str) or current not in mapping:
        if current:
            ctx.warn(f"{label}: current_node {current!r} is not in the mapping; using the deepest branch")
        current = _deepest_leaf(mapping)
    chain: list[dict] = []
    seen: set[str] = set()
    nid: Any = current
    while nid is not None:
        node = mapping.get(nid) if isinstance(nid, str) else None
        if not isinstance(node, dict):
            ctx.warn(f"{label}: node {nid!r} is missing from the mapping; the branch starts after it")
            break
        if nid in seen:
            ctx.warn(f"{label}: the parent links form a cycle at {nid!r}; the branch starts after it")
            break
        seen.add(nid)
        chain.append(node)
        nid = node.get("parent")
    chain.reverse()
    return chain


def _deepest_leaf(mapping: dict[str, Any]) -> str | None:
    """Fallback when `current_node` is missing: the deepest leaf, the latest one on ties."""
    depth: dict[str, int] = {}

    def depth_of(nid: str) -> int:
        trail: list[str] = []
        cur: Any = nid
        while isinstance(cur, str) and cur in mapping and cur not in depth and cur not in trail:
            trail.append(cur)
            node = mapping[cur]
            cur = node.get("parent") if isinstance(node, dict) else None
        base = depth.get(cur, 0) if isinstance(cur, str) else 0
        for i, n in enumerate(reversed(trail)):
            depth[n] = base + i + 1
        return depth.get(nid, 0)

    def created(nid: str) -> float:
        msg = mapping[nid].get("message") if isinstance(mapping[nid], dict) else None
        t = msg.get("create_time") if isinstance(msg, dict) else None
        return float(t) if isinstance(t, (int, float)) else 0.0

    leaves = [
        nid
        for nid, node in mapping.items()
        if isinstance(node, dict) and not any(c in mapping for c in (node.get("children") or []))
    ]
    if not leaves:
        return None
    return max(leaves, key=lambda n: (depth_of(n), created(n)))


def _visible_message(msg: Any, ctx: ParseContext, label: str, unknown: set[str]) -> Message | None:
    """The user/assistant text of a node's message, or None when the message is not shown."""
    if not isinstance(msg, dict):
        return None
    role = (msg.get("author") or {}).get("role")
    if role not in ("user", "assistant"):
        return None  # system boilerplate and tool outputs are not turns
    meta = msg.get("metadata") or {}
    if meta.get("is_visually_hidden_from_conversation") or meta.get("is_user_system_message"):
        return None
    weight = msg.get("weight")
    if isinstance(weight, (int, float)) and weight == 0:
        return None
    if msg.get("recipient") not in (None, "all"):
        return None  # a tool call addressed to python / web.run / ...
    if msg.get("channel") in HIDDEN_CHANNELS:
        return None
    content = msg.get("content") or {}
    ctype = content.get("content_type")
    if ctype in HIDDEN_TYPES:
        return None
    if ctype not in VISIBLE_TYPES:
        if ctype not in unknown:
            unknown.add(str(ctype))
            ctx.warn(
                f"{label}: unknown content_type {ctype!r} (first seen here); "
                "its parts are kept when it has any, otherwise it is skipped"
            )
        if not isinstance(content.get("parts"), list):
            return None
    text = _parts_text(content.get("parts"))
    if "\ue200" in text or "†" in text:
        text = _CITATIONS.sub("", text)
    text = text.strip()
    if not text:
        return None
    return Message(
        role=role,
        text=text,
        timestamp=parse_timestamp(msg.get("create_time")),
        msg_id=str(msg.get("id") or ""),
    )


def _parts_text(parts: Any) -> str:
    """Join `parts`: strings and transcriptions verbatim, images as `[image <pointer>]` markers.

    Text pieces are joined with newlines; a marker is put on the line of the text that follows it
    (as the UI shows the image above the caption).
    """
    if not isinstance(parts, list):
        return ""
    pieces: list[str] = []
    markers: list[str] = []
    for part in parts:
        text = ""
        if isinstance(part, str):
            text = part
        elif isinstance(part, dict):
            kind = part.get("content_type")
            if kind == "image_asset_pointer":
                markers.append(f"[image {part.get('asset_pointer') or ''}]".replace(" ]", "]"))
                continue
            if kind == "audio_transcription" or (
                kind not in _MEDIA_PARTS and isinstance(part.get("text"), str)
            ):
                text = part.get("text") or ""
        if not text.strip():
            continue
        if markers:
            text = " ".join(markers) + " " + text
            markers = []
        pieces.append(text)
    if markers:
        pieces.append(" ".join(markers))
    return "\n".join(pieces)


_MEDIA_PARTS = {
    "audio_asset_pointer",
    "real_time_user_audio_video_asset_pointer",
    "video_container_asset_pointer",
}
