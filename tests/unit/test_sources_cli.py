"""`refind sources discover|list|ingest|remove` on a fake home with real coding-agent fixtures."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from refind_desktop import locations
from refind_desktop.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "gemini_cli" / ".gemini", home / ".gemini")
    shutil.copytree(FIXTURES / "continue_dev" / ".continue", home / ".continue")
    src = FIXTURES / "aider" / "greenhouse" / ".aider.chat.history.md"
    (home / "src" / "greenhouse").mkdir(parents=True)
    shutil.copy(src, home / "src" / "greenhouse" / ".aider.chat.history.md")
    (home / "Downloads").mkdir()
    (home / "Downloads" / "WhatsApp Chat with \x1b[31mEve.txt").write_text("1/2/25, 10:00 - Eve: hi\n")
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR"):
        monkeypatch.delenv(var, raising=False)
    return home


def out_json(capsys, *argv: str):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_discover_lists_without_recording_or_reading(home: Path, capsys) -> None:
    data = out_json(capsys, "sources", "discover")
    assert [f["tool"] for f in data["found"]] == ["Gemini CLI", "Continue", "Aider", "WhatsApp"]
    gemini = data["found"][0]
    assert gemini["path"] == str(home / ".gemini" / "tmp") and gemini["files"] == 3 and gemini["size"] > 0
    assert data["added"] == []
    assert not locations.config_file().exists()  # nothing recorded without --add
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 0  # and nothing read


def test_human_output_is_safe_for_the_terminal(home: Path, capsys) -> None:
    assert main(["sources", "discover"]) == 0
    out = capsys.readouterr().out
    assert "Found 4 places with chat logs (nothing has been read)" in out
    assert "~/.gemini/tmp" in out and "3 files" in out
    assert "\x1b" not in out and "WhatsApp Chat with ?[31mEve.txt" in out
    assert "refind sources discover --add" in out


def test_add_records_then_ingest_reads_them(home: Path, capsys) -> None:
    data = out_json(capsys, "sources", "discover", "--add", "--only", "gemini", "--only", "aider")
    assert data["added"] == [
        str(home / ".gemini" / "tmp"),
        str(home / "src/greenhouse/.aider.chat.history.md"),
    ]
    saved = tomllib.loads(locations.config_file().read_text(encoding="utf-8"))
    assert saved["sources"] == data["added"]
    assert (
        out_json(capsys, "sources", "discover", "--add", "--only", "gemini")["added"] == []
    )  # no duplicates
    assert out_json(capsys, "sources", "list") == [
        {"path": p, "exists": True, "forgotten": None} for p in data["added"]
    ]
    report = out_json(capsys, "sources", "ingest")
    assert report["added_turns"] == 8 and report["skipped"] == []  # 4 Gemini turns + 4 Aider turns
    stats = out_json(capsys, "stats")
    assert set(stats["formats"]) == {"gemini_cli", "aider"}
    assert main(["sources", "remove", data["added"][1]]) == 0
    capsys.readouterr()
    assert [s["path"] for s in out_json(capsys, "sources", "list")] == data["added"][:1]


def test_ingest_without_sources_says_what_to_do(home: Path, capsys) -> None:
    assert main(["sources", "ingest"]) == 5
    assert "refind sources discover --add" in capsys.readouterr().err
    assert main(["sources", "remove", "/nowhere"]) == 5


def test_list_marks_forgotten_and_missing_sources(home: Path, capsys) -> None:
    gemini, aider = out_json(capsys, "sources", "discover", "--add", "--only", "gemini", "--only", "aider")[
        "added"
    ]
    assert main(["sources", "ingest"]) == 0
    assert main(["forget", gemini]) == 0
    shutil.rmtree(home / "src")
    capsys.readouterr()
    rows = out_json(capsys, "sources", "list")
    assert rows == [
        {"path": gemini, "exists": True, "forgotten": gemini},
        {"path": aider, "exists": False, "forgotten": None},
    ]
    assert main(["sources", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{gemini}  (forgotten: not ingested until `refind unforget {gemini}`)",
        f"{aider}  (missing)",
    ]


def test_discover_counts_a_folder_by_its_files_and_pluralises(tmp_path: Path, monkeypatch, capsys) -> None:
    home = tmp_path / "home"
    chat = home / "Downloads" / "WhatsApp Chat - Jonas"
    chat.mkdir(parents=True)
    (chat / "WhatsApp Chat with Jonas.txt").write_text(
        "13/08/2025, 19:02 - Jonas: the ladder is in the shed\n"
    )
    (chat / "IMG-20250813-WA0001.jpg").write_bytes(b"\xff\xd8" + b"x" * 30_000)
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "CONTINUE_GLOBAL_DIR"):
        monkeypatch.delenv(var, raising=False)
    [found] = out_json(capsys, "sources", "discover")["found"]
    total = sum(f.stat().st_size for f in chat.iterdir())
    assert (found["tool"], found["files"], found["size"]) == ("WhatsApp", 2, total)
    assert main(["sources", "discover"]) == 0
    out = capsys.readouterr().out
    assert "Found 1 place with chat logs" in out and "2 files, 30.1 kB" in out
    assert main(["sources", "discover", "--add"]) == 0
    assert "Recorded 1 new source in " in capsys.readouterr().out
