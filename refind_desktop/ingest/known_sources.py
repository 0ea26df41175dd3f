"""Known places where chat logs live on this machine: coding agents, editor extensions, Downloads.

`find_known_sources(home)` looks only at names and sizes (it never opens a chat file; for a `.zip`
in Downloads it reads the archive's list of names) and returns `KnownSource`s: what tool wrote it,
the file or folder to ingest, how many files of which kind, and their size. Used by
`refind sources discover` (cli/sources.py) and the TUI's first-run screen (tui/screens/discover.py).
`home`, `env` and `system` are injectable so tests build a fake home.
"""

from __future__ import annotations

import os
import re
import sys
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from . import known_sources_b

EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
TASK_EXTENSIONS = {
    "saoudrizwan.claude-dev": "Cline",
    "rooveterinaryinc.roo-cline": "Roo Code",
    "kilocode.kilo-code": "Kilo Code",
}
AIDER_DEPTH = 4
"""How deep under the home folder to look for `.aider.chat.history.md` files."""
MAX_ENTRIES = 50_000
"""Folder entries looked at per scan, so a huge home folder cannot stall discovery."""
_SKIP_DIRS = {"node_modules", "Library", "AppData", "site-packages", "__pycache__", "venv", "snap", "go"}
_WHATSAPP = re.compile(r"^(?:WhatsApp Chat (?:with|-) .+|_chat|Conversa do WhatsApp com .+)\.txt$", re.I)


@dataclass(frozen=True)
class KnownSource:
    """One place with chat logs: the tool, the path to ingest, what would be read, and how much."""

    tool: str
    path: Path
    reads: str
    files: int
    size: int
    kind: str = "agent"  # "agent" (live logs of a coding agent or extension) or "export" (a download)

    def to_json(self) -> dict:
        """The stable JSON shape of `refind sources discover --json`."""
        return {
            "tool": self.tool,
            "path": str(self.path),
            "reads": self.reads,
            "files": self.files,
            "size": self.size,
            "kind": self.kind,
        }


def find_known_sources(
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    system: str | None = None,
    aider_depth: int = AIDER_DEPTH,
) -> list[KnownSource]:
    """Every known chat location that exists under `home` (default: the user's home folder)."""
    home = Path(home) if home is not None else Path.home()
    env = os.environ if env is None else env
    system = system or sys.platform
    found: list[KnownSource] = []

    def add(
        tool: str, path: Path, reads: str, match: Callable[[str, str], bool], kind: str = "agent"
    ) -> None:
        if path.is_file():
            found.append(KnownSource(tool, path, reads, 1, _size(path), kind))
        elif path.is_dir():
            files, size = _count(path, match)
            if files:
                found.append(KnownSource(tool, path, reads, files, size, kind))

    for tool, path, reads, match in agent_places(home, env, system):
        add(tool, path, reads, match)
    for path in _project_files(home, aider_depth):
        if path.name == "crush.db":
            found.append(KnownSource("Crush", path, "sessions (SQLite, read-only)", 1, _db_size(path)))
        else:
            found.append(KnownSource("Aider", path, "chat history (Markdown)", 1, _size(path)))
    found += _sqlite_agents(home, env, system)
    found += _downloads(_downloads_dir(home, env, system))
    return found


