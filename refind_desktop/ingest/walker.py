"""Folder walk: turns the paths a user gives (files, folders, zips) into `Source`s and `Skipped`s."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ParseError, describe_failure
from . import agent_paths
from .detect import CONVERSATIONS_NAME, WHATSAPP_NAME, UndetectedError, detect_file, is_slack_dir
from .limits import Limits

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


@dataclass(frozen=True)
class Source:
    """Something to parse: a file, a .zip (ChatGPT/Claude.ai export), a Slack export or OpenHands folder."""

    path: Path
    format: str


@dataclass(frozen=True)
class Skipped:
    """A path that will not be ingested, with the reason shown to the user."""

    path: str
    reason: str


Known = Callable[[Path], "str | None"]

OUTSIDE_REASON = (
    "a symbolic link to a place outside the allowed folders (the chat folder); not read. Ingest it yourself "
    "with `refind ingest PATH` if you mean to"
)


def discover(
    paths: Iterable[Path],
    limits: Limits | None = None,
    within: Iterable[Path] | None = None,
    known: Known | None = None,
) -> tuple[list[Source], list[Skipped]]:
    """Walk files and folders; return what can be ingested and what was skipped (with reasons).

    With `within`, nothing is read whose real path (symbolic links resolved) lies outside those folders
    and files: such an entry is skipped with OUTSIDE_REASON before it is opened. `known(path)` may name
    the format of a file that is unchanged since it was last ingested; such a file is not opened to
    detect its format (the ingest then skips it after one `stat`)."""
    walker = _Walker(limits or Limits(), within, known)
    for p in paths:
        p = Path(p)
        if not walker.inside(p):
            walker.skipped.append(Skipped(str(p), OUTSIDE_REASON))
        elif not p.exists() and not p.is_symlink():
            walker.skipped.append(Skipped(str(p), "no such file or folder"))
        elif p.is_dir():
            walker.walk_dir(p, "")
        else:
            walker.add_file(p, "explicit")  # a file named by the user is never skipped silently
    return walker.sources, walker.skipped


def discover_within(
    root: Path,
    targets: Iterable[Path],
    limits: Limits | None = None,
    known: Known | None = None,
    within: Iterable[Path] | None = None,
) -> tuple[list[Source], list[Skipped]]:
    """What `discover([root], within=within)` would find at `targets` (files or folders inside `root`),
    without walking the rest of `root`: each target gets the context of the folders above it (an export,
    a Telegram or WhatsApp folder, a pruned or skipped folder), as a full walk would give it. The
    watcher uses it for files that appear in a large folder."""
    walker = _Walker(limits or Limits(), within, known)
    names: dict[Path, set[str]] = {}
    for target in targets:
        try:
            parts = Path(target).relative_to(root).parts
        except ValueError:
            continue
        if not walker.inside(Path(target)):
            walker.skipped.append(Skipped(str(target), OUTSIDE_REASON))
            continue
        if not parts:
            walker.walk_dir(root, "")
            continue
        folder, context = Path(root), ""
        for i, part in enumerate(parts):
            fmt = "slack" if is_slack_dir(folder) else agent_paths.folder_source(folder)
            if fmt:
                if walker._once(folder):
                    walker.sources.append(Source(folder, fmt))
                break
            if folder not in names:
                try:
                    names[folder] = set(os.listdir(folder))
                except OSError:
                    break
            context = _context(names[folder], context)
            child = folder / part
            last = i == len(parts) - 1
            if child.is_dir():
                if _pruned_dir(child, context):
                    break
                if last:
                    walker.walk_dir(child, context)
                folder = child
            elif last and (child.exists() or child.is_symlink()):
                walker.add_file(child, context)
            else:
                break
    return walker.sources, walker.skipped


def _context(names: set[str], context: str) -> str:
    """The context a folder's file names give its files (and sub-folders)."""
    if any(CONVERSATIONS_NAME.match(n) for n in names):
        return "export"
    if "result.json" in names and context == "":
        return "telegram"
    if any(WHATSAPP_NAME.match(n) for n in names) and context == "":
        return "whatsapp"
    return context


def _pruned_dir(child: Path, context: str) -> bool:
    """A sub-folder the walk never enters."""
    if child.name in SKIP_DIRS or agent_paths.pruned(child):
        return True
    return context == "telegram" and child.name in TELEGRAM_MEDIA_DIRS


class _Walker:
    """Depth-first, name-sorted walk that remembers visited folders and the export it is inside."""

    def __init__(
        self, limits: Limits, within: Iterable[Path] | None = None, known: Known | None = None
    ) -> None:
        self.limits = limits
        self.known = known
        self.sources: list[Source] = []
        self.skipped: list[Skipped] = []
        self._seen: set[str] = set()
        self.within = None if within is None else [os.path.realpath(p) for p in within]

    def inside(self, path: Path) -> bool:
        """Whether `path`, links resolved, lies in one of the `within` folders (always, without them)."""
        if self.within is None:
            return True
        real = os.path.realpath(path)
        return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.within)

    def _once(self, path: Path) -> bool:
        key = os.path.realpath(path)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def walk_dir(self, path: Path, context: str) -> None:
        if not self._once(path):
            return
        fmt = "slack" if is_slack_dir(path) else agent_paths.folder_source(path)
        if fmt:
            self.sources.append(Source(path, fmt))  # a Slack export, an OpenHands conversation
            return
        try:
            with os.scandir(path) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            self.skipped.append(Skipped(str(path), f"unreadable: {e.strerror or e}"))
            return
        context = _context({e.name for e in entries}, context)
        for entry in entries:
            child = path / entry.name
            if not self.inside(child):
                self.skipped.append(Skipped(str(child), OUTSIDE_REASON))
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not _pruned_dir(child, context):
                    self.walk_dir(child, context)
            else:
                self.add_file(child, context)

    def add_file(self, path: Path, context: str) -> None:
        name = path.name
        if name in SILENT_FILES or _is_companion(name, context):
            return
        if context != "explicit" and agent_paths.ignored(path):
            return
        if not self._once(path):
            return
        fmt = self.known(path) if self.known is not None else None
        if fmt is not None:
            self.sources.append(Source(path, fmt))
            return
        try:
            self.sources.append(Source(path, detect_file(path, self.limits)))
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
