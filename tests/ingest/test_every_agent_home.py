"""A fake home with every coding agent's folders at their real places: all discovered, all ingested, all searchable.

Each agent's bundled sample (refind_desktop/samples) is copied into the layout the agent itself writes,
then `find_known_sources` and `refind sources discover --json` must name every agent, and the real
ingestor must index each discovered place with no skip, so that a word the user typed and a word the
agent replied are found by search in that agent's session.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import NamedTuple

import pytest

import refind_desktop
from refind_desktop.cli import main
from refind_desktop.ingest.known_sources import WARP_MAC, find_known_sources
from refind_desktop.services import build_services
from tests.helpers.cursor_store import build_store

SAMPLES = Path(refind_desktop.__file__).resolve().parent / "samples"
AGENTS = SAMPLES / "coding-agents"
CODEX = Path(__file__).resolve().parents[1] / "fixtures" / "codex" / "sessions"
EXT = ".config/Code/User/globalStorage"


class Place(NamedTuple):
    """One agent's sample at one of its places, and two words of it to search for."""

    tool: str  # as discovery names it
    fmt: str
    prefix: str  # of its session ids
    copies: list[tuple[Path, str]]  # (sample folder, or file renamed), where it goes under a Linux home
    user: str  # a word of a user turn
    reply: str  # a word of an assistant turn (tool output included)


