"""`refind mcp --http` on 127.0.0.1: the SDK's streamable HTTP client with and without the bearer token."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import os
import socket
import subprocess
import sys
import time

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_harness import (
    archive_fixture,  # noqa: F401 - the `archive` fixture
    refind,
    server_env,
)

from refind_desktop.errors import ConfigError
from refind_desktop.mcp.http import check_exposure, is_loopback, parse_address

TOKEN = "s3cret-token-for-tests"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(archive, tmp_path):
    port = free_port()
    log = open(tmp_path / "server.err", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "refind_desktop", "mcp", "--http", f"127.0.0.1:{port}"],
        env={**os.environ, **server_env(archive, REFIND_MCP_TOKEN=TOKEN)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.err").read_text()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


async def test_http_requires_the_token(http_server):
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient() as raw:
        for auth in ({}, {"authorization": "Bearer wrong"}, {"authorization": TOKEN}):
            r = await raw.post(http_server, json=init, headers={**headers, **auth})
            assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")

    with pytest.raises(Exception):  # noqa: B017 - the SDK client cannot even initialise without it
        with anyio.fail_after(30):
            async with streamable_http_client(http_server) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()

    client = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
    async with client, streamable_http_client(http_server, http_client=client) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            assert names == {"search", "show", "ask", "stats"}
            res = await s.call_tool("search", {"keywords": "umbrella", "date_to": "2024-01-31"})
            assert not res.is_error and len(res.structured_content["results"]) == 1


def test_addresses_and_exposure_rule(tmp_path):
    assert parse_address("8765") == ("127.0.0.1", 8765)
    assert parse_address(":8765") == ("127.0.0.1", 8765)
    assert parse_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_address("[::1]:9000") == ("::1", 9000)
    for bad in ("host:", "127.0.0.1:0", "127.0.0.1:70000", "x"):
        with pytest.raises(ConfigError, match="PORT"):
            parse_address(bad)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", "tok")
    with pytest.raises(ConfigError, match="REFIND_MCP_TOKEN"):
        check_exposure("0.0.0.0", None)
    # through the CLI: refused before anything is served
    done = refind(tmp_path / "home", "mcp", "--http", "0.0.0.0:8765")
    assert done.returncode == 2 and "--token" in done.stderr and "other machines" in done.stderr
    done = refind(tmp_path / "home", "mcp", "--token", "x")
    assert done.returncode == 2 and "--http only" in done.stderr
