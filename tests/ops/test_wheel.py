"""Packaging: the wheel builds, installs into a fresh venv, and its `refind` ingests and searches the samples."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE_DEPS = ("tantivy", "platformdirs", "watchdog", "ijson", "rich", "textual")


def run(*args: str | Path, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    # cwd outside the checkout, so `python -c` imports the installed package
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=timeout, env=env, cwd="/"
    )


@pytest.mark.slow  # builds a wheel and installs it into a new venv
def test_wheel_installs_in_a_fresh_venv_and_works(tmp_path):
    src = tmp_path / "src"  # build from a copy so the shared checkout gets no build/ or egg-info churn
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "refind_desktop", src / "refind_desktop", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    built = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        tmp_path / "dist",
        src,
    )
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("refind_desktop-*.whl"))

    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    assert "refind_desktop/samples/chatgpt-export/conversations.json" in names
    assert "refind_desktop/llm/catalog.toml" in names

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    bin_dir = env_dir / "bin"
    inst = run(bin_dir / "python", "-m", "pip", "install", "-q", wheel)
    if inst.returncode != 0 and any(
        s in inst.stderr for s in ("No matching distribution", "connection", "Could not find a version")
    ):
        pytest.skip(f"core dependencies not installable here: {inst.stderr[-300:]}")
    assert inst.returncode == 0, inst.stderr
    home = tmp_path / "home"
    env = {
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
        "REFIND_HOME": str(home),
        "REFIND_TIMEZONE": "UTC",
        "HOME": str(tmp_path),
    }
    refind = bin_dir / "refind"
    version = run(refind, "--version", env=env)
    assert version.returncode == 0 and version.stdout.startswith("refind-desktop "), version.stderr
    samples = run(
        bin_dir / "python",
        "-c",
        "import refind_desktop, pathlib; print(pathlib.Path(refind_desktop.__file__).parent / 'samples')",
        env=env,
    ).stdout.strip()
    assert str(env_dir) in samples, "the installed package, not the checkout, is imported"
    ingest = run(refind, "ingest", samples, "--json", env=env)
    assert ingest.returncode == 0, ingest.stderr
    assert '"added_turns": 0' not in ingest.stdout
    search = run(refind, "search", "Lisbon", "neighbourhood", "--json", env=env)
    assert search.returncode == 0 and "Alfama" in search.stdout, search.stderr