# Each agent at its main place (the one a default install writes to).
AGENT_HOMES = [
    Place(
        "Claude Code",
        "claude_code",
        "claude-code:",
        [(SAMPLES / "claude-code", ".claude/projects/-home-sam-src-garden-app")],
        "randomly",
        "midnight",
    ),
    Place("Codex", "codex", "codex:", [(CODEX, ".codex/sessions")], "calendar", "tests/test_schedule.py"),
    Place(
        "Gemini CLI",
        "gemini_cli",
        "gemini-cli:",
        [(AGENTS / "gemini-cli", ".gemini/tmp/6f1e2d3c4b5a6978/chats")],
        "threshold",
        "scheduler",
    ),
    Place(
        "OpenCode",
        "opencode",
        "opencode:",
        [(AGENTS / "opencode", ".local/share/opencode")],
        "morning",
        "registers",
    ),
    Place("Continue", "continue_dev", "continue:", [(AGENTS / "continue", ".continue")], "poll", "battery"),
    Place(
        "Copilot CLI",
        "copilot_cli",
        "copilot-cli:",
        [(AGENTS / "copilot-cli", ".copilot/session-state")],
        "planting",
        "prints",
    ),
    Place(
        "Pi", "pi", "pi:", [(AGENTS / "pi", ".pi/agent/sessions/--home-sam-garden-app--")], "sent", "evening"
    ),
    Place("OpenHands", "openhands", "openhands:", [(AGENTS / "openhands", ".openhands")], "harvest", "grams"),
    Place(
        "Kimi CLI",
        "kimi_cli",
        "kimi-cli:",
        [(AGENTS / "kimi-cli", ".kimi/sessions/0a1b2c3d4e5f60718293a4b5c6d7e8f9")],
        "tomato",
        "renamed",
    ),
    Place(
        "Antigravity CLI",
        "antigravity",
        "antigravity:",
        [
            (
                AGENTS / "antigravity/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1",
                ".gemini/antigravity-cli/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1/.system_generated/logs",
            )
        ],
        "gauge",
        "millimetres",
    ),
    Place(
        "Cursor",
        "cursor",
        "cursor:",
        [(AGENTS / "cursor", ".config/Cursor/User/globalStorage")],
        "grows",
        "handlers",
    ),
    Place(
        "Copilot Chat (Code)",
        "copilot_chat",
        "copilot-chat:",
        [(AGENTS / "copilot-chat", ".config/Code/User/workspaceStorage/9a8b7c6d5e4f")],
        "cron",
        "sunday",
    ),
    Place(
        "Cline (Code)",
        "cline",
        "cline:",
        [(AGENTS / "cline", f"{EXT}/saoudrizwan.claude-dev")],
        "unit",
        "fires",
    ),
    Place(
        "Roo Code (Code)",
        "cline",
        "roo:",
        [(AGENTS / "cline", f"{EXT}/rooveterinaryinc.roo-cline")],
        "unit",
        "fires",
    ),
    Place(
        "Kilo Code (Code)",
        "cline",
        "kilo:",
        [(AGENTS / "cline", f"{EXT}/kilocode.kilo-code")],
        "unit",
        "fires",
    ),
    Place(
        "Cline CLI",
        "cline",
        "cline:1756202500000",
        [(AGENTS / "cline/tasks/1756202400000", ".cline/data/tasks/1756202500000")],
        "unit",
        "fires",
    ),
    Place(
        "Qwen Code",
        "qwen_code",
        "qwen-code:",
        [(AGENTS / "qwen-code", ".qwen/projects/-home-sam-src-garden-app/chats")],
        "humidity",
        "formula",
    ),
    Place(
        "Factory Droid",
        "factory_droid",
        "factory-droid:",
        [(AGENTS / "factory-droid", ".factory/sessions/-home-sam-src-garden-app")],
        "wind",
        "debounce",
    ),
    Place("Amp", "amp", "amp:", [(AGENTS / "amp", ".local/share/amp/threads")], "worm", "notifies"),
    Place(
        "Cursor agent",
        "cursor_cli",
        "cursor-cli:",
        [
            (
                AGENTS / "cursor-agent",
                ".cursor/projects/home-sam-src-garden-app/agent-transcripts/8f0a2c4e-6b8d-4f1a-a3c5-e7f9b1d3f5a7",
            )
        ],
        "night",
        "ultrasonic",
    ),
    Place(
        "Aider",
        "aider",
        "aider:",
        [(AGENTS / "aider/aider.chat.history.md", "src/garden-app/.aider.chat.history.md")],
        "rename",
        "callers",
    ),
    Place("Crush", "crush", "crush:", [(AGENTS / "crush", "src/garden-app/.crush")], "vent", "opens"),
    Place("Goose", "goose", "goose:", [(AGENTS / "goose", ".local/share/goose")], "september", "rainy"),
    Place("Zed", "zed", "zed:", [(AGENTS / "zed", ".local/share/zed")], "thermometer", "heat"),
    Place("Warp", "warp", "warp:", [(AGENTS / "warp", ".local/state/warp-terminal")], "exit", "gpio"),
]
CURSOR_STORE = ".cursor/chats/5d41402abc4b2a76b9719d911017c592/4a7b9c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d/store.db"
STORE = Place(
    "Cursor agent", "cursor_cli", "cursor-cli:", [], "heater", "relay"
)  # tests/helpers/cursor_store.py
CODEX_ROLLOUT = "2025/10/29/rollout-2025-10-29T10-12-00-019a2f00-0000-7000-8000-00000000c0de.jsonl"
GEMINI_JSONL = Path(__file__).resolve().parents[1] / "fixtures/gemini_cli_jsonl/.gemini/tmp/garden-app"
KIMI_CODE = Path(__file__).resolve().parents[1] / "fixtures" / "kimi_cli" / ".kimi-code"
OPENHANDS_EVENTS = AGENTS / "openhands/conversations/5c6d7e8f90a14b2cb3d4e5f6a7b8c9d0/events"
ANTIGRAVITY = AGENTS / "antigravity/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1/transcript_full.jsonl"

