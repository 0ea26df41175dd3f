"""MCP test helpers: a fixture archive ingested by the real CLI, and a real `refind mcp` subprocess per test.

Every test talks to the server through the official SDK client over stdio (or streamable HTTP).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from refind_desktop.mcp.asking import SCRIPT_ENV

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
POISON_MARK = "rm -rf"
SECTION = re.compile(r"<<<RECORD ([^\n]*)\n.*?\nRECORD \1>>>", re.DOTALL)


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment of a server or CLI subprocess on `home` (this checkout's code first on the path)."""
    return {
        "REFIND_HOME": str(home),
        "REFIND_TIMEZONE": "UTC",
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        **extra,
    }


def refind(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    """Run the real `refind` CLI (`python -m refind_desktop`) on `home`."""
    env = {**os.environ, **server_env(home, **extra)}
    return subprocess.run(
        [sys.executable, "-m", "refind_desktop", *args], env=env, capture_output=True, text=True, timeout=120
    )


def make_archive(home: Path) -> Path:
    """Ingest the fixture chats into `home` through the CLI."""
    done = refind(home, "ingest", str(DATA / "chats.json"))
    assert done.returncode == 0, done.stderr
    return home


@pytest.fixture(scope="module", name="archive")
def archive_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A REFIND_HOME with the fixture chats ingested (shared by a module's read-only tests).

    Test modules import it from here: tests/mcp has no conftest.py, so it never displaces another
    folder's `conftest` module (the agent and TUI tests import helpers from theirs).
    """
    return make_archive(tmp_path_factory.mktemp("mcp_archive"))


@asynccontextmanager
async def serve(
    home: Path, *args: str, errlog: Path | None = None, **extra: str
) -> AsyncIterator[ClientSession]:
    """A `refind mcp` subprocess on `home`, connected and initialised."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "refind_desktop", "mcp", *args], env=server_env(home, **extra)
    )
    log = open(errlog or os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
    finally:
        log.close()


def inside_sections_only(text: str, needle: str) -> bool:
    """`needle` occurs in `text`, and only inside complete RECORD sections."""
    return needle in text and needle not in SECTION.sub("", text)


def write_script(path: Path, **script: object) -> Path:
    """A scripted-model script for `ask` (see refind_desktop/mcp/asking.py), selected by SCRIPT_ENV."""
    path.write_text(json.dumps(script), encoding="utf-8")
    return path


def scripted(script: Path) -> dict[str, str]:
    """Extra server environment selecting the scripted model."""
    return {SCRIPT_ENV: str(script)}
