"""The openai back end sends a question's independent calls side by side (`complete_many`), at most
`openai_parallel` in flight, the replies in the calls' order. Real HTTP through the official client to a
recording server on 127.0.0.1 that holds each request until others arrive; the same calls against a real
OpenAI-compatible server are in test_openai_backend.py."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("openai")

from refind_desktop.config import Settings
from refind_desktop.errors import InvalidOutputError
from refind_desktop.llm.base import ChatMessage, Completion
from refind_desktop.llm.factory import make_backend
from refind_desktop.llm.openai_backend import OpenAIBackend

SCHEMA = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}


class Server:
    """Answers each chat completion with {"n": <the number the user message ends with>} ("broken" when it
    ends with "!"), holding it until `wait_for` requests are in flight (or a second passed)."""

    def __init__(self, wait_for: int) -> None:
        self.wait_for = wait_for
        self.in_flight = 0
        self.most = 0
        self.seen = 0
        self.lock = threading.Condition()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                with server.lock:
                    server.seen += 1
                    server.in_flight += 1
                    server.most = max(server.most, server.in_flight)
                    server.lock.notify_all()
                    server.lock.wait_for(lambda: server.in_flight >= server.wait_for, timeout=1.0)
                text = body["messages"][-1]["content"]
                content = "broken" if text.endswith("!") else json.dumps({"n": int(text.split()[-1])})
                reply = {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                with server.lock:
                    server.in_flight -= 1

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def server():
    made: list[Server] = []

    def make(wait_for: int) -> Server:
        made.append(Server(wait_for))
        return made[-1]

    yield make
    for s in made:
        s.close()


def calls(*texts: str) -> list[tuple[list[ChatMessage], dict, int]]:
    return [([ChatMessage("user", t)], SCHEMA, 16) for t in texts]


def test_calls_go_side_by_side_up_to_the_setting_and_come_back_in_order(server):
    srv = server(wait_for=4)
    backend = make_backend(Settings(backend="openai", openai_base_url=srv.url, openai_parallel=4))
    out = backend.complete_many(calls(*(f"question {i}" for i in range(6))))
    assert [c.data["n"] for c in out] == list(range(6))
    assert all(isinstance(c, Completion) and c.usage.calls == 1 for c in out)
    assert srv.most == 4  # four held together, never more


def test_one_at_a_time_when_the_setting_says_so(server):
    srv = server(wait_for=2)
    backend = OpenAIBackend(model="m", base_url=srv.url, parallel=1)
    out = backend.complete_many(calls("a 1", "b 2", "c 3"))
    assert [c.data["n"] for c in out] == [1, 2, 3] and srv.most == 1


def test_an_invalid_reply_stays_in_its_place_and_the_others_are_kept(server):
    srv = server(wait_for=3)
    backend = OpenAIBackend(model="m", base_url=srv.url, parallel=3)
    out = backend.complete_many(calls("x 7", "y 8!", "z 9"))
    assert out[0].data == {"n": 7} and out[2].data == {"n": 9}
    assert isinstance(out[1], InvalidOutputError)


def test_a_cancel_stops_the_calls_not_yet_sent(server):
    srv = server(wait_for=2)
    backend = OpenAIBackend(model="m", base_url=srv.url, parallel=2)
    asked = 0
    lock = threading.Lock()

    class Cancelled(Exception):
        pass

    def step() -> None:
        nonlocal asked
        with lock:
            asked += 1
            if asked > 2:
                raise Cancelled

    with pytest.raises(Cancelled):
        backend.complete_many(calls(*(f"q {i}" for i in range(6))), step)
    assert srv.seen == 2