# The same agents at their other documented Linux places: older layouts, other editors, the Flatpak,
# preview channels, VS Code Server, Kimi Code, the Antigravity IDE, Gemini CLI's JSONL logs, the home folder's own Crush
# database.
OTHER_PLACES = [
    Place(
        "Codex",
        "codex",
        "codex:",
        [(CODEX / CODEX_ROLLOUT, f".codex/archived_sessions/{Path(CODEX_ROLLOUT).name}")],
        "calendar",
        "tests/test_schedule.py",
    ),
    Place(
        "Copilot CLI",
        "copilot_cli",
        "copilot-cli:",
        [
            (
                AGENTS / "copilot-cli/3a4b5c6d-7e8f-4091-a2b3-c4d5e6f7a809/events.jsonl",
                ".copilot/session-state/3a4b5c6d-7e8f-4091-a2b3-c4d5e6f7a809.jsonl",
            )
        ],
        "planting",
        "prints",
    ),
    Place(
        "OpenHands",
        "openhands",
        "openhands:",
        [(OPENHANDS_EVENTS, ".openhands/0f1e2d3c/v1_conversations/5c6d7e8f90a14b2cb3d4e5f6a7b8c9d0")],
        "harvest",
        "grams",
    ),
    Place("Kimi CLI", "kimi_cli", "kimi-cli:", [(KIMI_CODE, ".kimi-code")], "mondays", "skipped"),
    Place(
        "Antigravity",
        "antigravity",
        "antigravity:",
        [
            (
                ANTIGRAVITY,
                ".gemini/antigravity/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1/"
                ".system_generated/logs/transcript.jsonl",
            )
        ],
        "gauge",
        "millimetres",
    ),
    Place(
        "Copilot Chat (VSCodium)",
        "copilot_chat",
        "copilot-chat:",
        [
            (
                AGENTS / "copilot-chat/chatSessions",
                ".config/VSCodium/User/globalStorage/emptyWindowChatSessions",
            )
        ],
        "cron",
        "sunday",
    ),
    Place(
        "Cline (Windsurf)",
        "cline",
        "cline:",
        [(AGENTS / "cline", ".config/Windsurf/User/globalStorage/saoudrizwan.claude-dev")],
        "unit",
        "fires",
    ),
    Place(
        "Roo Code (VS Code Server)",
        "cline",
        "roo:",
        [(AGENTS / "cline", ".vscode-server/data/User/globalStorage/rooveterinaryinc.roo-cline")],
        "unit",
        "fires",
    ),
    Place(
        "Amp (Windsurf)",
        "amp",
        "amp:",
        [(AGENTS / "amp", ".config/Windsurf/User/globalStorage/sourcegraph.amp/threads3")],
        "worm",
        "notifies",
    ),
    Place(
        "Gemini CLI",
        "gemini_cli",
        "gemini-cli:",
        [(GEMINI_JSONL, ".gemini/tmp/garden-app")],
        "hedge",
        "thursday",
    ),
    Place("Crush", "crush", "crush:", [(AGENTS / "crush", ".crush")], "vent", "opens"),
    Place("Zed", "zed", "zed:", [(AGENTS / "zed", ".var/app/dev.zed.Zed/data/zed")], "thermometer", "heat"),
    Place("Warp", "warp", "warp:", [(AGENTS / "warp", ".local/state/warp-terminal-preview")], "exit", "gpio"),
]

