"""Chat-export format detection and discovery: path rules, then a 64 KiB content sniff (spec §1).

`discover` turns the paths a user gives (files, folders, zips) into `Source`s to parse and
`Skipped` entries that say why a file was not ingested. `detect_file` names the format of one
path or raises `ParseError`. Sniffing never reads more than the first 64 KiB of a file.
"""

from __future__ import annotations

import gzip
import os
import re
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ParseError, describe_failure
from . import sniff
from .base import ParseContext

FORMATS = (
    "chatgpt",
    "claude_ai",
    "claude_code",
    "codex",
    "longmemeval",
    "locomo",
    "generic",
    "whatsapp",
    "telegram",
    "slack",
    "discord",
    "openwebui",
    "sillytavern",
)

SNIFF_BYTES = 64 * 1024
SKIP_DIRS = {".git", "__pycache__", "node_modules"}
SILENT_FILES = {".DS_Store"}
# Files that come with a ChatGPT / Claude.ai export next to conversations*.json.
OPENAI_CLAUDE_COMPANIONS = {
    "user.json",
    "users.json",
    "chat.html",
    "message_feedback.json",
    "shared_conversations.json",
    "export_manifest.json",
    "projects.json",
    "memories.json",
    "model_comparisons.json",
}
CONVERSATIONS_NAME = re.compile(r"^conversations(?:-\d+)?\.json$")
MEDIA_SUFFIXES = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".heic",
    ".bmp",
    ".svg",
    ".wav",
    ".mp3",
    ".m4a",
    ".ogg",
    ".opus",
    ".aac",
    ".mp4",
    ".mov",
    ".webm",
    ".3gp",
    ".pdf",
    ".vcf",
    ".tgs",
}
TELEGRAM_MEDIA_DIRS = {
    "photos",
    "files",
    "video_files",
    "voice_messages",
    "round_video_messages",
    "stickers",
    "animations",
    "contacts",
    "css",
    "js",
    "images",
    "profile_pictures",
}
WHATSAPP_MEDIA = re.compile(r"^(?:\d{8}-[A-Z]+-\d{4}-\d{2}-\d{2}-|(?:IMG|VID|AUD|PTT|STK|DOC)-\d{8}-WA\d+)")

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_D1 = re.compile(
    r"(?:^|/)\.claude/projects/[^/]+/(?:"
    + _UUID
    + r"\.jsonl|"
    + _UUID
    + r"/subagents/agent-[^/]+\.jsonl|agent-[^/]+\.jsonl)$"
)
_D2 = re.compile(r"(?:^|/)(?:sessions/\d{4}/\d{2}/\d{2}|archived_sessions)/rollout-[^/]+\.jsonl(?:\.zst)?$")
_D7 = re.compile(
    r"^(?:WhatsApp Chat with .+|WhatsApp Chat - .+|_chat|Conversa do WhatsApp com .+)\.txt$", re.IGNORECASE
)
_D8 = re.compile(r" - \d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s\d{3}ms\.jsonl$")
_D9 = re.compile(r"^chat-export-\d{13}\.json$")
_SLACK_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
GZIP_FORMATS = {"longmemeval", "locomo"}  # parsers that read .json.gz themselves
_PROMPT_HISTORY = re.compile(r"(?:^|/)\.(?:claude|codex)/(?:history|session_index)\.jsonl$")
_MAGIC = {b"\x28\xb5\x2f\xfd": "zstd", b"BZh": "bzip2", b"\xfd7zXZ": "xz"}


@dataclass(frozen=True)
class Source:
    """Something to parse: a file, a .zip (ChatGPT/Claude.ai export) or a Slack export folder."""

    path: Path
    format: str


@dataclass(frozen=True)
class Skipped:
    """A path that will not be ingested, with the reason shown to the user."""

    path: str
    reason: str


class UndetectedError(ParseError):
    """The format of a file could not be determined; `reason` is the short human reason."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = reason


def detect_file(path: Path) -> str:
    """Return the format name of `path` (file, .zip or Slack folder) or raise `ParseError`."""
    path = Path(path)
    try:
        if path.is_dir():
            if is_slack_dir(path):
                return "slack"
            raise UndetectedError(
                path,
                "folder that is not a Slack export (no channels.json + users.json "
                "with per-day channel files)",
            )
        size = path.stat().st_size
        if size == 0:
            raise UndetectedError(path, "empty file")
        posix = path.as_posix()
        if _D1.search(posix):
            return "claude_code"
        if _D2.search(posix):
            return "codex"
        if _PROMPT_HISTORY.search(posix):
            raise UndetectedError(path, "Claude Code / Codex prompt history index (not a transcript)")
        with path.open("rb") as f:
            head = f.read(SNIFF_BYTES)
        if head.startswith(b"PK\x03\x04") or path.suffix.lower() == ".zip":
            return _detect_zip(path)
        if head.startswith(b"\x1f\x8b"):
            return _detect_gzip(path)
        return _detect_bytes(head, size <= len(head), path.name, path)
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
    lower = name.lower()
    json_like = body[:1] in ("{", "[")
    if json_like:
        try:
            return sniff.sniff_json(body, complete, lower)
        except sniff.Unknown as e:
            if lower.endswith((".json", ".jsonl", ".ndjson")) or not complete:
                raise UndetectedError(path, e.reason) from None
            json_reason = "" if e.reason.startswith("not valid JSON") else e.reason  # e.g. TOML, Markdown
    else:
        json_reason = ""
    fmt = sniff.sniff_text(text, _D7.match(name) is not None)
    if fmt:
        return fmt
    if json_reason:
        raise UndetectedError(path, json_reason)
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    raise UndetectedError(
        path,
        "unknown format: text without WhatsApp date prefixes or User:/Assistant: "
        f"labels (first line: {first[:60]!r})",
    )


def decode_head(data: bytes, complete: bool = True) -> str | None:
    """Decode a file's first bytes for sniffing; None when they look binary."""
    enc = _bom_encoding(data)
    if enc is None and b"\x00" in data[:4096]:
        enc = _bomless_utf16(data)
        if enc is None:
            return None
    if enc is not None:
        if not complete:
            data = data[: len(data) - len(data) % (4 if enc == "utf-32" else 2)]
        text = data.decode(enc, errors="replace")
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            if not complete and e.start >= len(data) - 3:
                text = data[: e.start].decode("utf-8-sig", errors="replace")
            else:
                text = data.decode("cp1252", errors="replace")
    sample = text[:4096]
    controls = sum(1 for c in sample if ord(c) < 32 and c not in "\t\n\r\f\x1b")
    if sample and controls / len(sample) > 0.1:
        return None
    return text


