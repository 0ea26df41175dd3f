"""Format detection for one path: path rules, then a 64 KiB content sniff (spec §1).

`detect_file` names the format of a file, a `.zip`/`.gz` or a Slack export folder, or raises
`UndetectedError` with a short human reason. Sniffing never reads more than the first 64 KiB.
The folder walk lives in `walker.py`, text decoding in `decoding.py`, the format list in
`formats.py`."""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
import zipfile
import zlib
from pathlib import Path
from typing import IO

from ..errors import ParseError
from . import agent_paths, described, sniff
from .base import ZSTD_MAGIC, ParseContext, text_lines
from .decoding import decode_head
from .limits import LimitExceeded, Limits, check_member, check_zip, open_zst
from .slack import zip_root as slack_zip_root
from .whatsapp import CHAT_FILE as WHATSAPP_NAME

SNIFF_BYTES = 64 * 1024
CONVERSATIONS_NAME = re.compile(r"^conversations(?:-\d+)?\.json$")
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_D1 = re.compile(
    r"(?:^|/)\.claude/projects/[^/]+/(?:"
    + _UUID
    + r"\.jsonl|"
    + _UUID
    + r"/subagents/agent-[^/]+\.jsonl|agent-[^/]+\.jsonl)$"
)
_D2 = re.compile(r"(?:^|/)(?:sessions/\d{4}/\d{2}/\d{2}|archived_sessions)/rollout-[^/]+\.jsonl(?:\.zst)?$")
_D8 = re.compile(r" - \d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s\d{3}ms\.jsonl$")
_D9 = re.compile(r"^chat-export-\d{13}\.json$")
_SLACK_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
GZIP_FORMATS = {"longmemeval", "locomo"}  # parsers that read .json.gz themselves
ZST_FORMATS = {"codex", "claude_code", "sillytavern"}  # JSONL parsers that read .zst themselves
_PROMPT_HISTORY = re.compile(r"(?:^|/)\.(?:claude|codex)/(?:history|session_index)\.jsonl$")
_MAGIC = {b"\x28\xb5\x2f\xfd": "zstd", b"BZh": "bzip2", b"\xfd7zXZ": "xz"}


