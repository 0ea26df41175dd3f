"""Where Qwen Code, Factory Droid, Amp and Cursor's agent transcripts live: path rules, content sniff, pruning.

Called by `agent_paths` (which `detect.py` and the folder walk ask): `classify(path)` names the
format from the path (or gives the reason a file in these agents' folders is not a chat),
`sniff(text)` recognises a copied file by its content, `ignored(posix)` and `pruned(folder)`
keep the walk out of the agents' settings, credentials, caches and extension folders.
"""

from __future__ import annotations

import re
from pathlib import Path

FORMATS = ("qwen_code", "factory_droid", "amp", "cursor_cli")

# Qwen Code: ~/.qwen/projects/<cwd>/chats/<session>.jsonl; older ~/.qwen/tmp/<hash>/{chats/*.json,...}
_QWEN_JSONL = re.compile(r"(?:^|/)\.qwen/(?:projects|tmp)/[^/]+/chats/[^/]+\.jsonl$")
_QWEN_OLD = re.compile(r"(?:^|/)\.qwen/tmp/[^/]+/(?:chats/[^/]+\.json|checkpoint-[^/]+\.json|logs\.json)$")
_QWEN_TREE = re.compile(r"(?:^|/)\.qwen/")
_QWEN_KEEP = {"projects", "tmp"}
# Factory Droid: ~/.factory/sessions/<cwd-slug>/<uuid>.jsonl (+ <uuid>.settings.json)
_DROID = re.compile(r"(?:^|/)\.factory/sessions/(?:[^/]+/)*[^/]+\.jsonl$")
_DROID_TREE = re.compile(r"(?:^|/)\.factory/")
# Amp: <XDG data>/amp/threads/T-<id>.json; the VS Code extension's older globalStorage/sourcegraph.amp/threads3/
_AMP = re.compile(r"(?:^|/)(?:amp/threads|sourcegraph\.amp/threads\d*)/T-[^/]+\.json$")
_AMP_TREE = re.compile(
    r"(?:^|/)(?:\.local/share/amp|Application Support/amp|AppData/Local/amp|sourcegraph\.amp)/"
)
_AMP_KEEP = {"threads", "threads3"}
# Cursor agent transcripts: ~/.cursor/projects/<slug>/agent-transcripts/[<id>/]<id>.{jsonl,txt};
# the CLI's chat stores ~/.cursor/chats/<workspace-hash>/<agent-id>/store.db
_CURSOR = re.compile(r"(?:^|/)\.cursor/projects/[^/]+/agent-transcripts/(?:[^/]+/)*[^/]+\.(?:jsonl|txt)$")
_CURSOR_TREE = re.compile(r"(?:^|/)\.cursor/")
_CURSOR_DB = re.compile(r"(?:^|/)\.cursor/chats/[^/]+/[^/]+/store\.db$")

_SNIFF = (
    # a Qwen Code JSONL record: Gemini API content under "message" (Claude Code's has "content")
    (
        "qwen_code",
        re.compile(
            r'^\{(?=[^\n]*"parentUuid"\s*:)'
            r'(?=[\s\S]*"message"\s*:\s*\{\s*"role"\s*:\s*"(?:user|model)"\s*,\s*"parts"\s*:)'
        ),
    ),
    # a legacy Qwen Code session: Gemini CLI's session file with replies of type "qwen"
    (
        "qwen_code",
        re.compile(r'^\{(?=[\s\S]*"projectHash"\s*:)(?=[\s\S]*"messages"\s*:)(?=[\s\S]*"type"\s*:\s*"qwen")'),
    ),
    (
        "factory_droid",
        re.compile(r'^\{\s*"type"\s*:\s*"session_start"[^\n]*\n(?=[\s\S]*"type"\s*:\s*"message")'),
    ),
    ("amp", re.compile(r'^\{(?=[\s\S]*"id"\s*:\s*"T-[0-9a-fA-F-]{8,}")(?=[\s\S]*"messages"\s*:\s*\[)')),
    (
        "cursor_cli",
        re.compile(r'^\{\s*"role"\s*:\s*"(?:user|assistant)"\s*,\s*"message"\s*:\s*\{\s*"content"\s*:\s*\['),
    ),
)


def classify(path: Path) -> tuple[str | None, str | None]:
    """(format, None) when the path names one of these agents' chats, (None, reason) for their non-chats."""
    posix = path.as_posix()
    name = path.name
    if _QWEN_JSONL.search(posix):
        return "qwen_code", None
    if _QWEN_OLD.search(posix):
        if name == "logs.json" and (path.parent / "chats").is_dir():
            return None, "Qwen Code prompt log (the chats folder next to it is read instead)"
        return "qwen_code", None
    if _DROID.search(posix):
        return "factory_droid", None
    if name.endswith(".settings.json") and _DROID_TREE.search(posix):
        return None, "Factory Droid session settings (model and autonomy level, not a chat)"
    if _AMP.search(posix):
        return "amp", None
    if _CURSOR.search(posix):
        return "cursor_cli", None
    if _CURSOR_DB.search(posix):
        cursor_home = path.parents[3]
        if any(cursor_home.glob(f"projects/*/agent-transcripts/{path.parent.name}*")):
            return None, "Cursor CLI chat store (its agent transcript is read instead)"
        return "cursor_cli", None
    return None, None


def sniff(body: str) -> str | None:
    """Content rule on a decoded file head (starting with '{' or '['): one of these formats, or None."""
    for fmt, rule in _SNIFF:
        if rule.match(body):
            return fmt
    return None


def ignored(posix: str) -> bool:
    """Files inside these agents' folders that are no chat (settings, credentials, logs, caches)."""
    return bool(
        _QWEN_TREE.search(posix)
        or _DROID_TREE.search(posix)
        or _AMP_TREE.search(posix)
        or _CURSOR_TREE.search(posix)
    )


def pruned(folder: Path) -> bool:
    """Sub-folders of these agents' storage that never hold a chat (extensions, caches, checkpoints)."""
    parent = folder.parent
    if parent.name == ".qwen":
        return folder.name not in _QWEN_KEEP
    if parent.name == ".factory":
        return folder.name != "sessions"
    if parent.name == ".cursor":
        return folder.name not in ("projects", "chats")
    if parent.parent.name == "projects" and parent.parent.parent.name == ".cursor":
        return folder.name != "agent-transcripts"
    if parent.parent.name == "tmp" and parent.parent.parent.name == ".qwen":
        return folder.name == "checkpoints"
    if parent.parent.name == "projects" and parent.parent.parent.name == ".qwen":
        return folder.name != "chats"  # file history, memory, todos beside a project's chats
    if parent.name in ("amp", "sourcegraph.amp") and _AMP_TREE.search(folder.as_posix() + "/"):
        return folder.name not in _AMP_KEEP
    return False
