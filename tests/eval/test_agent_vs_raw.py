"""The agent-against-raw benchmark replays exactly the agent's token work (real embedded model)."""

from __future__ import annotations

from pathlib import Path

import pytest

llama_cpp = pytest.importorskip("llama_cpp", reason='llama-cpp-python not installed (extra "local")')

from helpers.scripts import benchmark  # noqa: E402

from refind_desktop.llm.base import ChatMessage  # noqa: E402
from refind_desktop.llm.llama import LlamaBackend, new_llama  # noqa: E402

bench = benchmark("agent_vs_raw")

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["keywords"],
    "properties": {"keywords": {"type": "string", "maxLength": 30}},
}


def test_each_call_is_replayed_with_the_same_tokens_and_the_same_cached_prefix(embedded_gguf: Path):
    backend = LlamaBackend(embedded_gguf, n_ctx=1024)
    backend.load()
    raw = new_llama(llama_cpp, model_path=str(embedded_gguf), n_ctx=1024, verbose=False, **backend.tuning)
    replaying = bench.Replaying(backend, raw)
    first = [
        ChatMessage("system", "You pick search keywords for questions about a person's chat history."),
        ChatMessage("user", "When did I lend my bike to Tom?"),
    ]
    c1 = replaying.complete(first, schema=SCHEMA, max_tokens=24)
    second = [*first, ChatMessage("assistant", c1.text), ChatMessage("user", "Nothing found. Other words?")]
    chunks = list(replaying.stream(second, max_tokens=8))

    one, two = replaying.calls
    assert one["json"] and not two["json"]
    # the first call starts from empty caches on both sides; the second reuses the same prefix
    assert one["raw_evaluated"] == one["agent_evaluated"] == one["prompt_tokens"]
    assert two["raw_evaluated"] == two["agent_evaluated"] < two["prompt_tokens"]
    assert (
        two["generated"] == chunks[-1].usage.completion_tokens - 1
    )  # stopped at max_tokens: last not evaluated
    # both caches hold the same tokens after the replay: the raw side did the agent's work, token for token
    agent_llm = backend._llm
    assert raw.input_ids[: raw.n_tokens].tolist() == agent_llm.input_ids[: agent_llm.n_tokens].tolist()
    assert all(c["raw_seconds"] > 0 and c["agent_seconds"] > 0 for c in replaying.calls)
    total = bench.totals(replaying.calls)
    assert total["calls"] == 2
    assert total["ratio"] == pytest.approx(total["raw_seconds"] / total["agent_seconds"], abs=0.01)
