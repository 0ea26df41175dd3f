"""The OpenAI back end against a real OpenAI-compatible peer: llama.cpp's server on 127.0.0.1 (started
through tests/helpers/llama_server.py, which loads the model as the product does)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from refind_desktop.llm.base import ChatMessage, Completion
from refind_desktop.llm.openai_backend import OpenAIBackend

pytest.importorskip("openai", reason='openai client not installed (extra "openai")')
if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llama_cpp.server") is None:
    pytest.skip('llama_cpp.server not importable (extra "server")', allow_module_level=True)

SCHEMA = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "string", "maxLength": 30}},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(embedded_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).parents[1] / "helpers" / "llama_server.py"),
                "--model",
                str(embedded_gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
                "--n_threads",
                str(os.cpu_count() or 1),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                with urllib.request.urlopen(base + "/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer /v1/models within 90 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def backend(server: str) -> OpenAIBackend:
    return OpenAIBackend(model="local", base_url=server)


def test_plain_completion(backend: OpenAIBackend):
    out = backend.complete([ChatMessage("user", "Reply with the single word: hello")], max_tokens=8)
    assert out.text.strip() and out.data is None
    assert out.usage.prompt_tokens > 0 and 0 < out.usage.completion_tokens <= 8 and out.usage.calls == 1


def test_streamed_completion(backend: OpenAIBackend):
    items = list(backend.stream([ChatMessage("user", "Count: one, two, three")], max_tokens=10))
    *pieces, final = items
    assert pieces and all(isinstance(p, str) for p in pieces)
    assert isinstance(final, Completion) and final.text == "".join(pieces)
    assert final.usage.completion_tokens > 0


def test_schema_call_falls_back_to_json_object(backend: OpenAIBackend):
    out = backend.complete(
        [
            ChatMessage("system", "You answer questions."),
            ChatMessage("user", "What is the capital of France?"),
        ],
        schema=SCHEMA,
        max_tokens=40,
    )
    assert isinstance(out.data, dict) and isinstance(out.data["answer"], str)
    # llama.cpp's server only knows response_format json_object, so the back end fell back once
    # and remembers it.
    assert backend._json_schema_ok is False


def test_independent_calls_sent_together_come_back_in_order(server: str):
    """`complete_many` against the real server: three schema calls in flight at once (the server takes
    them in turn), each reply the one its own question asks for, in the calls' order."""
    backend = OpenAIBackend(model="local", base_url=server, parallel=3)
    asks = {"France": "paris", "Japan": "tokyo", "Italy": "rome"}
    calls = [
        (
            [
                ChatMessage("system", "You answer questions."),
                ChatMessage("user", f"What is the capital of {c}?"),
            ],
            SCHEMA,
            40,
        )
        for c in asks
    ]
    out = backend.complete_many(calls)
    assert [type(c) for c in out] == [Completion] * 3
    for reply, city in zip(out, asks.values(), strict=True):
        assert city in reply.data["answer"].lower()