def agent_places(
    home: Path, env: Mapping[str, str], system: str, every_editor: bool = False
) -> Iterator[tuple[str, Path, str, Callable[[str, str], bool]]]:
    """(tool, file or folder, what is read there, which files count) of each coding agent and editor
    extension under `home`, whether it exists or not; editors' folders only where the editor's
    `User` folder exists, unless `every_editor`."""
    claude = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    yield ("Claude Code", claude / "projects", "session transcripts (*.jsonl)", _suffix(".jsonl"))
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    for sub in ("sessions", "archived_sessions"):
        yield ("Codex", codex / sub, "rollouts (rollout-*.jsonl)", lambda d, n: n.startswith("rollout-"))
    yield ("Gemini CLI", home / ".gemini" / "tmp", "chat sessions and saved chats (*.jsonl, *.json)", _gemini)
    for data in _data_dirs(home, env, system):
        if (data / "opencode" / "opencode.db").is_file():  # 1.2+: the JSON storage was migrated into it
            yield ("OpenCode", data / "opencode" / "opencode.db", "sessions (SQLite, read-only)", _never)
        else:
            yield (
                "OpenCode",
                data / "opencode" / "storage",
                "sessions with their messages (JSON)",
                _opencode,
            )
    cont = Path(env["CONTINUE_GLOBAL_DIR"]) if env.get("CONTINUE_GLOBAL_DIR") else home / ".continue"
    yield (
        "Continue",
        cont / "sessions",
        "chat sessions (*.json)",
        lambda d, n: n.endswith(".json") and n != "sessions.json",
    )
    yield (
        "Cline CLI",
        home / ".cline" / "data" / "tasks",
        "task conversations (ui_messages.json)",
        _named("ui_messages.json", "claude_messages.json", "api_conversation_history.json"),
    )
    # -- group A: Copilot CLI, Pi, OpenHands, Kimi CLI, Antigravity (same paths on macOS and Windows) --
    copilot = Path(env["COPILOT_HOME"]) if env.get("COPILOT_HOME") else home / ".copilot"
    yield ("Copilot CLI", copilot / "session-state", "session event logs (events.jsonl)", _suffix(".jsonl"))
    yield (
        "Copilot CLI",
        copilot / "history-session-state",
        "sessions of early versions (*.json)",
        _suffix(".json"),
    )
    pi = Path(env["PI_CODING_AGENT_DIR"]) if env.get("PI_CODING_AGENT_DIR") else home / ".pi" / "agent"
    yield ("Pi", pi / "sessions", "session files (*.jsonl)", _pi)
    openhands = home / ".openhands"
    app = sorted(openhands.glob("*/v1_conversations")) if openhands.is_dir() else []  # <user id>/
    for folder in [openhands / "conversations", openhands / "sessions", openhands / "v1_conversations", *app]:
        yield ("OpenHands", folder, "conversations (a folder of event files each)", _openhands)
    kimis = [Path(env["KIMI_SHARE_DIR"])] if env.get("KIMI_SHARE_DIR") else [home / ".kimi"]
    kimis.append(Path(env["KIMI_CODE_HOME"]) if env.get("KIMI_CODE_HOME") else home / ".kimi-code")
    for kimi in kimis:
        yield ("Kimi CLI", kimi / "sessions", "session contexts (context.jsonl)", _kimi)
    for sub, tool in (
        ("antigravity-cli", "Antigravity CLI"),
        ("antigravity", "Antigravity"),
        ("antigravity-ide", "Antigravity"),
    ):
        yield (
            tool,
            home / ".gemini" / sub / "brain",
            "conversation transcripts (transcript*.jsonl)",
            _antigravity,
        )
    # -- end of group A --
    for editor, user in _editor_dirs(home, env, system, every_editor):
        if editor == "Cursor":
            yield (
                "Cursor",
                user / "globalStorage" / "state.vscdb",
                "composer and agent chats (SQLite, read-only)",
                _never,
            )
            yield (
                "Cursor",
                user / "workspaceStorage",
                "chat pane history (state.vscdb, read-only)",
                _named("state.vscdb"),
            )
        else:
            yield (
                f"Copilot Chat ({editor})",
                user / "workspaceStorage",
                "chat sessions (chatSessions/*.json)",
                _copilot,
            )
            yield (
                f"Copilot Chat ({editor})",
                user / "globalStorage" / "emptyWindowChatSessions",
                "chat sessions (*.json)",
                _suffix(".json"),
            )
        for ext, name in TASK_EXTENSIONS.items():
            yield (
                f"{name} ({editor})",
                user / "globalStorage" / ext / "tasks",
                "task conversations (ui_messages.json)",
                _named("ui_messages.json", "claude_messages.json", "api_conversation_history.json"),
            )
    data_dirs, editor_dirs = (
        _data_dirs(home, env, system),
        list(_editor_dirs(home, env, system, every_editor)),
    )
    # Qwen Code, Factory Droid, Amp, Cursor agent transcripts
    yield from known_sources_b.places(home, env, system, data_dirs, editor_dirs)


