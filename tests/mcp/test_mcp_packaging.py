"""`refind mcp` without the SDK says which extra to install; the MCP front end never loads Textual."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import os
import subprocess
import sys

from mcp_harness import server_env


def run_python(code: str, home) -> subprocess.CompletedProcess:
    env = {**os.environ, **server_env(home)}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_missing_sdk_names_the_extra(tmp_path):
    code = (
        "import sys; sys.modules['mcp'] = None\nfrom refind_desktop.cli import main\nsys.exit(main(['mcp']))"
    )
    done = run_python(code, tmp_path / "home")
    assert done.returncode == 6, done.stderr
    assert 'pip install "refind-desktop[mcp]"' in done.stderr


def test_mcp_front_end_does_not_import_textual_or_models(tmp_path):
    code = (
        "import sys\nfrom refind_desktop.cli import build_parser\nbuild_parser()\n"
        "import refind_desktop.mcp.server, refind_desktop.mcp.http, refind_desktop.cli.mcp\n"
        "print(sorted(m for m in ('textual', 'llama_cpp', 'torch', 'sentence_transformers') if m in sys.modules))"
    )
    done = run_python(code, tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
