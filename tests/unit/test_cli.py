"""CLI contract tests: commands, JSON shapes, exit codes and stderr messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import refind_desktop
from refind_desktop.cli import main
from refind_desktop.ingest.agent_paths import AGENT_FORMATS

SAMPLES = Path(refind_desktop.__file__).parent / "samples"


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_ingest_stats_search_show_forget(capsys):
    rep = run_json(capsys, "ingest", str(SAMPLES))
    assert rep["added_turns"] > 10 and rep["removed_turns"] == 0 and rep["skipped"] == []
    assert set(rep) >= {"added_turns", "removed_turns", "unchanged_files", "skipped"}

    stats = run_json(capsys, "stats")
    assert set(stats) >= {"sources", "sessions", "turns", "formats", "skipped"}
    assert stats["sources"] == 4 + len(AGENT_FORMATS)  # one coding-agent sample per new reader
    assert set(stats["formats"]) == {"chatgpt", "claude_code", "whatsapp", "generic", *AGENT_FORMATS}
    assert stats["formats"]["chatgpt"] == {
        "files": 1,
        "sessions": 3,
        "turns": stats["formats"]["chatgpt"]["turns"],
    }
    assert stats["turns"] == sum(f["turns"] for f in stats["formats"].values())

    res = run_json(capsys, "search", "flight", "Lisbon", "airline")
    first = res["results"][0]
    assert set(first) >= {"rank", "session_id", "session_title", "session_date", "turn", "score", "block"}
    assert first["session_title"] == "Lisbon trip planning"
    assert any("TP1351" in t["text"] for t in first["block"])
    assert set(first["block"][0]) >= {"turn", "speaker", "timestamp", "text"}

    # date filter: the Lisbon chat is from March 2025, so a July range excludes it
    res = run_json(capsys, "search", "Lisbon", "--from", "2025-07-01", "--to", "2025-07-31")
    assert all(r["session_title"] != "Lisbon trip planning" for r in res["results"])

    res = run_json(capsys, "search", "tomato", "--top-k", "1", "--context", "0", "--no-rrf")
    assert len(res["results"]) == 1 and len(res["results"][0]["block"]) == 1

    sid = first["session_id"]
    shown = run_json(capsys, "show", sid, "--turn", "2")
    assert [t["turn"] for t in shown["turns"]] == [0, 1, 2, 3]

    again = run_json(capsys, "ingest", str(SAMPLES))
    assert again["added_turns"] == 0 and again["unchanged_files"] == 4 + len(AGENT_FORMATS)

    assert main(["forget", str(SAMPLES / "whatsapp")]) == 0
    capsys.readouterr()
    stats = run_json(capsys, "stats")
    assert "whatsapp" not in stats["formats"]


def test_errors_go_to_stderr_with_exit_codes(capsys):
    assert main(["show", "nope:1"]) == 5
    err = capsys.readouterr().err
    assert "no session 'nope:1'" in err and "refind sessions" in err
    assert main(["search", "x", "--from", "May 3"]) == 2
    assert "YYYY-MM-DD" in capsys.readouterr().err
    assert main(["forget", "/no/such/file"]) == 5


def test_ingest_reports_skips_in_json(tmp_path, capsys):
    (tmp_path / "weird.json").write_text('{"a": 1}')
    rep = run_json(capsys, "ingest", str(tmp_path))
    assert rep["skipped"][0]["path"].endswith("weird.json")
    stats = run_json(capsys, "stats")
    assert stats["skipped"][0]["reason"] == rep["skipped"][0]["reason"]


def test_schema_version_mismatch_says_reindex(refind_home, capsys):
    assert main(["ingest", str(SAMPLES / "notes")]) == 0
    meta = refind_home / "data" / "index" / "refind_schema.json"
    meta.write_text('{"schema_version": 0}')
    assert main(["stats"]) == 3
    assert "refind reindex" in capsys.readouterr().err
    assert main(["reindex"]) == 0
    capsys.readouterr()
    assert run_json(capsys, "stats")["turns"] == 2


def test_version_and_module_entry():
    out = subprocess.run(
        [sys.executable, "-m", "refind_desktop", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and refind_desktop.__version__ in out.stdout


@pytest.mark.parametrize("module", ["refind_desktop.services", "refind_desktop.cli"])
def test_core_never_imports_textual_or_model_libraries(module):
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = [m for m in ('textual', 'llama_cpp', 'openai', 'sentence_transformers', 'torch') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_no_module_outside_tui_imports_textual():
    root = Path(refind_desktop.__file__).parent
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if "tui" not in p.relative_to(root).parts
        and any(
            line.lstrip().startswith(("import textual", "from textual"))
            for line in p.read_text().splitlines()
        )
    ]
    assert offenders == []
