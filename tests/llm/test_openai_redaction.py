"""Prompts to a remote OpenAI-compatible server carry chat text: its secrets are redacted first; a server on
this machine (loopback) gets them as they are. Real HTTP: the official client sends to a recording server on
127.0.0.1, reached as the proxy of a non-loopback URL (nothing leaves the machine)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from refind_desktop.config import Settings
from refind_desktop.llm.base import ChatMessage
from refind_desktop.llm.factory import make_backend
from refind_desktop.llm.openai_backend import OpenAIBackend, is_loopback_url

KEY = "ghp_" + "Zq8" * 12
REPLY = {
    "id": "c1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


@pytest.fixture
def recorder():
    """A server that records each request (path as sent, body) and answers a chat completion."""
    seen: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the stdlib's name
            body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
            seen.append((self.path, body))
            data = json.dumps(REPLY).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


def ask(backend: OpenAIBackend) -> None:
    message = f"<<<DATA\nUser: GITHUB_TOKEN={KEY} keeps failing\nDATA>>>\nWhat fails?"
    assert backend.complete([ChatMessage("user", message)]).text == "ok"


def test_a_remote_server_gets_redacted_prompts(recorder, monkeypatch):
    url, seen = recorder
    for var in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", url)
    monkeypatch.setenv("http_proxy", url)
    settings = Settings(backend="openai", openai_base_url="http://models.example.test/v1", openai_api_key="k")
    remote = make_backend(settings)
    assert remote.redacts
    ask(remote)
    path, body = seen[-1]
    assert path.startswith("http://models.example.test/") and KEY not in body
    assert "GITHUB_TOKEN=[redacted: GitHub Token]" in json.loads(body)["messages"][0]["content"]

    ask(make_backend(settings.replace(redact=False)))  # the setting turns it off
    assert KEY in seen[-1][1]


def test_a_server_on_this_machine_gets_them_as_they_are(recorder):
    url, seen = recorder
    local = make_backend(Settings(backend="openai", openai_base_url=url + "/v1"))
    assert not local.redacts
    ask(local)
    assert KEY in seen[-1][1]


def test_which_urls_are_this_machine():
    for url in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8000/v1"):
        assert is_loopback_url(url), url
    for url in ("", "https://api.openai.com/v1", "http://192.168.1.5:8080/v1", "http://gpu.local:8000"):
        assert not is_loopback_url(url), url