def remote_candidates() -> list[tuple[str, str]]:
    """(tool, `~/…` path) of every agent folder local discovery knows, as on a Linux host with no
    overrides, plus VS Code Server's `User` folder (where remote extensions keep their chats): what
    `refind sources discover --host` looks for on another machine."""
    out: list[tuple[str, str]] = []
    for tool, path, _reads, _match in agent_places(Path("~"), {}, "linux", every_editor=True):
        out.append((tool, path.as_posix()))
    return list(dict.fromkeys(out))


def _never(folder: str, name: str) -> bool:
    return False


def _any(folder: str, name: str) -> bool:
    return True


def _suffix(suffix: str) -> Callable[[str, str], bool]:
    return lambda folder, name: name.endswith(suffix)


def _named(*names: str) -> Callable[[str, str], bool]:
    return lambda folder, name: name in names


def _gemini(folder: str, name: str) -> bool:
    if name == "logs.json":  # the old prompt log, read only where no chats folder replaced it
        return not os.path.isdir(os.path.join(folder, "chats"))
    if os.path.basename(folder) == "chats" and name.endswith(".jsonl"):
        return True  # 0.35+: an append-only session log (a `.json` beside it is the same session)
    if name.endswith(".json") and os.path.isfile(os.path.join(folder, f"{name}l")):
        return False
    return name.endswith(".json") and (os.path.basename(folder) == "chats" or name.startswith("checkpoint-"))


def _opencode(folder: str, name: str) -> bool:
    return name.endswith(".json") and os.path.basename(os.path.dirname(folder)) == "session"


def _pi(folder: str, name: str) -> bool:
    return name.endswith(".jsonl") and os.path.basename(folder) != "subagent-artifacts"


def _openhands(folder: str, name: str) -> bool:
    parent = os.path.basename(os.path.dirname(folder))
    return name.endswith(".json") and (os.path.basename(folder) == "events" or parent == "v1_conversations")


def _kimi(folder: str, name: str) -> bool:
    if name == "context.jsonl":
        return True  # a session folder (its rotated contexts and wire log are read with it)
    if name == "wire.jsonl":  # Kimi Code: the main agent's log of a session
        return os.path.basename(folder) == "main" and os.path.basename(os.path.dirname(folder)) == "agents"
    return name.endswith(".jsonl") and os.path.basename(os.path.dirname(folder)) == "sessions"


def _antigravity(folder: str, name: str) -> bool:
    if name == "transcript.jsonl":  # the compact transcript, where no full one replaces it
        return not os.path.isfile(os.path.join(folder, "transcript_full.jsonl"))
    return name == "transcript_full.jsonl"


def _copilot(folder: str, name: str) -> bool:
    return os.path.basename(folder) == "chatSessions" and name.endswith((".json", ".jsonl"))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _count(root: Path, match: Callable[[str, str], bool]) -> tuple[int, int]:
    """(matching files, their bytes) under `root`, looking at no more than MAX_ENTRIES entries."""
    files = size = seen = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and d != "checkpoints"]
        seen += len(dirs) + len(names)
        for name in names:
            if match(folder, name):
                files += 1
                size += _size(Path(folder) / name)
        if seen > MAX_ENTRIES:
            break
    return files, size


