"""`refind mcp --http`: the SDK's streamable HTTP client and raw requests, with and without the bearer token,
on 127.0.0.1 and on 127.0.0.2 (loopback on Linux, but not token-free), and the Host/Origin checks."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import contextlib
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


@contextlib.contextmanager
def running(home, tmp_path, host: str = "127.0.0.1", *extra: str, **env: str):
    """A `refind mcp --http HOST:PORT` subprocess, yielded as its URL once it accepts connections."""
    port = free_port()
    log = open(tmp_path / f"server-{port}.err", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "refind_desktop", "mcp", "--http", f"{host}:{port}", *extra],
        env={**os.environ, **server_env(home, **env)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection((host, port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / f"server-{port}.err").read_text()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        yield f"http://{host}:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture
def http_server(archive, tmp_path):
    with running(archive, tmp_path, "127.0.0.1", REFIND_MCP_TOKEN=TOKEN) as url:
        yield url


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
    assert not is_loopback("127.0.0.2") and not is_loopback("127.1.2.3")  # loopback, but not token-free
    with pytest.raises(ConfigError, match="REFIND_MCP_TOKEN"):
        check_exposure("127.0.0.2", None)
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", "tok")
    with pytest.raises(ConfigError, match="REFIND_MCP_TOKEN"):
        check_exposure("0.0.0.0", None)
    # through the CLI: refused before anything is served
    done = refind(tmp_path / "home", "mcp", "--http", "0.0.0.0:8765")
    assert done.returncode == 2 and "--token" in done.stderr and "other programs or machines" in done.stderr
    done = refind(tmp_path / "home", "mcp", "--http", "127.0.0.2:8765")
    assert done.returncode == 2 and "--token" in done.stderr
    done = refind(tmp_path / "home", "mcp", "--token", "x")
    assert done.returncode == 2 and "--http only" in done.stderr


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}


async def post(url: str, **headers: str) -> int:
    async with httpx2.AsyncClient() as raw:
        return (await raw.post(url, json=INIT, headers={**ACCEPT, **headers})).status_code


async def test_127_0_0_2_needs_the_token_and_checks_host_and_origin(archive, tmp_path):
    """127.0.0.2 is loopback on Linux but reachable by any local program or container: token and Host
    checks as on any other address."""
    with running(archive, tmp_path, "127.0.0.2", REFIND_MCP_TOKEN=TOKEN) as url:
        bearer = f"Bearer {TOKEN}"
        assert await post(url) == 401
        assert await post(url, authorization=bearer, host="evil.example", origin="http://evil.example") == 421
        assert await post(url, authorization=bearer, origin="http://evil.example") == 403
        assert await post(url, authorization=f"bearer {TOKEN}") == 200  # the scheme in any case
        assert await post(url, authorization=f"BEARER  {TOKEN}") == 200
        assert await post(url, authorization=f"Basic {TOKEN}") == 401
        client = create_mcp_http_client(headers={"Authorization": bearer})
        async with client, streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                res = await s.call_tool("search", {"keywords": "umbrella", "date_to": "2024-01-31"})
                assert not res.is_error and len(res.structured_content["results"]) == 1


async def test_loopback_without_a_token_still_checks_host_and_origin(archive, tmp_path):
    with running(archive, tmp_path, "127.0.0.1") as url:
        assert await post(url, host="evil.example", origin="http://evil.example") == 421
        assert await post(url, origin="http://evil.example") == 403
        assert await post(url, origin=url.rsplit("/", 1)[0]) == 200
        assert await post(url) == 200


async def test_a_wildcard_bind_accepts_only_known_host_names(archive, tmp_path):
    with running(archive, tmp_path, "0.0.0.0", "--allow-host", "refind.test", REFIND_MCP_TOKEN=TOKEN) as url:
        local = url.replace("0.0.0.0", "127.0.0.1")
        bearer = f"Bearer {TOKEN}"
        assert await post(local, authorization=bearer) == 200
        assert await post(local, authorization=bearer, host="refind.test") == 200
        assert await post(local, authorization=bearer, host="evil.example") == 421
