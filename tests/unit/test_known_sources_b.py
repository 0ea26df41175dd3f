"""Discovery of Qwen Code, Factory Droid, Amp and Cursor agent transcripts on fake Linux, macOS and Windows homes."""

from __future__ import annotations

import json
from pathlib import Path

from refind_desktop.cli import main
from refind_desktop.ingest.known_sources import find_known_sources
from refind_desktop.ingest.walker import discover


def touch(path: Path, data: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return path


def agents_home(home: Path) -> Path:
    touch(home / ".qwen/projects/-home-dana-src-app/chats/7f3e2a10.jsonl", "x" * 40)
    touch(home / ".qwen/projects/-home-dana-src-app/chats/8a4f3b21.jsonl", "x" * 60)
    touch(home / ".qwen/tmp/9c2e/chats/session-2025-08-01T09-12-4a1b.json")
    touch(home / ".qwen/tmp/9c2e/checkpoints/x.json")  # a tool checkpoint, not a chat
    touch(home / ".qwen/tmp/1d3f/logs.json", "[]")  # the old prompt log (no chats folder beside it)
    touch(home / ".qwen/settings.json")
    touch(home / ".factory/sessions/-home-dana-src-app/3c9d.jsonl")
    touch(home / ".factory/sessions/-home-dana-src-app/3c9d.settings.json")
    touch(home / ".local/share/amp/threads/T-0b6f6a52.json")
    touch(home / ".local/share/amp/history.jsonl")
    touch(home / ".config/Code/User/globalStorage/sourcegraph.amp/threads3/T-6e5d4c3b.json")
    touch(home / ".cursor/projects/home-dana-src-app/agent-transcripts/5d2c/5d2c.jsonl")
    touch(home / ".cursor/projects/home-dana-src-app/agent-transcripts/91ab.txt", "user:\nhi\n")
    touch(home / ".cursor/projects/home-dana-src-app/mcp-approvals.json", "[]")
    touch(home / ".cursor/chats/4d5e/0a1b/store.db", "SQLite format 3")
    touch(home / ".cursor/chats/4d5e/0a1b/meta.json")
    touch(home / ".cursor/cli-config.json")
    return home


def rel(found, home: Path) -> list[tuple[str, str, int]]:
    return [(s.tool, s.path.as_posix().replace(home.as_posix() + "/", "~/"), s.files) for s in found]


def test_linux_home_finds_every_agent_folder_with_counts(tmp_path: Path) -> None:
    home = agents_home(tmp_path / "home")
    found = find_known_sources(home, env={}, system="linux")
    assert rel(found, home) == [
        ("Qwen Code", "~/.qwen/projects", 2),
        ("Qwen Code", "~/.qwen/tmp", 2),
        ("Factory Droid", "~/.factory/sessions", 1),
        ("Amp", "~/.local/share/amp/threads", 1),
        ("Amp (Code)", "~/.config/Code/User/globalStorage/sourcegraph.amp/threads3", 1),
        ("Cursor agent", "~/.cursor/projects", 2),
        ("Cursor agent", "~/.cursor/chats", 1),
    ]
    assert found[0].size == 100 and found[0].kind == "agent"


def test_every_discovered_folder_ingests_as_its_agent(tmp_path: Path) -> None:
    """What discovery lists is what the walk reads: no chat file is left out or read as another format."""
    home = agents_home(tmp_path / "home")
    formats = {}
    for source in find_known_sources(home, env={}, system="linux"):
        sources, skipped = discover([source.path])
        assert skipped == []
        assert len(sources) == source.files, source
        formats[source.tool] = {s.format for s in sources}
    assert formats == {
        "Qwen Code": {"qwen_code"},
        "Factory Droid": {"factory_droid"},
        "Amp": {"amp"},
        "Amp (Code)": {"amp"},
        "Cursor agent": {"cursor_cli"},
    }


def test_macos_and_windows_locations_and_overrides(tmp_path: Path) -> None:
    mac = tmp_path / "mac"
    touch(mac / "Library/Application Support/amp/threads/T-1.json")
    touch(mac / "Library/Application Support/Cursor/User/globalStorage/sourcegraph.amp/threads3/T-2.json")
    touch(mac / ".factory/sessions/s.jsonl")
    assert [(t, n) for t, _, n in rel(find_known_sources(mac, env={}, system="darwin"), mac)] == [
        ("Factory Droid", 1),
        ("Amp", 1),
        ("Amp (Cursor)", 1),
    ]
    win = tmp_path / "win"
    touch(win / "AppData/Local/amp/threads/T-3.json")
    touch(win / ".cursor/projects/c-Users-dana-app/agent-transcripts/a/a.jsonl")
    touch(win / ".qwen/projects/C--Users-dana-app/chats/s.jsonl")
    assert rel(find_known_sources(win, env={}, system="win32"), win) == [
        ("Qwen Code", "~/.qwen/projects", 1),
        ("Amp", "~/AppData/Local/amp/threads", 1),
        ("Cursor agent", "~/.cursor/projects", 1),
    ]
    runtime = tmp_path / "qwen-runtime"
    touch(runtime / "projects/p/chats/s.jsonl")
    found = find_known_sources(tmp_path / "empty", env={"QWEN_RUNTIME_DIR": str(runtime)}, system="linux")
    assert [(s.tool, s.path) for s in found] == [("Qwen Code", runtime / "projects")]


def test_sources_discover_command_lists_them(tmp_path: Path, monkeypatch, capsys) -> None:
    home = agents_home(tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    for var in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "QWEN_RUNTIME_DIR", "AMP_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
    assert main(["sources", "discover", "--json"]) == 0
    tools = {row["tool"] for row in json.loads(capsys.readouterr().out)["found"]}
    assert {"Qwen Code", "Factory Droid", "Amp", "Amp (Code)", "Cursor agent"} <= tools
