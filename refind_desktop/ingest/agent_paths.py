"""Where coding agents keep their chats: path rules, content sniff and walk pruning for their readers.

`detect.py` asks `classify(path)` before sniffing (a format, or a reason the file is not a chat),
`sniff(text)` on a file's first bytes, and, while walking a folder, `ignored(file)` (files that
belong to an agent's storage but are not chats: indexes, metadata, message parts) and
`pruned(dir)` (storage sub-folders never worth walking). Readers are imported lazily.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import agent_paths_a, agent_paths_b
from .sqlite_ro import SIDE_FILES

AGENT_FORMATS = ("gemini_cli", "cursor", "aider", "cline", "opencode", "copilot_chat", "continue_dev")
# -- group A (Copilot CLI, Pi, OpenHands, Kimi CLI, Antigravity): rules in agent_paths_a.py --
AGENT_FORMATS += ("copilot_cli", "pi", "openhands", "kimi_cli", "antigravity")
AGENT_FORMATS += agent_paths_b.FORMATS  # Qwen Code, Factory Droid, Amp, Cursor agent transcripts
AGENT_FORMATS += ("crush", "goose", "zed", "warp")  # group C: agents that keep their chats in SQLite

AIDER_HISTORY = ".aider.chat.history.md"
_GEMINI = re.compile(r"(?:^|/)\.gemini/tmp/[^/]+/(?:chats/[^/]+\.jsonl?|checkpoint-[^/]+\.json|logs\.json)$")
_GEMINI_TREE = re.compile(r"(?:^|/)\.gemini/tmp/[^/]+/")
_TASK_FILES = ("ui_messages.json", "claude_messages.json", "api_conversation_history.json")
_COPILOT = re.compile(r"(?:^|/)(?:chatSessions|emptyWindowChatSessions)/[^/]+\.jsonl?$")
_CONTINUE = re.compile(r"(?:^|/)\.continue/sessions/[^/]+\.json$")
_OPENCODE_SESSION = re.compile(r"(?:^|/)storage/session/[^/]+/[^/]+\.json$")
_OPENCODE_TREE = re.compile(r"(?:^|/)opencode/storage/")
_OPENCODE_OLD = re.compile(r"(?:^|/)storage/session/(?:message|part)/")
_VSCODE_STORAGE = re.compile(r"(?:^|/)User/(?:workspaceStorage/[^/]+|globalStorage)/")
_WORKSPACE_CHILD = re.compile(r"(?:^|/)User/workspaceStorage/[^/]+/([^/]+)$")
_CLAUDE_PROJECT = re.compile(r"(?:^|/)\.claude/projects/[^/]+/")
_CLAUDE_PRUNE = {"memory", "tool-results", "session-memory"}
"""Claude Code's folders beside its transcripts: auto-memory notes, large tool outputs kept on disk,
session summaries (what they hold is in the transcript, or is no chat)."""
_OPENCODE_PRUNE = {"message", "part", "project", "todo", "session_diff", "snapshot", "share"}

_SNIFF = (
    (
        "gemini_cli",
        re.compile(r'^\{(?=[\s\S]*"sessionId"\s*:)(?=[\s\S]*"projectHash"\s*:)(?=[\s\S]*"messages"\s*:)'),
    ),
    (  # a session log (0.35+): its first line is the metadata, one record a line after it
        "gemini_cli",
        re.compile(
            r'^\{(?=[^\n]*"sessionId"\s*:)(?=[^\n]*"projectHash"\s*:)(?=[^\n]*"startTime"\s*:)[^\n]*\}\s*\n'
        ),
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
        if (
            name.endswith((".vscdb" + side, ".db" + side, ".sqlite" + side))
            and Path(posix[: -len(side)]).is_file()
        ):
            return None, f"SQLite {side[1:]} file of {name[: -len(side)]} (read together with that database)"
    fmt, reason = agent_paths_b.classify(path)
    if fmt or reason:
        return fmt, reason
    if name == "opencode.db":
        return "opencode", None
    found = _sqlite_agent(path)
    if found is not None:
        return found
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
        if name.endswith(".json") and (path.parent / f"{name}l").is_file():
            return (
                None,
                "Gemini CLI session from before its move to JSONL (the .jsonl beside it is read instead)",
            )
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
    if fmt := agent_paths_b.sniff(body):
        return fmt
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
    if path.parent.parent.name == "tasks" and _task_root(path.parent.parent.parent):
        return True  # task_metadata.json, the api history next to ui_messages.json, ...
    if _CLAUDE_PROJECT.search(posix) and not path.name.endswith((".jsonl", ".jsonl.zst")):
        return True  # Claude Code writes its transcripts as JSONL; the rest of the tree is no chat
    return bool(
        agent_paths_b.ignored(posix)
        or _GEMINI_TREE.search(posix)
        or _OPENCODE_TREE.search(posix)
        or _VSCODE_STORAGE.search(posix)
        or _CONTINUE.search(posix)
        or _sqlite_agent_ignored(path)
        or agent_paths_a.ignored(path, posix, reason)  # group A
    )


def pruned(folder: Path) -> bool:
    """Sub-folders of agent storage that never hold a chat file (extension caches, message parts)."""
    posix = folder.as_posix()
    if agent_paths_b.pruned(folder):
        return True
    m = _WORKSPACE_CHILD.search(posix)
    if m:
        return m.group(1) != "chatSessions"
    if _OPENCODE_TREE.search(posix) and folder.parent.name == "storage":
        return folder.name in _OPENCODE_PRUNE
    if folder.parent.parent.name == "tasks" and folder.name == "checkpoints":
        return True
    if folder.name in _CLAUDE_PRUNE and folder.parent.name != "projects" and _CLAUDE_PROJECT.search(posix):
        return True
    if _sqlite_agent_pruned(folder) or agent_paths_a.pruned(folder, posix):  # group A
        return True
    return bool(_GEMINI_TREE.search(posix + "/") and folder.name == "checkpoints")


def folder_source(folder: Path) -> str | None:
    """The agent format of a folder that is one session (its events are files inside), or None."""
    return agent_paths_a.folder_source(folder)  # group A: OpenHands conversations


def _task_root(folder: Path) -> bool:
    """Whether `folder` holds Cline-style `tasks/`: an editor extension's storage, or the Cline CLI's
    `~/.cline/data`."""
    from .cline import EXTENSIONS

    return folder.name in EXTENSIONS or (folder.name == "data" and folder.parent.name == ".cline")


# -- group C: Crush, Goose, Zed and Warp (SQLite databases; Goose's older JSONL sessions) ----------
_SNIFF += (  # a Goose session file copied out of its folder: the metadata line goose writes first
    (
        "goose",
        re.compile(r'^\{(?=[^\n]*"working_dir"\s*:)(?=[^\n]*"description"\s*:)(?=[^\n]*"message_count"\s*:)'),
    ),
)
_GOOSE_SESSIONS = re.compile(r"(?:^|/)(?:goose|Block\.goose|goose/data)/sessions$")
_ZED_ROOTS = ("zed", "Zed")
_WARP_DIRS = ("warp-terminal", "dev.warp.", "data")  # Linux state, macOS group container, Windows


SNAPSHOT_FORMATS = frozenset({"crush", "goose", "zed", "warp"})
"""Readers that read a database in one read transaction: what a writer commits meanwhile is not half
seen, it is read at the next pass, so a read during which the database changed still counts."""


def read_in_one_snapshot(path: Path, fmt: str) -> bool:
    """Whether `path`, read as `fmt`, is a database read in one consistent snapshot."""
    if fmt not in SNAPSHOT_FORMATS:
        return False
    from .sqlite_ro import is_sqlite

    return is_sqlite(path)


def _sqlite_agent(path: Path) -> tuple[str | None, str | None] | None:
    """Crush's crush.db, Goose's sessions.db and session JSONL, Zed's threads.db, Warp's warp.sqlite."""
    name = path.name
    if name == "crush.db":
        return "crush", None
    if name == "warp.sqlite":
        return "warp", None
    if name == "threads.db" and path.parent.name == "threads" and path.parent.parent.name in _ZED_ROOTS:
        return "zed", None
    if name == "sessions.db" and path.parent.name == "sessions":  # also under GOOSE_PATH_ROOT/data
        return "goose", None  # (the reader names the tables it misses in another program's database)
    if _GOOSE_SESSIONS.search(path.parent.as_posix()):
        if name.endswith(".jsonl"):
            if (path.parent / "sessions.db").is_file():
                return (
                    None,
                    "Goose session from before its move to sessions.db (the database is read instead)",
                )
            return "goose", None
    return None


def _sqlite_agent_ignored(path: Path) -> bool:
    """Logs and settings beside these agents' databases (inside `.crush/` and Crush's data folder,
    Goose's sessions folder, the folder holding warp.sqlite)."""
    parent = path.parent
    return (
        ".crush" in path.parts[:-1]
        or (parent.name == "crush" and (parent / "crush.db").is_file())  # Crush's data folder: settings
        or bool(_GOOSE_SESSIONS.search(parent.as_posix()))
        or (parent.name.startswith(_WARP_DIRS) and (parent / "warp.sqlite").is_file())
    )


def _sqlite_agent_pruned(folder: Path) -> bool:
    """Goose's backup folders under `sessions/`, and Zed's data folders other than `threads`."""
    if _GOOSE_SESSIONS.search(folder.parent.as_posix()):
        return True
    return (
        folder.parent.name in _ZED_ROOTS
        and folder.name != "threads"
        and (folder.parent / "threads" / "threads.db").is_file()
    )