def _data_dirs(home: Path, env: Mapping[str, str], system: str) -> list[Path]:
    dirs = [Path(env["XDG_DATA_HOME"])] if env.get("XDG_DATA_HOME") else []
    dirs.append(home / ".local" / "share")
    if system.startswith("win"):
        dirs.append(Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData" / "Local")
    return list(dict.fromkeys(dirs))


def _editor_dirs(
    home: Path, env: Mapping[str, str], system: str, every_editor: bool = False
) -> Iterator[tuple[str, Path]]:
    """(editor, its `User` folder) for VS Code and its forks, on this platform, and VS Code Server's
    (where extensions used over VS Code Remote keep their chats): those that exist, unless `every_editor`."""
    if system == "darwin":
        base = home / "Library" / "Application Support"
    elif system.startswith("win"):
        base = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    else:
        base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    for editor in EDITORS:
        user = base / editor / "User"
        if every_editor or user.is_dir():
            yield editor, user
    server = home / ".vscode-server" / "data" / "User"  # this machine reached with VS Code Remote
    if not system.startswith("win") and (every_editor or server.is_dir()):
        yield "VS Code Server", server


def _project_files(home: Path, depth: int) -> list[Path]:
    """`.aider.chat.history.md` and `.crush/crush.db` files in project folders up to `depth` levels
    under home (the home folder's own `.crush/crush.db` too)."""
    out: list[Path] = []
    seen = 0
    frontier = [home]
    for level in range(depth + 1):
        nxt: list[Path] = []
        for folder in frontier:
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                continue
            seen += len(entries)
            for e in entries:
                if e.name == ".aider.chat.history.md" and e.is_file():
                    out.append(Path(e.path))
                elif e.name == ".crush" and os.path.isfile(os.path.join(e.path, "crush.db")):
                    out.append(Path(e.path) / "crush.db")
                elif level < depth and not e.name.startswith(".") and e.name not in _SKIP_DIRS:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            nxt.append(Path(e.path))
                    except OSError:
                        pass
            if seen > MAX_ENTRIES:
                return sorted(out)
        frontier = sorted(nxt)
    return sorted(out)


# -- group C: agents that keep their chats in SQLite (Crush's per-project databases: _project_files) --
WARP_MAC = Path("Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support")
_DB_READS = "sessions (SQLite, read-only)"


def _sqlite_agents(home: Path, env: Mapping[str, str], system: str) -> list[KnownSource]:
    """Crush's global database, Goose's sessions, Zed's agent threads and Warp's Agent Mode database."""
    data = _data_dirs(home, env, system)
    local = Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData" / "Local"
    roaming = Path(env["APPDATA"]) if env.get("APPDATA") else home / "AppData" / "Roaming"
    state = Path(env["XDG_STATE_HOME"]) if env.get("XDG_STATE_HOME") else home / ".local" / "state"
    out: list[KnownSource] = []

    def db(tool: str, path: Path, reads: str = _DB_READS) -> bool:
        if path.is_file() and all(k.path != path for k in out):
            out.append(KnownSource(tool, path, reads, 1, _db_size(path)))
            return True
        return False

    for d in data:  # the global database, and any per-project ones Crush keeps in its data folder
        files, size = _count(d / "crush", lambda folder, n: n == "crush.db")
        if files > 1:
            out.append(
                KnownSource("Crush", d / "crush", "sessions (crush.db files, SQLite, read-only)", files, size)
            )
        elif files:
            db("Crush", next((d / "crush").rglob("crush.db")))
    goose = [Path(env["GOOSE_PATH_ROOT"]) / "data" / "sessions"] if env.get("GOOSE_PATH_ROOT") else []
    goose += [d / "goose" / "sessions" for d in data] + [roaming / "Block" / "goose" / "data" / "sessions"]
    goose.append(home / "Library" / "Application Support" / "Block" / "goose" / "sessions")
    for folder in goose:
        if not db("Goose", folder / "sessions.db"):  # goose 1.10+ imported the JSONL files into it
            files, size = _count(folder, lambda d, n, top=str(folder): n.endswith(".jsonl") and d == top)
            if files:
                out.append(KnownSource("Goose", folder, "sessions (*.jsonl)", files, size))
    zed = [d / "zed" for d in data] + [home / ".var/app/dev.zed.Zed/data/zed"]
    zed += [home / "Library/Application Support/Zed", local / "Zed"]
    for folder in zed:
        db("Zed", folder / "threads" / "threads.db", "agent threads (SQLite, read-only)")
    warp = [state / "warp-terminal", state / "warp-terminal-preview", local / "warp" / "Warp" / "data"]
    warp += [home / WARP_MAC / f"dev.warp.Warp-{channel}" for channel in ("Stable", "Preview")]
    for folder in warp:
        db("Warp", folder / "warp.sqlite", "Agent Mode conversations (SQLite, read-only)")
    return out


def _db_size(path: Path) -> int:
    """Bytes of a database with its write-ahead log (rows not yet checkpointed are in the log)."""
    return _size(path) + (_size(Path(f"{path}-wal")) if Path(f"{path}-wal").is_file() else 0)


def _downloads_dir(home: Path, env: Mapping[str, str], system: str) -> Path:
    """The Downloads folder (XDG user-dirs setting on Linux, else ~/Downloads)."""
    if not system.startswith(("win", "darwin")):
        conf = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
        try:
            text = (conf / "user-dirs.dirs").read_text(encoding="utf-8")
        except OSError:
            text = ""
        m = re.search(r'^XDG_DOWNLOAD_DIR="([^"]+)"', text, re.M)
        if m:
            return Path(m.group(1).replace("$HOME", str(home)))
    return home / "Downloads"


def _downloads(folder: Path) -> list[KnownSource]:
    """Chat exports in Downloads, one level deep: ChatGPT/Claude/WhatsApp/Slack zips and folders."""
    out: list[KnownSource] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return out
    for p in entries:
        try:
            if p.is_file() and p.suffix.lower() == ".zip":
                kind = _zip_kind(p)
                if kind:
                    out.append(KnownSource(kind, p, "export archive (zip)", 1, _size(p), "export"))
            elif p.is_file() and _WHATSAPP.match(p.name):
                out.append(KnownSource("WhatsApp", p, "exported chat (text)", 1, _size(p), "export"))
            elif p.is_dir():
                names = {c.name for c in p.iterdir()}
                if "result.json" in names:
                    out.append(
                        KnownSource(
                            "Telegram",
                            p,
                            "exported chats (result.json)",
                            1,
                            _size(p / "result.json"),
                            "export",
                        )
                    )
                elif any(re.match(r"^conversations(?:-\d+)?\.json$", n) for n in names):
                    kind = (
                        "ChatGPT" if names & {"chat.html", "user.json", "message_feedback.json"} else "Claude"
                    )
                    files, size = _count(p, lambda d, n: n.startswith("conversations"))
                    out.append(
                        KnownSource(kind, p, "export folder (conversations.json)", files, size, "export")
                    )
                elif any(_WHATSAPP.match(n) for n in names):
                    files, size = _count(p, _any)  # the chat and its media: what the folder holds
                    out.append(KnownSource("WhatsApp", p, "exported chat folder", files, size, "export"))
        except OSError:
            continue
    return out


def _zip_kind(path: Path) -> str:
    """Which export a zip is, from its list of names only ('' when it is none of them)."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = {n.rsplit("/", 1)[-1] for n in zf.namelist()[:5000]}
    except (OSError, zipfile.BadZipFile, RuntimeError):
        return ""
    if any(re.match(r"^conversations(?:-\d+)?\.json$", n) for n in names):
        if names & {"chat.html", "user.json", "message_feedback.json"}:
            return "ChatGPT"
        return "Claude" if "users.json" in names else "ChatGPT or Claude"
    if any(_WHATSAPP.match(n) for n in names):
        return "WhatsApp"
    if "channels.json" in names and names & {"users.json", "org_users.json"}:
        return "Slack"
    return ""
