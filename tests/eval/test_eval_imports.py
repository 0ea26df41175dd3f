"""The eval harness stays light: importing it loads no UI, model, plotting or bm25s library."""

from __future__ import annotations

import subprocess
import sys


def test_eval_imports_no_heavy_libraries():
    code = (
        "import sys; import refind_desktop.eval, refind_desktop.cli.evalcmd; "
        "bad = [m for m in ('textual', 'llama_cpp', 'openai', 'matplotlib', 'bm25s', 'torch') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