# What else sits beside the chats in these folders on a real home (none of it is a chat, none of it may
# be reported as a skipped file): notes, tool outputs kept on disk, settings, indexes, logs, editor state.
CC = ".claude/projects/-home-sam-src-garden-app"
CLINE_TASK = f"{EXT}/saoudrizwan.claude-dev/tasks/1756202400000"
COMPANIONS = {
    f"{CC}/memory/MEMORY.md": "- garden-app: tests run with pytest -q\n",
    f"{CC}/7d3c1b2a-1111-4222-8333-444455556666/tool-results/toolu_01A.txt": "line 1\nline 2\n",
    f"{CC}/7d3c1b2a-1111-4222-8333-444455556666/session-memory/summary.md": "# Session\n",
    ".gemini/tmp/6f1e2d3c4b5a6978/shell_history": "ls\n",
    ".gemini/tmp/6f1e2d3c4b5a6978/checkpoints/2025-08-20T08-30-00_000Z-config.toml-edit.json": "{}",
    ".local/share/opencode/storage/project/global.json": '{"id": "global", "worktree": "/"}',
    ".local/share/opencode/storage/todo/ses_5a0c1d2e3ffeGardenApp0001.json": "[]",
    ".local/share/opencode/storage/session_diff/ses_5a0c1d2e3ffeGardenApp0001.json": "[]",
    ".continue/sessions/sessions.json": "[]",
    ".copilot/session-state/3a4b5c6d-7e8f-4091-a2b3-c4d5e6f7a809/workspace.yaml": "summary: dry run\n",
    ".copilot/session-state/3a4b5c6d-7e8f-4091-a2b3-c4d5e6f7a809/checkpoints/index.md": "# Checkpoints\n",
    ".pi/agent/sessions/--home-sam-garden-app--/subagent-artifacts/a1_output.md": "done\n",
    ".kimi/sessions/0a1b2c3d4e5f60718293a4b5c6d7e8f9/6d7e8f90-a1b2-4c3d-8e4f-5a6b7c8d9e0f/state.json": "{}",
    ".gemini/antigravity-cli/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1/task.md": "- [x] chart\n",
    ".gemini/antigravity-cli/brain/7e8f90a1-b2c3-4d4e-9f5a-6b7c8d9e0fa1/.system_generated/logs/overview.txt": "o\n",
    ".config/Code/User/workspaceStorage/9a8b7c6d5e4f/workspace.json": '{"folder": "file:///home/sam"}',
    ".config/Code/User/workspaceStorage/9a8b7c6d5e4f/chatEditingSessions/e1/state.json": "{}",
    ".config/Cursor/User/workspaceStorage/1a2b3c4d/workspace.json": '{"folder": "file:///home/sam"}',
    f"{CLINE_TASK}/task_metadata.json": "{}",
    f"{CLINE_TASK}/api_conversation_history.json": "[]",
    ".cline/data/tasks/1756202500000/task_metadata.json": "{}",
    ".cline/data/tasks/1756202500000/api_conversation_history.json": "[]",
    ".qwen/projects/-home-sam-src-garden-app/file-history/q-0001.json": "{}",
    ".factory/sessions/-home-sam-src-garden-app/6b8d0f2a-4c6e-4a8b-9d1f-3a5c7e9b1d2f.settings.json": "{}",
    ".cursor/projects/home-sam-src-garden-app/mcp-approvals.json": "{}",
    ".cursor/projects/home-sam-src-garden-app/worker.log": "started\n",
}
EDITOR_STATE = (  # VS Code's and Cursor's per-workspace state, with no chat in it
    ".config/Code/User/workspaceStorage/9a8b7c6d5e4f/state.vscdb",
    ".config/Cursor/User/workspaceStorage/1a2b3c4d/state.vscdb",
)

# Where a Linux path of an agent lives on macOS and Windows (only those that differ).
MOVES = {
    "darwin": {
        ".config/": "Library/Application Support/",
        ".local/share/zed/": "Library/Application Support/Zed/",
        ".local/share/amp/": "Library/Application Support/amp/",
        ".local/state/warp-terminal/": f"{WARP_MAC.as_posix()}/dev.warp.Warp-Stable/",
    },
    "win32": {
        ".config/": "AppData/Roaming/",
        ".local/share/zed/": "AppData/Local/Zed/",
        ".local/share/amp/": "AppData/Local/amp/",
        ".local/share/goose/sessions/": "AppData/Roaming/Block/goose/data/sessions/",
        ".local/state/warp-terminal/": "AppData/Local/warp/Warp/data/",
    },
}
ENV_VARS = (
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "APPDATA",
    "LOCALAPPDATA",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "CONTINUE_GLOBAL_DIR",
    "COPILOT_HOME",
    "PI_CODING_AGENT_DIR",
    "KIMI_SHARE_DIR",
    "KIMI_CODE_HOME",
    "QWEN_RUNTIME_DIR",
    "AMP_DATA_HOME",
    "GOOSE_PATH_ROOT",
)


def placed(rel: str, system: str) -> str:
    for linux, there in MOVES.get(system, {}).items():
        if rel.startswith(linux):
            return there + rel[len(linux) :]
    return rel


