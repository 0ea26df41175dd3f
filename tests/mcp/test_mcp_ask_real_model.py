"""`ask` over MCP stdio with the real embedded GGUF through llama-cpp-python (one short question)."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")

import pytest
from mcp_harness import (
    archive_fixture,  # noqa: F401 - the `archive` fixture
    serve,
)

from refind_desktop.llm import catalog


@pytest.mark.slow
async def test_ask_with_the_embedded_model(archive, embedded_gguf, model_cache):
    env = {
        "REFIND_MODEL": str(embedded_gguf),
        catalog.CACHE_ENV: str(model_cache),
        "REFIND_MAX_SEARCHES": "1",
        "REFIND_TOP_K": "2",
        "REFIND_CONTEXT_WINDOW": "0",
        "REFIND_N_CTX": "2048",
        "REFIND_N_THREADS": "2",
    }
    async with serve(archive, **env) as s:
        progress = []

        async def on_progress(done, total, message):
            progress.append(message)

        res = await s.call_tool(
            "ask", {"question": "Which bike did I buy?", "now": "2024-03-15"}, progress_callback=on_progress
        )
        assert not res.is_error, res.content
        data = res.structured_content
        assert data["usage"]["llm_calls"] >= 2 and data["usage"]["prompt_tokens"] > 0
        searches = [e for e in data["trajectory"] if e["type"] == "search"]
        assert 1 <= len(searches) <= 2  # the first search and (when it found anything) its second look
        assert progress[0].startswith("loading the model") and progress[1].startswith("search 1: ")
        assert data["answer"].startswith("<<<RECORD answer\n") and data["answer"].endswith(
            "\nRECORD answer>>>"
        )
        assert data["answer"].count(">>>") == 1 and len(data["answer"]) > len(
            "<<<RECORD answer\n\nRECORD answer>>>"
        )
