"""Import hygiene at run time: the core loads no UI and no heavy back end, and lint-imports' contracts hold.

The contracts in pyproject.toml check the import graph statically; these tests check what a real
interpreter actually loads (harlequin's `test_import_hygiene.py` does the same).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = [
    "refind_desktop.services",
    "refind_desktop.agent",
    "refind_desktop.search.engine",
    "refind_desktop.ingest.pipeline",
    "refind_desktop.llm.factory",
    "refind_desktop.rag",
    "refind_desktop.cli",
]
HEAVY = ["textual", "llama_cpp", "openai", "sentence_transformers", "torch"]


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", CORE)
def test_core_module_loads_no_ui_and_no_backend(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert not loaded & set(HEAVY), f"importing {module} loaded {sorted(loaded & set(HEAVY))}"


def test_the_probe_sees_a_heavy_import() -> None:
    """The check above can fail: the TUI does load textual."""
    assert "textual" in _loaded_after("import refind_desktop.tui.app")


def test_lint_imports_contracts_hold() -> None:
    """The layers and forbidden-import contracts of pyproject.toml (the README test command runs them too)."""
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        pytest.skip("import-linter is not installed (it is in the dev extra)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, env=env, check=False
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def test_no_test_module_imports_a_conftest() -> None:
    """Helpers come from tests/helpers; `from conftest import` picks whichever conftest loaded first."""
    pattern = re.compile(r"^\s*(from \.?conftest import|import conftest)", re.M)
    offenders = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if pattern.search(p.read_text())
    ]
    assert offenders == []


def test_agent_and_tui_tests_collect_in_one_run() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/agent",
            "tests/tui",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "error" not in run.stdout.splitlines()[-1]
