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


def test_eval_sits_below_services_rag_and_cli():
    # the harness gets its services factory and extra modes injected by the CLI (issue 10 layering)
    code = (
        "import sys, refind_desktop.eval, refind_desktop.eval.archive, refind_desktop.eval.qa, "
        "refind_desktop.eval.retrieval, refind_desktop.eval.modes; "
        "print(sorted(m for m in sys.modules if m.startswith(('refind_desktop.services', "
        "'refind_desktop.rag', 'refind_desktop.cli', 'refind_desktop.agent'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rag_eval_modes_do_not_import_eval():
    code = "import sys, refind_desktop.rag.eval_modes; print([m for m in sys.modules if m.startswith('refind_desktop.eval')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
