"""Discovery of Crush, Goose, Zed and Warp on fake Linux, macOS and Windows homes (names and sizes only)."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from refind_desktop.ingest.known_sources import find_known_sources

DB = "SQLite format 3\x00"


def touch(path: Path, data: str = DB) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return path


def rows(found) -> list[tuple[str, str, int]]:
    return [(k.tool, k.path.as_posix(), k.files) for k in found]


def test_linux_home_finds_every_sqlite_agent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(home / ".crush/crush.db")
    touch(home / "src/pond/.crush/crush.db")
    touch(home / "src/pond/.crush/crush.db-wal", "x" * 40)
    touch(home / "src/pond/.crush/logs/crush.log", "{}")
    touch(home / "a/b/c/d/e/.crush/crush.db")  # deeper than the search goes
    touch(home / ".local/share/crush/crush.db")
    touch(home / ".local/share/goose/sessions/sessions.db")
    touch(home / ".local/share/goose/sessions/20250110_093000.jsonl", "{}")  # imported into sessions.db
    touch(home / ".local/share/zed/threads/threads.db")
    touch(home / ".local/share/zed/db/0-stable/db.sqlite")
    touch(home / ".local/state/warp-terminal/warp.sqlite")
    found = find_known_sources(home, env={}, system="linux")
    h = home.as_posix()
    assert rows(found) == [
        ("Crush", f"{h}/.crush/crush.db", 1),
        ("Crush", f"{h}/src/pond/.crush/crush.db", 1),
        ("Crush", f"{h}/.local/share/crush/crush.db", 1),
        ("Goose", f"{h}/.local/share/goose/sessions/sessions.db", 1),
        ("Zed", f"{h}/.local/share/zed/threads/threads.db", 1),
        ("Warp", f"{h}/.local/state/warp-terminal/warp.sqlite", 1),
    ]
    pond = next(k for k in found if "pond" in str(k.path))
    assert pond.size == len(DB) + 40  # the database with its write-ahead log
    assert {k.kind for k in found} == {"agent"}


def test_crush_data_folder_with_several_databases_is_one_source(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(home / ".local/share/crush/crush.db")
    touch(home / ".local/share/crush/projects/3f1c/crush.db")
    touch(home / ".local/share/crush/crush.json", "{}")
    [crush] = find_known_sources(home, env={}, system="linux")
    assert (crush.tool, crush.path.name, crush.files) == ("Crush", "crush", 2)


def test_goose_without_its_database_lists_the_session_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(home / ".local/share/goose/sessions/20250110_093000.jsonl", "{}\n")
    touch(home / ".local/share/goose/sessions/20250111_080000.jsonl", "{}\n")
    [goose] = find_known_sources(home, env={}, system="linux")
    assert (goose.tool, goose.path.name, goose.files, goose.reads) == (
        "Goose",
        "sessions",
        2,
        "sessions (*.jsonl)",
    )


def test_macos_and_windows_folders(tmp_path: Path) -> None:
    mac = tmp_path / "mac"
    touch(mac / "Library/Application Support/Zed/threads/threads.db")
    warp = "Library/Group Containers/2BBY89MBSN.dev.warp/Library/Application Support"
    touch(mac / warp / "dev.warp.Warp-Stable/warp.sqlite")
    touch(mac / warp / "dev.warp.Warp-Preview/warp.sqlite")
    touch(mac / ".local/share/goose/sessions/sessions.db")
    found = find_known_sources(mac, env={}, system="darwin")
    assert [(k.tool, k.path.parent.name) for k in found] == [
        ("Goose", "sessions"),
        ("Zed", "threads"),
        ("Warp", "dev.warp.Warp-Stable"),
        ("Warp", "dev.warp.Warp-Preview"),
    ]
    win = tmp_path / "win"
    local, roaming = win / "AppData/Local", win / "AppData/Roaming"
    touch(roaming / "Block/goose/data/sessions/sessions.db")
    touch(local / "Zed/threads/threads.db")
    touch(local / "warp/Warp/data/warp.sqlite")
    env = {"LOCALAPPDATA": str(local), "APPDATA": str(roaming)}
    found = find_known_sources(win, env=env, system="win32")
    assert [(k.tool, k.path.relative_to(win).as_posix()) for k in found] == [
        ("Goose", "AppData/Roaming/Block/goose/data/sessions/sessions.db"),
        ("Zed", "AppData/Local/Zed/threads/threads.db"),
        ("Warp", "AppData/Local/warp/Warp/data/warp.sqlite"),
    ]


def test_environment_overrides(tmp_path: Path) -> None:
    home = tmp_path / "home"
    touch(tmp_path / "data/zed/threads/threads.db")
    touch(tmp_path / "state/warp-terminal-preview/warp.sqlite")
    touch(tmp_path / "goose-root/data/sessions/sessions.db")
    env = {
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "GOOSE_PATH_ROOT": str(tmp_path / "goose-root"),
    }
    found = find_known_sources(home, env=env, system="linux")
    assert [(k.tool, k.path.relative_to(tmp_path).as_posix()) for k in found] == [
        ("Goose", "goose-root/data/sessions/sessions.db"),
        ("Zed", "data/zed/threads/threads.db"),
        ("Warp", "state/warp-terminal-preview/warp.sqlite"),
    ]


def test_discovery_opens_no_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    for rel in (
        ".crush/crush.db",
        ".local/share/goose/sessions/sessions.db",
        ".local/share/zed/threads/threads.db",
    ):
        touch(home / rel)
    real_open = builtins.open

    def guarded(file, *a, **k):
        assert not str(file).endswith((".db", ".sqlite", ".jsonl")), f"discovery opened {file}"
        return real_open(file, *a, **k)

    monkeypatch.setattr(builtins, "open", guarded)
    assert len(find_known_sources(home, env={}, system="linux")) == 3
