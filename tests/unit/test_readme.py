"""The README's two commands stay true: CI runs the README's test command verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _block_after(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split(heading, 1)[1]
    return re.search(r"```bash\n(.+?)\n```", section, re.S).group(1).strip()


def test_ci_runs_the_readme_test_command():
    test_cmd = _block_after("## Run the tests")
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd in ci


def test_readme_run_command_uses_the_demo_on_embedded_defaults():
    run_cmd = _block_after("## Run it")
    assert '".[local]"' in run_cmd and run_cmd.endswith("refind demo")
