"""Copilot CLI, Pi, OpenHands, Kimi CLI and Antigravity through discovery, the real pipeline and search."""

from __future__ import annotations

import builtins
import io
import json
import shutil
from pathlib import Path

import pytest

from refind_desktop.cli import main
from refind_desktop.ingest.known_sources import find_known_sources
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORMATS = ("copilot_cli", "pi", "openhands", "kimi_cli", "antigravity")

# format -> (sessions, turns, skipped files) on tests/fixtures/<format>/
EXPECTED = {
    "copilot_cli": (3, 4, 1),
    "pi": (2, 4, 1),
    "openhands": (3, 4, 0),
    "kimi_cli": (4, 8, 1),
    "antigravity": (1, 2, 1),
}


@pytest.fixture
def svc():
    s = build_services()
    yield s
    s.close()


def fake_home(root: Path) -> Path:
    """One home folder holding every group-A agent's folders (the fixtures are home-shaped)."""
    for fmt in FORMATS:
        shutil.copytree(FIXTURES / fmt, root, dirs_exist_ok=True)
    return root


@pytest.mark.parametrize("fmt", FORMATS)
def test_fixture_tree_ingests_with_counts_reasons_and_no_second_change(fmt: str, svc, tmp_path: Path) -> None:
    root = shutil.copytree(FIXTURES / fmt, tmp_path / fmt)
    report = svc.ingestor.ingest([root])
    totals = svc.catalog.totals()["formats"].get(fmt, {})
    got = (totals.get("sessions", 0), totals.get("turns", 0), len(report.skipped))
    assert got == EXPECTED[fmt], (got, [(s.path, s.reason) for s in report.skipped])
    for s in report.skipped:
        assert "skipped" in s.reason and "garb" not in s.reason  # says why, never quotes the file
    again = svc.ingestor.ingest([root])
    assert again.added_turns == 0 and again.removed_turns == 0 and again.ingested_files == 0


def test_turns_are_searchable_and_system_prompts_are_not(svc, tmp_path: Path) -> None:
    svc.ingestor.ingest([fake_home(tmp_path / "home")])
    expect = {
        "irrigation timer Sundays": "copilot-cli:6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
        "rotate greenhouse logs weekly": "pi:0b7e1f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        "compost bin Celsius": "openhands:4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a99",
        "sensors report humidity": "kimi-cli:8e1d2c3b-4a59-4687-9a0b-1c2d3e4f5a6b",
        "tomato bed dry Mondays": "kimi-cli:session_2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f",  # Kimi Code
        "dark mode toggle settings": "antigravity:b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e",
        "trim-hedges": "openhands:7f3e9a1c2b4d",  # only in a tool output of the pre-1.0 layout
        "reed switch debounce": "openhands:9f8e7d6c5b4a39281706f5e4d3c2b1a0",  # the app server's layout
    }
    for query, sid in expect.items():
        blocks = svc.engine.search(query)
        assert blocks and blocks[0].session_id == sid, (query, [b.session_id for b in blocks[:3]])
    for word in (
        "quokkaframe",
        "marmotline",
        "pangolinguard",
        "wombatvault",
        "capybaraunits",
        "ocelotrule",
        "ibexledger",
    ):
        assert not svc.engine.search(word), word  # system prompts, skill text, history recaps
    assert {r.format for r in svc.catalog.iter_sessions()} >= set(FORMATS)


def test_discovery_on_a_home_with_every_agent_finds_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = fake_home(tmp_path / "home")
    opened: list[str] = []
    real = builtins.open

    def spy(file, *a, **k):
        opened.append(str(file))
        return real(file, *a, **k)

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    found = find_known_sources(home, env={}, system="linux")
    monkeypatch.setattr(builtins, "open", real)
    monkeypatch.setattr(io, "open", real)
    assert [p for p in opened if "user-dirs.dirs" not in p] == []  # names and sizes only
    rel = [(s.tool, s.path.relative_to(home).as_posix(), s.files) for s in found]
    assert rel == [
        ("Copilot CLI", ".copilot/session-state", 3),
        ("Copilot CLI", ".copilot/history-session-state", 1),
        ("Pi", ".pi/agent/sessions", 3),
        ("OpenHands", ".openhands/conversations", 10),
        ("OpenHands", ".openhands/sessions", 7),
        ("OpenHands", ".openhands/v1_conversations", 3),
        ("Kimi CLI", ".kimi/sessions", 3),
        ("Kimi CLI", ".kimi-code/sessions", 2),
        ("Antigravity CLI", ".gemini/antigravity-cli/brain", 2),
    ]
    assert all(s.kind == "agent" and s.size > 0 for s in found)
    # the same folders on Windows and macOS (under the user's home), and the agents' own overrides
    assert [s.tool for s in find_known_sources(home, env={}, system="win32")] == [s.tool for s in found]
    assert [s.tool for s in find_known_sources(home, env={}, system="darwin")] == [s.tool for s in found]
    moved = tmp_path / "elsewhere"
    shutil.copytree(home / ".copilot", moved / "copilot")
    shutil.copytree(home / ".kimi", moved / "kimi")
    env = {"COPILOT_HOME": str(moved / "copilot"), "KIMI_SHARE_DIR": str(moved / "kimi")}
    paths = {s.path for s in find_known_sources(home, env=env, system="linux")}
    assert moved / "copilot" / "session-state" in paths and moved / "kimi" / "sessions" in paths
    assert home / ".copilot" / "session-state" not in paths


def test_sources_discover_cli_lists_them_and_what_it_finds_ingests(
    svc, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = fake_home(tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    for var in ("COPILOT_HOME", "PI_CODING_AGENT_DIR", "KIMI_SHARE_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    assert main(["sources", "discover", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["found"]
    assert {f["tool"] for f in found} == {"Copilot CLI", "Pi", "OpenHands", "Kimi CLI", "Antigravity CLI"}
    svc.ingestor.ingest([Path(f["path"]) for f in found])
    formats = svc.catalog.totals()["formats"]
    assert {fmt: formats[fmt]["sessions"] for fmt in FORMATS} == {f: n for f, (n, _, _) in EXPECTED.items()}
