"""Path, content and walk rules for Copilot CLI, Pi, OpenHands, Kimi CLI and Antigravity storage.

`agent_paths.py` asks these after its own rules: `classify` (a format from the path, or why a file
is read with another one), `ignored` (files of these agents' folders that are not chats), `pruned`
(their folders that never hold a chat) and `folder_source`: an OpenHands conversation folder, or an
Antigravity conversation's `logs` folder, is one source, so a new or grown file in it re-reads that
folder, and a conversation whose full transcript appears after its compact one is not read twice.
"""

from __future__ import annotations

import re
from pathlib import Path

_COPILOT_EVENTS = re.compile(r"(?:^|/)\.copilot/session-state/[^/]+/events\.jsonl$")
_COPILOT_FLAT = re.compile(r"(?:^|/)\.copilot/session-state/[^/]+\.jsonl$")
_COPILOT_LEGACY = re.compile(r"(?:^|/)\.copilot/history-session-state/[^/]+\.json$")
_COPILOT_TREE = re.compile(r"(?:^|/)\.copilot/")
_COPILOT_PRUNE = {
    *("logs", "pkg", "checkpoints", "files", "rewind-snapshots", "agents", "skills", "hooks", "ide"),
    *("instructions", "installed-plugins", "plugin-data", "command-history-state"),
}

_PI = re.compile(r"(?:^|/)\.pi/agent/sessions/[^/]+/[^/]+\.jsonl$")
_PI_TREE = re.compile(r"(?:^|/)\.pi/agent/")

_KIMI_TREE = re.compile(r"(?:^|/)\.kimi(?:-code)?/")
_KIMI_CONTEXT = re.compile(r"(?:^|/)\.kimi(?:-code)?/sessions/[^/]+/[^/]+/context\.jsonl$")
_KIMI_FLAT = re.compile(r"(?:^|/)\.kimi(?:-code)?/sessions/[^/]+/[^/]+\.jsonl$")
ROTATED_CONTEXT = re.compile(r"^context_(\d+)\.jsonl$")

_ANTIGRAVITY_TREE = re.compile(r"(?:^|/)\.gemini/antigravity(?:-cli|-ide)?/")
_ANTIGRAVITY = re.compile(r"(?:^|/)brain/[^/]+/\.system_generated/logs/transcript(?:_full)?\.jsonl$")

_OPENHANDS_TREE = re.compile(r"(?:^|/)\.openhands[^/]*/")
_OPENHANDS_EVENT = re.compile(r"^(?:event-\d{5,}(?:-[^/]+)?|\d+)\.json$")
OPENHANDS_SESSION_DIRS = ("conversations", "sessions")
OPENHANDS_APP_DIR = "v1_conversations"  # the app server: <id hex>/<event id>.json, no events/ folder

_SNIFF_COPILOT = r'^\{(?=[^\n]*"type"\s*:\s*"session\.start")(?=[^\n]*"(?:copilotVersion|producer)"\s*:)'
_SNIFF_ANTIGRAVITY = (
    r'^\{(?=[^\n]*"step_index"\s*:)(?=[^\n]*"type"\s*:\s*"[A-Z_]+")'
    r'(?=[^\n]*"source"\s*:\s*"(?:USER_EXPLICIT|MODEL|SYSTEM)")'
)
SNIFF = (
    ("copilot_cli", re.compile(_SNIFF_COPILOT)),
    ("pi", re.compile(r'^\{\s*"type"\s*:\s*"session"\s*,(?=[^\n]*"cwd"\s*:)(?=[^\n]*"timestamp"\s*:)')),
    ("kimi_cli", re.compile(r'^\{\s*"role"\s*:\s*"_(?:system_prompt|checkpoint|usage)"')),
    ("antigravity", re.compile(_SNIFF_ANTIGRAVITY)),
)
"""Content rules on a file's first line: each names fields only that agent writes first."""


def classify(path: Path, posix: str) -> tuple[str | None, str | None]:
    """(format, None) for these agents' chat files, (None, reason) for files read with another one."""
    name = path.name
    if _COPILOT_EVENTS.search(posix) or _COPILOT_FLAT.search(posix) or _COPILOT_LEGACY.search(posix):
        return "copilot_cli", None
    if _PI.search(posix):
        return "pi", None
    kimi = _kimi(path, posix, name)
    if kimi != (None, None):
        return kimi
    if _ANTIGRAVITY.search(posix):
        return None, f"Antigravity transcript (read with its conversation's logs folder {path.parent})"
    if (
        _OPENHANDS_EVENT.match(name) and path.parent.name == "events" and folder_source(path.parent.parent)
    ) or (name.endswith(".json") and path.parent.parent.name == OPENHANDS_APP_DIR):
        folder = path.parent.parent if path.parent.name == "events" else path.parent
        return None, f"OpenHands event (read with its conversation folder {folder})"
    return None, None