def read_text(path: Path, ctx: ParseContext | None = None) -> str:
    """Read a whole text file: UTF-8 (BOM ok), UTF-16/32 with BOM, else cp1252 with a warning."""
    data = Path(path).read_bytes()
    enc = _bom_encoding(data) or (_bomless_utf16(data) if b"\x00" in data[:4096] else None)
    if enc is not None:
        text = data.decode(enc, errors="replace")
        return text.lstrip("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if ctx is not None:
            ctx.warn(f"{path}: not UTF-8, decoded as cp1252")
        return data.decode("cp1252", errors="replace")


def _bom_encoding(data: bytes) -> str | None:
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    return None


def _bomless_utf16(data: bytes) -> str | None:
    """UTF-16 without BOM: text whose every other byte is NUL."""
    sample = data[:4096]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.9 * len(odd) and even.count(0) < 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.9 * len(even) and odd.count(0) < 0.1 * len(odd):
        return "utf-16-be"
    return None


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


def _detect_zip(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if not n.endswith("/")]
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
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as e:
        raise UndetectedError(path, f"corrupt or unsupported zip archive: {e}") from None
    if "channels.json" in base and ("users.json" in base or "org_users.json" in base):
        raise UndetectedError(path, "Slack export zip: unzip it and ingest the folder")
    if any(_D7.match(b) for b in base):
        raise UndetectedError(path, "WhatsApp export zip: unzip it and ingest the .txt inside")
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


def discover(paths: Iterable[Path]) -> tuple[list[Source], list[Skipped]]:
    """Walk files and folders; return what can be ingested and what was skipped (with reasons)."""
    walker = _Walker()
    for p in paths:
        p = Path(p)
        if not p.exists() and not p.is_symlink():
            walker.skipped.append(Skipped(str(p), "no such file or folder"))
        elif p.is_dir():
            walker.walk_dir(p, "")
        else:
            walker.add_file(p, "")
    return walker.sources, walker.skipped


class _Walker:
    """Depth-first, name-sorted walk that remembers visited folders and the export it is inside."""

    def __init__(self) -> None:
        self.sources: list[Source] = []
        self.skipped: list[Skipped] = []
        self._seen: set[str] = set()

    def _once(self, path: Path) -> bool:
        key = os.path.realpath(path)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def walk_dir(self, path: Path, context: str) -> None:
        if not self._once(path):
            return
        if is_slack_dir(path):
            self.sources.append(Source(path, "slack"))
            return
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            self.skipped.append(Skipped(str(path), f"unreadable: {e.strerror or e}"))
            return
        names = {e.name for e in entries}
        if any(CONVERSATIONS_NAME.match(n) for n in names):
            context = "export"
        elif "result.json" in names and context == "":
            context = "telegram"
        elif any(_D7.match(n) for n in names) and context == "":
            context = "whatsapp"
        for entry in entries:
            child = path / entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name in SKIP_DIRS:
                    continue
                if context == "telegram" and entry.name in TELEGRAM_MEDIA_DIRS:
                    continue
                self.walk_dir(child, context)
            else:
                self.add_file(child, context)

    def add_file(self, path: Path, context: str) -> None:
        name = path.name
        if name in SILENT_FILES or _is_companion(name, context) or not self._once(path):
            return
        try:
            self.sources.append(Source(path, detect_file(path)))
        except UndetectedError as e:
            export = next((d for d in (path.parent, path.parent.parent) if is_slack_dir(d)), None)
            reason = f"part of a Slack export: ingest the folder {export}" if export else e.reason
            self.skipped.append(Skipped(str(path), reason))
        except ParseError as e:
            self.skipped.append(Skipped(str(path), e.message))
        except Exception as e:  # RecursionError, OSError, ...: one bad file never stops the walk
            self.skipped.append(Skipped(str(path), describe_failure(e)))


def _is_companion(name: str, context: str) -> bool:
    """Files that belong to an export next to its chats and carry no chat text of their own."""
    suffix = os.path.splitext(name)[1].lower()
    if context == "export":
        return (
            name in OPENAI_CLAUDE_COMPANIONS
            or name.startswith(("file-", "file_"))
            or suffix in MEDIA_SUFFIXES
        )
    if context == "telegram":
        return suffix in {".html", ".css", ".js"} or suffix in MEDIA_SUFFIXES
    if context == "whatsapp":
        return WHATSAPP_MEDIA.match(name) is not None
    return False
