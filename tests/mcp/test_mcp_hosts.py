"""MCP results name each session's machine and `search` filters by it, through the official SDK client."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import json
from pathlib import Path

from helpers.mirrors import Archive, archive_fixture  # noqa: F401 - the `archive` fixture
from mcp_harness import serve

pytestmark = pytest.mark.usefixtures("archive")


async def call(session, name: str, **arguments) -> dict:
    res = await session.call_tool(name, arguments)
    assert not res.is_error, res.content[0].text
    return json.loads(res.content[0].text)


async def test_search_show_and_stats_carry_the_host(refind_home: Path) -> None:
    async with serve(refind_home) as s:
        results = (await call(s, "search", keywords="kiln"))["results"]
        hosts = {r["session_id"].split(":")[-1][:4]: r["host"] for r in results}
        assert hosts == {"aaaa": "dana@buildbox:2222", "bbbb": "ci@cloud-vm", "cccc": None}
        box = next(r["session_id"] for r in results if r["host"] == "dana@buildbox:2222")
        assert (await call(s, "show", session_id=box))["host"] == "dana@buildbox:2222"
        text = (await s.read_resource(f"refind://session/{box}")).contents[0].text
        assert "\n- host: dana@buildbox:2222\n" in text
        only = (await call(s, "search", keywords="kiln", host="cloud-vm"))["results"]
        assert [r["host"] for r in only] == ["ci@cloud-vm"]
        mine = (await call(s, "search", keywords="kiln", host="local"))["results"]
        assert [r["host"] for r in mine] == [None]
        stats = await call(s, "stats")
        assert {h["host"]: h["turns"] for h in stats["hosts"]} == {"ci@cloud-vm": 1, "dana@buildbox:2222": 1}
        res = await s.call_tool("search", {"keywords": "kiln", "host": "elsewhere"})
        assert res.is_error and "no host 'elsewhere'" in res.content[0].text
        assert "dana@buildbox:2222" in res.content[0].text  # the error lists the hosts there are