class UndetectedError(ParseError):
    """The format of a file could not be determined; `reason` is the short human reason."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason


def detect_file(path: Path, limits: Limits | None = None) -> str:
    """Return the format name of `path` (file, .zip or Slack folder) or raise `ParseError`."""
    path = Path(path)
    limits = limits or Limits()
    try:
        if path.is_dir():
            if is_slack_dir(path):
                return "slack"
            if folder_fmt := agent_paths.folder_source(path):
                return folder_fmt  # an OpenHands conversation folder
            raise UndetectedError(
                path,
                "folder that is not a Slack export (no channels.json + users.json "
                "with per-day channel files)",
            )
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            kind = "named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode) else "socket or device"
            raise UndetectedError(path, f"not a regular file ({kind}); refind reads only regular files")
        size = st.st_size
        if size == 0:
            raise UndetectedError(path, "empty file")
        posix = path.as_posix()
        if _D1.search(posix):
            return "claude_code"
        if _D2.search(posix):
            return "codex"
        if _PROMPT_HISTORY.search(posix):
            raise UndetectedError(path, "Claude Code / Codex prompt history index (not a transcript)")
        agent_fmt, not_chat = agent_paths.classify(path)
        if not_chat:
            raise UndetectedError(path, not_chat)
        if agent_fmt:
            return agent_fmt
        with path.open("rb") as f:
            head = f.read(SNIFF_BYTES)
        if head.startswith(b"PK\x03\x04") or path.suffix.lower() == ".zip":
            return _detect_zip(path, limits)
        if head.startswith(b"\x1f\x8b"):
            return _detect_gzip(path)
        if head.startswith(ZSTD_MAGIC):
            return _detect_zst(path, limits)
        try:
            return _detect_bytes(head, size <= len(head), path.name, path)
        except UndetectedError:
            fmt = _by_records(path, head, size, limits)
            if fmt is None:
                raise
            return fmt
    except FileNotFoundError:
        if path.is_symlink():
            raise UndetectedError(path, "broken symbolic link") from None
        raise UndetectedError(path, "file vanished during ingest") from None
    except OSError as e:
        raise UndetectedError(path, f"unreadable: {e.strerror or e}") from None


def _detect_bytes(head: bytes, complete: bool, name: str, path: Path | str) -> str:
    """Content rules J/L/T on the first bytes of a file (`complete` when they are the whole file)."""
    if not head.strip():
        raise UndetectedError(path, "empty file" if not head else "empty file (only whitespace)")
    for magic, kind in _MAGIC.items():
        if head.startswith(magic):
            raise UndetectedError(
                path, f"{kind}-compressed file: decompress it first, then ingest the result"
            )
    text = decode_head(head, complete)
    if text is None:
        raise UndetectedError(path, "binary file (not a chat export)")
    text = text.lstrip("\ufeff")
    body = text.lstrip()
    if agent_fmt := agent_paths.sniff(body):
        return agent_fmt
    lower = name.lower()
    json_like = body[:1] in ("{", "[")
    if json_like:
        try:
            return sniff.sniff_json(body, complete, lower)
        except sniff.Unknown as e:
            # A "[" or "{" is one weak signal: iOS WhatsApp lines start with "[12/03/2024, ...".
            # Only a JSON file name makes the JSON verdict final; otherwise the text rules get a say.
            if lower.endswith((".json", ".jsonl", ".ndjson")):
                raise UndetectedError(path, e.reason) from None
            json_reason = "" if e.reason.startswith("not valid JSON") else e.reason  # e.g. TOML, Markdown
    else:
        json_reason = ""
    fmt = sniff.sniff_text(text, WHATSAPP_NAME.match(name) is not None)
    if fmt:
        return fmt
    if not complete and isinstance(path, Path) and sniff.count_labels(text) == 1 and _second_label(path):
        return "generic"  # a transcript whose first message is longer than the sniff window
    if json_reason:
        raise UndetectedError(path, json_reason)
    raise UndetectedError(
        path,
        f"unknown format: {described.text_kind(text, complete)}, not a known chat format "
        "(no WhatsApp date prefixes or User:/Assistant: labels)",
    )


RECORDS = 20
"""JSON-lines records read to decide a file whose first line does not fit in the sniff window."""


def _by_records(path: Path, head: bytes, size: int, limits: Limits) -> str | None:
    """A JSON-lines file decided by its first whole records when line 1 is longer than the sniff window
    (a Claude Code transcript whose first message is a pasted log): each line is read whole up to
    `max_string_mb`; a longer first line, or no object, leaves the file undecided."""
    if size <= len(head) or not head.lstrip()[:1] == b"{" or b"\n" in head.strip():
        return None
    objs: list[dict] = []
    cap = limits.max_string_bytes
    with path.open("rb") as f:
        for _ in range(RECORDS * 2):
            line = f.readline(cap + 1)
            if not line or (len(line) > cap and not line.endswith(b"\n")):
                break  # the end, or a line over the string limit: the parser would skip it too
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                if not objs:
                    return None
                continue
            if isinstance(obj, dict):
                objs.append(obj)
            elif not objs:
                return None
            if len(objs) >= RECORDS:
                break
    return sniff.match_records(objs)


def _second_label(path: Path) -> bool:
    """Whether a text file has a second User:/Assistant: label line anywhere (streamed, fences respected)."""
    labels, fenced = 0, False
    for _, line in text_lines(path, ParseContext()):
        if line is None:
            continue
        if sniff.is_fence(line):
            fenced = not fenced
        elif not fenced and sniff.label_of(line.rstrip("\r\n")):
            labels += 1
            if labels >= 2:
                return True
    return False


def _detect_gzip(path: Path) -> str:
    """Sniff the start of a gzip stream; only formats whose parser reads .gz are accepted."""
    try:
        with gzip.open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
            complete = len(head) < SNIFF_BYTES or not f.read(1)
    except (OSError, EOFError, zlib.error) as e:
        raise UndetectedError(path, f"corrupt gzip file: {e}") from None
    inner = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    fmt = _detect_bytes(head, complete, inner, path)
    if fmt not in GZIP_FORMATS:
        raise UndetectedError(
            path, f"gzip-compressed {fmt} file: decompress it first, then ingest the result"
        )
    return fmt


def _detect_zst(path: Path, limits: Limits) -> str:
    """Sniff the start of a zstd stream (Codex keeps cold rollouts as `.jsonl.zst`)."""
    try:
        with open_zst(path, limits) as f:
            head = _read_up_to(f, SNIFF_BYTES)
            complete = len(head) < SNIFF_BYTES or not f.read(1)
    except LimitExceeded as e:
        raise UndetectedError(path, e.message.split(": ", 1)[-1]) from None
    except Exception as e:  # zstandard.ZstdError and friends
        raise UndetectedError(path, f"zstd-compressed file that does not decompress ({e})") from None
    if not head.strip():
        raise UndetectedError(path, "zstd-compressed file: decompress it first, then ingest the result")
    inner = path.name[:-4] if path.name.lower().endswith(".zst") else path.name
    fmt = _detect_bytes(head, complete, inner, path)
    if fmt not in ZST_FORMATS:
        raise UndetectedError(
            path, f"zstd-compressed {fmt} file: decompress it first, then ingest the result"
        )
    return fmt


def _read_up_to(f: IO[bytes], n: int) -> bytes:
    chunks, got = [], 0
    while got < n and (chunk := f.read(n - got)):
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _detect_zip(path: Path, limits: Limits) -> str:
    try:
        with zipfile.ZipFile(path) as zf:
            try:
                check_zip(path, zf, limits)
            except LimitExceeded as e:
                raise UndetectedError(path, e.message.split(": ", 1)[-1]) from None
            names = [n for n in zf.namelist() if not n.endswith("/") and not n.startswith("__MACOSX/")]
            base = {n.rsplit("/", 1)[-1] for n in names}
            convs = sorted(
                (n for n in names if CONVERSATIONS_NAME.match(n.rsplit("/", 1)[-1])),
                key=lambda n: (n.count("/"), n),
            )
            if convs:
                with zf.open(convs[0]) as member:
                    head = member.read(SNIFF_BYTES)
                    complete = len(head) < SNIFF_BYTES or not member.read(1)
                fmt = ""
                try:
                    fmt = _detect_bytes(head, complete, convs[0], f"{path}!{convs[0]}")
                except UndetectedError as e:
                    if "empty JSON array" not in e.reason:
                        raise UndetectedError(path, f"zip holds {convs[0]} but {e.reason}") from None
                if fmt in ("chatgpt", "claude_ai"):
                    return fmt
                chatgpt_marks = {
                    "chat.html",
                    "user.json",
                    "message_feedback.json",
                    "shared_conversations.json",
                    "export_manifest.json",
                }
                if base & chatgpt_marks or any(b.startswith(("file-", "file_")) for b in base):
                    return "chatgpt"
                if "users.json" in base:
                    return "claude_ai"
                raise UndetectedError(
                    path,
                    f"zip holds {convs[0]} that is neither a ChatGPT nor a "
                    f"Claude.ai export (detected as {fmt or 'unknown'})",
                )
            if slack_zip_root(names) is not None:
                return "slack"
            chats = sorted(
                (n for n in names if WHATSAPP_NAME.match(n.rsplit("/", 1)[-1])),
                key=lambda n: (n.count("/"), n),
            )
            if chats:
                info = zf.getinfo(chats[0])
                try:
                    check_member(path, info, limits)
                except LimitExceeded as e:
                    raise UndetectedError(path, e.message.split(": ", 1)[-1]) from None
                with zf.open(info) as member:
                    head = member.read(SNIFF_BYTES)
                    complete = len(head) < SNIFF_BYTES or not member.read(1)
                if sniff.sniff_text(decode_head(head, complete) or "", True) == "whatsapp":
                    return "whatsapp"
                raise UndetectedError(path, f"zip holds {chats[0]} without WhatsApp message lines")
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
        raise UndetectedError(path, f"corrupt or unsupported zip archive: {e}") from None
    shown = ", ".join(sorted(base)[:5]) + (", ..." if len(base) > 5 else "")
    raise UndetectedError(path, f"zip archive that is not a ChatGPT or Claude.ai export (contains: {shown})")


def is_slack_dir(path: Path) -> bool:
    """D3: channels.json + users.json/org_users.json + a sub-folder with YYYY-MM-DD.json files."""
    if not (path / "channels.json").is_file():
        return False
    if not ((path / "users.json").is_file() or (path / "org_users.json").is_file()):
        return False
    try:
        with os.scandir(path) as it:
            subdirs = [e.path for e in it if e.is_dir()]
        return any(any(_SLACK_DAY.match(n) for n in os.listdir(d)) for d in subdirs)
    except OSError:
        return False
