"""Discovery of known chat locations on a fake home: Linux, macOS and Windows layouts, Downloads."""

from __future__ import annotations

import builtins
import io
import zipfile
from pathlib import Path

import pytest

from refind_desktop.ingest.known_sources import find_known_sources


def touch(path: Path, data: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return path


def linux_home(home: Path) -> Path:
    touch(home / ".claude/projects/-home-dana-src-app/7d3c1b2a-1111-4222-8333-444455556666.jsonl", "x" * 100)
    touch(home / ".claude/projects/-home-dana-src-app/7d3c1b2a-1111-4222-8333-444455556667.jsonl", "x" * 50)
    touch(home / ".codex/sessions/2025/10/29/rollout-2025-10-29T10-12-00-abc.jsonl")
    touch(home / ".codex/history.jsonl")
    touch(home / ".gemini/tmp/3b5c/chats/session-2025-09-18T10-03-5e1f0c2a.json")
    touch(home / ".gemini/tmp/3b5c/checkpoints/x.json")
    touch(home / ".config/Cursor/User/globalStorage/state.vscdb", "SQLite format 3")
    touch(home / ".config/Cursor/User/workspaceStorage/4f0e/state.vscdb")
    touch(home / ".config/Code/User/workspaceStorage/a3c5/chatSessions/3f1c.json")
    touch(home / ".config/Code/User/workspaceStorage/a3c5/state.vscdb")
    touch(home / ".config/Code/User/workspaceStorage/b4d6/workspace.json")
    touch(
        home / ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1730451234567/ui_messages.json"
    )
    touch(
        home
        / ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/0f4b/api_conversation_history.json"
    )
    touch(home / ".local/share/opencode/storage/session/4b82/ses_6a1f.json")
    touch(home / ".local/share/opencode/storage/message/ses_6a1f/msg_1.json")
    touch(home / ".continue/sessions/c0ffee00.json")
    touch(home / ".continue/sessions/sessions.json")
    touch(home / "src/greenhouse/.aider.chat.history.md", "# aider chat started at 2025-03-29 21:14:05\n")
    touch(home / "a/b/c/d/e/.aider.chat.history.md")  # deeper than the search goes
    touch(home / "src/web/node_modules/pkg/.aider.chat.history.md")  # never walked
    downloads = home / "Downloads"
    with zipfile.ZipFile(touch(downloads / "5f2c-2025-03-01-10-00-00.zip"), "w") as zf:
        zf.writestr("conversations.json", "[]")
        zf.writestr("chat.html", "<html>")
    with zipfile.ZipFile(touch(downloads / "data-2025-03-02.zip"), "w") as zf:
        zf.writestr("conversations.json", "[]")
        zf.writestr("users.json", "[]")
    with zipfile.ZipFile(touch(downloads / "holiday-photos.zip"), "w") as zf:
        zf.writestr("IMG_0001.jpg", "jpeg")
    touch(downloads / "WhatsApp Chat with Maya.txt", "01/02/2025, 10:00 - Maya: hi\n")
    touch(downloads / "ChatExport_2025-01-10/result.json")
    touch(downloads / "broken.zip", "not a zip")
    return home


def rows(found) -> list[tuple[str, str, int]]:
    return [(s.tool, s.path.as_posix(), s.files) for s in found]


def test_linux_home_lists_every_known_location_with_counts(tmp_path: Path) -> None:
    home = linux_home(tmp_path / "home")
    found = find_known_sources(home, env={}, system="linux")
    rel = [(t, p.replace(home.as_posix() + "/", "~/"), n) for t, p, n in rows(found)]
    assert rel == [
        ("Claude Code", "~/.claude/projects", 2),
        ("Codex", "~/.codex/sessions", 1),
        ("Gemini CLI", "~/.gemini/tmp", 1),
        ("OpenCode", "~/.local/share/opencode/storage", 1),
        ("Continue", "~/.continue/sessions", 1),
        ("Copilot Chat (Code)", "~/.config/Code/User/workspaceStorage", 1),
        ("Cline (Code)", "~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks", 1),
        ("Roo Code (Code)", "~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks", 1),
        ("Cursor", "~/.config/Cursor/User/globalStorage/state.vscdb", 1),
        ("Cursor", "~/.config/Cursor/User/workspaceStorage", 1),
        ("Aider", "~/src/greenhouse/.aider.chat.history.md", 1),
        ("ChatGPT", "~/Downloads/5f2c-2025-03-01-10-00-00.zip", 1),
        ("Telegram", "~/Downloads/ChatExport_2025-01-10", 1),
        ("WhatsApp", "~/Downloads/WhatsApp Chat with Maya.txt", 1),
        ("Claude", "~/Downloads/data-2025-03-02.zip", 1),
    ]
    claude = found[0]
    assert claude.size == 150 and claude.kind == "agent" and "jsonl" in claude.reads
    assert {s.kind for s in found if "Downloads" in str(s.path)} == {"export"}


def test_discovery_reads_no_chat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = linux_home(tmp_path / "home")
    opened: list[str] = []
    real = builtins.open

    def spy(file, *a, **k):
        opened.append(str(file))
        return real(file, *a, **k)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    find_known_sources(home, env={}, system="linux")
    # only the list of names inside zips in Downloads, and the XDG user-dirs setting
    assert all(p.endswith((".zip", "user-dirs.dirs")) for p in opened), opened


def test_macos_and_windows_editor_folders(tmp_path: Path) -> None:
    mac = tmp_path / "mac"
    touch(mac / "Library/Application Support/Cursor/User/globalStorage/state.vscdb")
    touch(mac / "Library/Application Support/Code - Insiders/User/workspaceStorage/h/chatSessions/s.jsonl")
    assert [(t, n) for t, _, n in rows(find_known_sources(mac, env={}, system="darwin"))] == [
        ("Copilot Chat (Code - Insiders)", 1),
        ("Cursor", 1),
    ]
    win = tmp_path / "win"
    appdata = win / "AppData" / "Roaming"
    touch(appdata / "Code/User/globalStorage/saoudrizwan.claude-dev/tasks/17/ui_messages.json")
    touch(win / "AppData/Local/opencode/storage/session/global/ses_1.json")
    found = find_known_sources(win, env={"APPDATA": str(appdata)}, system="win32")
    assert [t for t, _, _ in rows(found)] == ["OpenCode", "Cline (Code)"]


def test_environment_overrides_and_xdg_downloads(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(tmp_path / "codex-home/sessions/2025/01/01/rollout-x.jsonl")
    touch(tmp_path / "claude-config/projects/p/s.jsonl")
    touch(home / ".config/user-dirs.dirs", 'XDG_DOWNLOAD_DIR="$HOME/Herunterladen"\n')
    touch(home / "Herunterladen/WhatsApp Chat - Familie.txt")
    env = {"CODEX_HOME": str(tmp_path / "codex-home"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-config")}
    found = find_known_sources(home, env=env, system="linux")
    assert [(t, p) for t, p, _ in rows(found)] == [
        ("Claude Code", (tmp_path / "claude-config/projects").as_posix()),
        ("Codex", (tmp_path / "codex-home/sessions").as_posix()),
        ("WhatsApp", (home / "Herunterladen/WhatsApp Chat - Familie.txt").as_posix()),
    ]


def test_empty_home_finds_nothing(tmp_path: Path) -> None:
    assert find_known_sources(tmp_path, env={}, system="linux") == []


def test_opencode_database_is_preferred_over_its_migrated_json_storage(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(home / ".local/share/opencode/storage/session/global/ses_1.json")
    touch(home / ".local/share/opencode/opencode.db", "SQLite format 3")
    [found] = find_known_sources(home, env={}, system="linux")
    assert (found.tool, found.path.name, found.files) == ("OpenCode", "opencode.db", 1)