def every_agent_home(home: Path, system: str = "linux", places: list[Place] = AGENT_HOMES) -> Path:
    """`home` with each agent's sample copied where that agent writes it on `system`."""
    for place in places:
        for sample, rel in place.copies:
            if sample.is_file():  # a bundled sample renamed to the agent's own file name
                (home / placed(rel, system)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(sample, home / placed(rel, system))
            else:
                shutil.copytree(sample, home / placed(rel + "/", system), dirs_exist_ok=True)
    if places is AGENT_HOMES:
        build_store(home / CURSOR_STORE)
        for rel, text in COMPANIONS.items():
            (home / placed(rel, system)).parent.mkdir(parents=True, exist_ok=True)
            (home / placed(rel, system)).write_text(text, encoding="utf-8")
        for rel in EDITOR_STATE:
            db = sqlite3.connect(home / placed(rel, system))
            db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
            db.execute("INSERT INTO ItemTable VALUES ('workbench.panel.chat.numberOfVisibleViews', '1')")
            db.commit()
            db.close()
    return home


def sides(text: str) -> dict[str, str]:
    """The user's and the assistant's part of a paired turn's text ("User: …\n\nAssistant: …")."""
    if text.startswith("Assistant: "):
        return {"user": "", "assistant": text}
    user, _, reply = text.partition("\n\nAssistant: ")
    return {"user": user, "assistant": reply}


def missing_tools(found: list[str], places: list[Place] = AGENT_HOMES) -> list[str]:
    return sorted({p.tool for p in places} - set(found))


def check_ingest(found: list, places: list[Place]) -> None:
    """Ingest every discovered place: no skip, sessions of every format, each agent's words searchable
    in the user's or the assistant's part of a turn of that agent's own session."""
    svc = build_services()
    try:
        report = svc.ingestor.ingest([k.path for k in found])
        assert [(s.path, s.reason) for s in report.skipped] == []
        formats = svc.catalog.totals()["formats"]
        empty = sorted({p.fmt for p in places} - {f for f, t in formats.items() if t["sessions"]})
        assert empty == []
        unfound = []
        for place in places:
            for word, role in ((place.user, "user"), (place.reply, "assistant")):
                blocks = svc.engine.search(word)
                texts = [
                    sides(t.text)[role]
                    for b in blocks
                    if b.session_id.startswith(place.prefix)
                    for t in b.turns
                ]
                if not any(word in text.lower() for text in texts):
                    unfound.append((place.tool, role, word, [b.session_id for b in blocks]))
        assert unfound == []
    finally:
        svc.close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = every_agent_home(tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    for var in ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


def test_every_agent_is_discovered_by_the_library_and_the_cli(home: Path, capsys) -> None:
    found = find_known_sources(home, env={}, system="linux")
    assert missing_tools([k.tool for k in found]) == []
    assert all(k.files >= 1 and k.size > 0 and k.kind == "agent" for k in found), found
    assert main(["sources", "discover", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["found"]
    assert missing_tools([f["tool"] for f in listed]) == []
    assert sorted((f["tool"], f["path"]) for f in listed) == sorted((k.tool, str(k.path)) for k in found)
    # recorded, then read through the CLI: nothing skipped, every agent's format indexed
    assert main(["sources", "discover", "--add", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["added"]) == len({k.path for k in found})
    assert main(["sources", "ingest", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == []
    assert main(["stats", "--json"]) == 0
    formats = json.loads(capsys.readouterr().out)["formats"]
    assert sorted({p.fmt for p in AGENT_HOMES} - set(formats)) == []


@pytest.mark.parametrize("system", ["darwin", "win32"])
def test_every_agent_is_discovered_and_ingested_at_its_places_on_other_systems(
    tmp_path: Path, system: str
) -> None:
    home = every_agent_home(tmp_path / system, system)
    found = find_known_sources(home, env={}, system=system)
    assert missing_tools([k.tool for k in found]) == []
    check_ingest(found, [*AGENT_HOMES, STORE])


def test_every_discovered_place_ingests_and_each_agent_is_searchable(home: Path) -> None:
    check_ingest(find_known_sources(home, env={}, system="linux"), [*AGENT_HOMES, STORE])


def test_the_agents_other_places_are_discovered_and_ingested(tmp_path: Path) -> None:
    home = every_agent_home(tmp_path / "home", places=OTHER_PLACES)
    found = find_known_sources(home, env={}, system="linux")
    assert missing_tools([k.tool for k in found], OTHER_PLACES) == []
    check_ingest(found, OTHER_PLACES)
