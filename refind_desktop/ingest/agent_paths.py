"""Where coding agents keep their chats: path rules, content sniff and walk pruning for their readers.

`detect.py` asks `classify(path)` before sniffing (a format, or a reason the file is not a chat),
`sniff(text)` on a file's first bytes, and, while walking a folder, `ignored(file)` (files that
belong to an agent's storage but are not chats: indexes, metadata, message parts) and
`pruned(dir)` (storage sub-folders never worth walking). Readers are imported lazily.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import agent_paths_a
from .sqlite_ro import SIDE_FILES

AGENT_FORMATS = ("gemini_cli", "cursor", "aider", "cline", "opencode", "copilot_chat", "continue_dev")
# -- group A (Copilot CLI, Pi, OpenHands, Kimi CLI, Antigravity): rules in agent_paths_a.py --
AGENT_FORMATS += ("copilot_cli", "pi", "openhands", "kimi_cli", "antigravity")

AIDER_HISTORY = ".aider.chat.history.md"
_GEMINI = re.compile(r"(?:^|/)\.gemini/tmp/[^/]+/(?:chats/[^/]+\.json|checkpoint-[^/]+\.json|logs\.json)$")
_GEMINI_TREE = re.compile(r"(?:^|/)\.gemini/tmp/[^/]+/")
_TASK_FILES = ("ui_messages.json", "claude_messages.json", "api_conversation_history.json")
_COPILOT = re.compile(r"(?:^|/)(?:chatSessions|emptyWindowChatSessions)/[^/]+\.jsonl?$")
_CONTINUE = re.compile(r"(?:^|/)\.continue/sessions/[^/]+\.json$")
_OPENCODE_SESSION = re.compile(r"(?:^|/)storage/session/[^/]+/[^/]+\.json$")
_OPENCODE_TREE = re.compile(r"(?:^|/)opencode/storage/")
_OPENCODE_OLD = re.compile(r"(?:^|/)storage/session/(?:message|part)/")
_VSCODE_STORAGE = re.compile(r"(?:^|/)User/(?:workspaceStorage/[^/]+|globalStorage)/")
_WORKSPACE_CHILD = re.compile(r"(?:^|/)User/workspaceStorage/[^/]+/([^/]+)$")
_OPENCODE_PRUNE = {"message", "part", "project", "todo", "session_diff", "snapshot", "share"}

_SNIFF = (
    (
        "gemini_cli",
        re.compile(r'^\{(?=[\s\S]*"sessionId"\s*:)(?=[\s\S]*"projectHash"\s*:)(?=[\s\S]*"messages"\s*:)'),
    ),
    (
        "copilot_chat",
        re.compile(r'^\{(?=[\s\S]*"requests"\s*:)(?=[\s\S]*"(?:requesterUsername|responderUsername)"\s*:)'),
    ),
    ("copilot_chat", re.compile(r'^\{\s*"kind"\s*:\s*0\s*,\s*"v"\s*:\s*\{(?=[^\n]*"requests"\s*:)')),
    (
        "continue_dev",
        re.compile(
            r'^\{(?=[\s\S]*"history"\s*:)(?=[\s\S]*"sessionId"\s*:)(?=[\s\S]*"workspaceDirectory"\s*:)'
        ),
    ),
    ("cline", re.compile(r'^\[\s*\{\s*"ts"\s*:\s*\d+\s*,\s*"type"\s*:\s*"(?:say|ask)"')),
    ("opencode", re.compile(r'^\{(?=[\s\S]*"id"\s*:\s*"ses_)(?=[\s\S]*"(?:projectID|directory)"\s*:)')),
)
_SNIFF += agent_paths_a.SNIFF  # group A


def classify(path: Path) -> tuple[str | None, str | None]:
    """(format, None) when the path itself says which agent wrote it, (None, reason) for a non-chat."""
    posix = path.as_posix()
    name = path.name
    for side in SIDE_FILES:
        if name.endswith((".vscdb" + side, ".db" + side)) and Path(posix[: -len(side)]).is_file():
            return None, f"SQLite {side[1:]} file of {name[: -len(side)]} (read together with that database)"
    if name == "opencode.db":
        return "opencode", None
    if name.endswith(".vscdb"):
        from .cursor import has_chats

        chats = has_chats(path)
        if chats is None:
            return "cursor", None  # unreadable: the reader says why
        if chats:
            return "cursor", None
        return None, "editor state database without Cursor chats (nothing to ingest)"
    if name == AIDER_HISTORY:
        return "aider", None
    if _GEMINI.search(posix):
        if name == "logs.json" and (path.parent / "chats").is_dir():
            return None, "Gemini CLI prompt log (the chats folder next to it is read instead)"
        return "gemini_cli", None
    if name in _TASK_FILES and path.parent.parent.name == "tasks":
        if name == "api_conversation_history.json" and any(
            (path.parent / ui).is_file() for ui in ("ui_messages.json", "claude_messages.json")
        ):
            return None, "Cline task model history (the task's ui_messages.json is read instead)"
        return "cline", None
    if _COPILOT.search(posix):
        return "copilot_chat", None
    if _CONTINUE.search(posix):
        if name == "sessions.json":
            return None, "Continue session index (the session files next to it are read)"
        return "continue_dev", None
    if _OPENCODE_OLD.search(posix):
        return None, "OpenCode message record (read with its session file)"
    if _OPENCODE_SESSION.search(posix) and (
        _OPENCODE_TREE.search(posix) or (path.parents[2] / "message").is_dir()
    ):
        if (path.parents[3] / "opencode.db").is_file():
            return None, "OpenCode session from before its move to opencode.db (the database is read instead)"
        return "opencode", None
    return agent_paths_a.classify(path, posix)  # group A


def sniff(text: str) -> str | None:
    """Content rule on a decoded file head: a coding-agent format, or None."""
    body = text.lstrip("\ufeff").lstrip()
    if body.startswith("# aider chat started at"):
        from .aider import looks_like_aider

        return "aider" if looks_like_aider(body[:200]) else None
    if body[:1] not in ("{", "["):
        return None
    for fmt, rule in _SNIFF:
        if rule.match(body):
            return fmt
    return None


def ignored(path: Path) -> bool:
    """Files inside an agent's storage that carry no chat of their own: skipped silently by the walk."""
    fmt, reason = classify(path)
    if fmt:
        return False
    if reason and path.name.endswith(SIDE_FILES):
        return True  # -wal / -shm / -journal beside a database
    posix = path.as_posix()
    if path.parent.parent.name == "tasks" and path.parent.parent.parent.name in _task_extensions():
        return True  # task_metadata.json, the api history next to ui_messages.json, ...
    return bool(
        _GEMINI_TREE.search(posix)
        or _OPENCODE_TREE.search(posix)
        or _VSCODE_STORAGE.search(posix)
        or _CONTINUE.search(posix)
        or agent_paths_a.ignored(path, posix, reason)  # group A
    )


def pruned(folder: Path) -> bool:
    """Sub-folders of agent storage that never hold a chat file (extension caches, message parts)."""
    posix = folder.as_posix()
    m = _WORKSPACE_CHILD.search(posix)
    if m:
        return m.group(1) != "chatSessions"
    if _OPENCODE_TREE.search(posix) and folder.parent.name == "storage":
        return folder.name in _OPENCODE_PRUNE
    if folder.parent.parent.name == "tasks" and folder.name == "checkpoints":
        return True
    if agent_paths_a.pruned(folder, posix):  # group A
        return True
    return bool(_GEMINI_TREE.search(posix + "/") and folder.name == "checkpoints")


def folder_source(folder: Path) -> str | None:
    """The agent format of a folder that is one session (its events are files inside), or None."""
    return agent_paths_a.folder_source(folder)  # group A: OpenHands conversations


def _task_extensions() -> set[str]:
    from .cline import EXTENSIONS

    return set(EXTENSIONS)