def _kimi(path: Path, posix: str, name: str) -> tuple[str | None, str | None]:
    """Kimi CLI: a session's context.jsonl is the source; rotated contexts and wire.jsonl go with it.
    Kimi Code: a session's `agents/main/wire.jsonl` is the source; sub-agents' logs are not read."""
    folder = path.parent
    if (
        name == "wire.jsonl"
        and folder.parent.name == "agents"
        and (_KIMI_TREE.search(posix) or (folder.parent.parent / "state.json").is_file())
    ):
        if folder.name == "main":
            return "kimi_cli", None
        return None, "Kimi Code sub-agent log (what it found is in the main agent's log)"
    if name == "context.jsonl" and (_KIMI_CONTEXT.search(posix) or (folder / "wire.jsonl").is_file()):
        return "kimi_cli", None
    if ROTATED_CONTEXT.match(name) and (folder / "context.jsonl").is_file():
        return None, "Kimi CLI context from before a /clear, /compact or undo (read with context.jsonl)"
    if name == "wire.jsonl" and (folder / "context.jsonl").is_file():
        return None, "Kimi CLI wire log (its turn times are read with context.jsonl beside it)"
    if _KIMI_FLAT.search(posix) and not _KIMI_CONTEXT.search(posix) and folder.parent.name == "sessions":
        return "kimi_cli", None  # before session folders: sessions/<work dir hash>/<session id>.jsonl
    return None, None


def ignored(path: Path, posix: str, reason: str | None) -> bool:
    """Files inside these agents' folders that are no chat of their own (settings, logs, side files)."""
    if reason and (
        path.name in ("wire.jsonl", "transcript.jsonl", "transcript_full.jsonl")
        or ROTATED_CONTEXT.match(path.name)
        or _OPENHANDS_EVENT.match(path.name)
        or path.parent.parent.name == OPENHANDS_APP_DIR
    ):
        return True
    return bool(
        _COPILOT_TREE.search(posix)
        or _PI_TREE.search(posix)
        or _KIMI_TREE.search(posix)
        or _ANTIGRAVITY_TREE.search(posix)
        or _OPENHANDS_TREE.search(posix)
    )


def pruned(folder: Path, posix: str) -> bool:
    """Folders of these agents that never hold a chat (caches, artifacts, subagent scratch)."""
    name, parent = folder.name, folder.parent
    if _COPILOT_TREE.search(posix + "/"):
        return name in _COPILOT_PRUNE
    if _PI_TREE.search(posix + "/"):
        return name == "subagent-artifacts" or (parent.name == "agent" and name != "sessions")
    if _KIMI_TREE.search(posix + "/"):
        return name in ("subagents", "logs", "bin") or (parent / "context.jsonl").is_file()
    if _ANTIGRAVITY_TREE.search(posix + "/"):
        return (name == "conversations" and parent.name.startswith("antigravity")) or (
            name == "tasks" and parent.name == ".system_generated"
        )
    return False


def folder_source(folder: Path) -> str | None:
    """The format of a folder that is one session: an OpenHands conversation, or an Antigravity
    conversation's `logs` folder (its full and compact transcripts are one conversation)."""
    if (
        folder.name == "logs"
        and folder.parent.name == ".system_generated"
        and folder.parent.parent.parent.name == "brain"
    ):
        if (folder / "transcript_full.jsonl").is_file() or (folder / "transcript.jsonl").is_file():
            return "antigravity"
        return None
    return _openhands_folder(folder)


def _openhands_folder(folder: Path) -> str | None:
    """`openhands` for an OpenHands conversation folder (`base_state.json` and/or `events/`), else None.

    1.x (CLI and SDK): `<conversations>/<id>/base_state.json` + `events/event-NNNNN-<uuid>.json`;
    the 1.x app server: `v1_conversations/<id hex>/<event id>.json`; before 1.0:
    `~/.openhands/sessions/<id>/events/<n>.json` (the file_store layout)."""
    if folder.parent.name == OPENHANDS_APP_DIR or (
        (folder / "base_state.json").is_file() and (folder / "events").is_dir()
    ):
        return "openhands"
    if folder.parent.name in OPENHANDS_SESSION_DIRS and _OPENHANDS_TREE.search(folder.as_posix()):
        if (folder / "events").is_dir():
            return "openhands"
    return None
