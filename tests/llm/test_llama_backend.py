"""The llama back end on the real embedded model: JSON under a schema, KV-cache prefix reuse,
streaming, and no network use. Short prompts and small max_tokens keep it to seconds on 2 cores."""

from __future__ import annotations

import math
import socket
from pathlib import Path

import pytest

from refind_desktop.errors import BackendError
from refind_desktop.llm.base import ChatMessage, Completion, LLMBackend

llama_cpp = pytest.importorskip("llama_cpp", reason='llama-cpp-python not installed (extra "local")')

from refind_desktop.llm.llama import LlamaBackend, reused_prefix  # noqa: E402

SYSTEM = ChatMessage(
    "system", "You pick search keywords for questions about a person's chat history. Answer briefly."
)
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["action", "keywords"],
    "properties": {
        "action": {"type": "string", "enum": ["search", "answer"]},
        "keywords": {"type": "string", "maxLength": 40},
    },
}


@pytest.fixture(scope="module")
def backend(embedded_gguf: Path) -> LlamaBackend:
    b = LlamaBackend(embedded_gguf, n_ctx=2048, n_threads=0)
    b.load()
    return b


def _prompt_evals(b: LlamaBackend) -> int:
    """llama.cpp's own count of prompt tokens decoded in batches (n_p_eval) so far."""
    return llama_cpp.llama_perf_context(b._llm.ctx).n_p_eval


def test_reused_prefix_rules():
    assert reused_prefix([1, 2, 3, 9], [1, 2, 3, 4, 5]) == 3
    assert reused_prefix([1, 2, 3, 4, 5, 6], [1, 2, 3]) == 2  # all cached: last token is replayed
    assert reused_prefix([], [1, 2]) == 0


def test_the_weights_load_into_plain_cpu_buffers_and_the_library_defaults_stay(backend: LlamaBackend):
    # llama.cpp's extra buffer types put the weights on AMX tiles when the CPU reports AMX; on a VM
    # that reports AMX its host does not let it run, the first matrix product there is a segfault
    assert backend._llm.model_params.use_extra_bufts is False
    assert llama_cpp.llama_model_default_params().use_extra_bufts is True  # swapped for the load only
    assert backend.complete([ChatMessage("user", "Reply with OK.")], max_tokens=4).text


def test_schema_call_returns_valid_json(backend: LlamaBackend):
    assert isinstance(backend, LLMBackend)
    out = backend.complete(
        [SYSTEM, ChatMessage("user", "What did I pay for the handbag designer? Reply as JSON.")],
        schema=SCHEMA,
        max_tokens=40,
    )
    assert out.data["action"] in ("search", "answer") and len(out.data["keywords"]) <= 40
    assert out.usage.prompt_tokens > 20 and 0 < out.usage.completion_tokens <= 40


def test_grammar_first_sampling_gives_the_same_json_as_constraining_every_token(
    backend: LlamaBackend, embedded_gguf: Path
):
    items = {
        "type": "object",
        "additionalProperties": False,
        "required": ["items"],
        "properties": {
            "items": {
                "type": "array",
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["tag", "item", "value"],
                    "properties": {
                        "tag": {"type": "string", "enum": ["S1 T0", "S1 T1", "S2 T0"]},
                        "item": {"type": "string", "maxLength": 40},
                        "value": {"type": ["number", "null"]},
                    },
                },
            }
        },
    }
    ask = [
        SYSTEM,
        ChatMessage(
            "user",
            "[S1 T0] I bought a red umbrella for $30. [S1 T1] My dog Rex learned to sit. "
            "[S2 T0] I got a Trek bike for $500. List the purchases with their tag and price as JSON.",
        ),
    ]
    plain = LlamaBackend(embedded_gguf, n_ctx=2048, n_threads=0, grammar_first=False)
    before = plain.complete(ask, schema=items, max_tokens=80)
    fast, full = backend.sampling.fast, backend.sampling.full
    after = backend.complete(ask, schema=items, max_tokens=80)
    assert plain.sampling is None and after.text == before.text and after.data == before.data
    assert backend.sampling.fast - fast > 0  # the best token was checked first and kept
    sampled = backend.sampling.fast - fast + backend.sampling.full - full
    assert sampled == after.usage.completion_tokens + 1  # every token, and the end-of-text one
    streamed = "".join(p for p in backend.stream(ask, max_tokens=20) if isinstance(p, str))
    assert backend.sampling.fast - fast + backend.sampling.full - full == sampled
    assert streamed  # free text keeps llama-cpp-python's own sampler


def test_logprobs_tell_each_generated_token_and_leave_the_reply_as_it_was(backend: LlamaBackend):
    yes_no = {
        "type": "object",
        "additionalProperties": False,
        "required": ["yes"],
        "properties": {"yes": {"type": "boolean"}},
    }
    ask = [
        SYSTEM,
        ChatMessage("user", "I walked my dog Rex in the park. Is my dog called Rex? Reply as JSON."),
    ]
    plain = backend.complete(ask, schema=yes_no, max_tokens=12)
    weighed = backend.complete(ask, schema=yes_no, max_tokens=12, logprobs=4)
    assert plain.tokens == [] and weighed.text == plain.text and weighed.data == plain.data
    assert "".join(t.token for t in weighed.tokens) == weighed.text  # the end-of-text token writes ""
    for t in weighed.tokens:
        assert 1 <= len(t.top) <= 4 and all(lp <= 0 for lp in t.top.values())
        assert list(t.top.values()) == sorted(t.top.values(), reverse=True)
    value = next(t for t in weighed.tokens if t.token.strip() in ("true", "false"))
    assert value.token == max(value.top, key=value.top.get)  # greedy: the likeliest token, allowed
    assert 0 < sum(math.exp(lp) for lp in value.top.values()) <= 1 + 1e-6
    assert backend.complete(ask, schema=yes_no, max_tokens=12).tokens == []  # only when asked


def test_appending_a_message_reprocesses_only_the_tail(backend: LlamaBackend):
    first = [SYSTEM, ChatMessage("user", "Which city did I move to in 2021? Give keywords only.")]
    a = backend.complete(first, max_tokens=8)
    second = [*first, ChatMessage("assistant", a.text), ChatMessage("user", "Now for my sister's wedding.")]
    before = _prompt_evals(backend)
    b = backend.complete(second, max_tokens=8)
    measured = _prompt_evals(backend) - before
    assert b.usage.prompt_tokens > a.usage.prompt_tokens
    # Only the new tail is evaluated, and llama.cpp's own counter agrees with the reported number.
    assert b.usage.reprocessed_prompt_tokens == measured
    assert b.usage.reprocessed_prompt_tokens < b.usage.prompt_tokens - a.usage.prompt_tokens + 8

    backend.prefix_reuse = False
    try:
        before = _prompt_evals(backend)
        c = backend.complete(second, max_tokens=8)
        measured_reset = _prompt_evals(backend) - before
    finally:
        backend.prefix_reuse = True
    assert c.usage.reprocessed_prompt_tokens == c.usage.prompt_tokens == measured_reset
    print(
        f"\nprefix reuse: call 1 prompt {a.usage.prompt_tokens} reprocessed "
        f"{a.usage.reprocessed_prompt_tokens} ({a.usage.seconds:.2f}s); call 2 prompt "
        f"{b.usage.prompt_tokens} reprocessed {b.usage.reprocessed_prompt_tokens} ({b.usage.seconds:.2f}s);"
        f" without reuse {c.usage.reprocessed_prompt_tokens} ({c.usage.seconds:.2f}s)"
    )


def test_stream_yields_pieces_then_the_same_completion(backend: LlamaBackend):
    messages = [SYSTEM, ChatMessage("user", "Say hello in three words.")]
    done = backend.complete(messages, max_tokens=12)
    items = list(backend.stream(messages, max_tokens=12))
    *pieces, final = items
    assert isinstance(final, Completion) and all(isinstance(p, str) for p in pieces) and pieces
    assert final.text == "".join(pieces) == done.text
    assert final.usage.prompt_tokens == done.usage.prompt_tokens
    assert final.usage.completion_tokens == done.usage.completion_tokens
    assert final.usage.reprocessed_prompt_tokens == 1  # the same prompt again: only the replayed token


def test_prompt_longer_than_the_context_is_a_backend_error(backend: LlamaBackend):
    with pytest.raises(BackendError, match="n_ctx"):
        backend.complete([ChatMessage("user", "word " * 3000)], max_tokens=4)


def test_no_network_connection_is_opened(embedded_gguf: Path, monkeypatch: pytest.MonkeyPatch):
    def refuse(self, address):
        raise AssertionError(f"the llama back end tried to connect to {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    b = LlamaBackend(embedded_gguf, n_ctx=512, n_threads=0)
    out = b.complete([ChatMessage("user", "Reply with OK.")], max_tokens=4)
    assert out.usage.calls == 1 and out.text


@pytest.mark.slow
def test_loading_leaves_the_terminal_file_descriptors_alone(embedded_gguf: Path, capfd):
    """A terminal app draws on stderr (Textual does) while the model loads in a thread: the load must
    neither point descriptors 1 and 2 elsewhere (the app's frames would be lost) nor write on them."""
    import os
    import threading

    null = os.stat(os.devnull)
    silenced: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for fd in (1, 2):
                st = os.fstat(fd)
                if (st.st_dev, st.st_ino) == (null.st_dev, null.st_ino):
                    silenced.add(fd)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        b = LlamaBackend(embedded_gguf, n_ctx=512, n_threads=0)
        b.load()
    finally:
        done.set()
        watcher.join()
    assert silenced == set()
    out = capfd.readouterr()
    assert out.out == "" and out.err == ""
    assert b.complete([ChatMessage("user", "Say hi.")], max_tokens=3).text  # and it stays quiet
    out = capfd.readouterr()
    assert out.out == "" and out.err == ""


def test_calls_decoded_together_read_the_same_prompts_and_write_valid_json_in_fewer_steps(
    backend: LlamaBackend,
):
    colour = {
        "type": "object",
        "additionalProperties": False,
        "required": ["found", "colour"],
        "properties": {"found": {"type": "boolean"}, "colour": {"type": "string", "maxLength": 20}},
    }
    notes = ["My new bike is blue.", "The car we rented was red and fast.", "We painted the fence green."]
    calls = [
        ([SYSTEM, ChatMessage("user", f"Chat: {text}\nWhat colour is named? Reply as JSON.")], colour, 30)
        for text in notes
    ]
    alone = [backend.complete(m, schema=s, max_tokens=n) for m, s, n in calls]
    backend._batcher = None
    together = backend.complete_many(calls)
    assert all(isinstance(c, Completion) for c in together)
    for one, many in zip(alone, together, strict=True):
        assert many.usage.prompt_tokens == one.usage.prompt_tokens  # the chat handler's own prompt tokens
        assert many.data["colour"].lower() in ("blue", "red", "green")
    assert [c.data["colour"].lower() for c in together] == ["blue", "red", "green"]
    # the shared start of the prompts is evaluated once; each reply's tokens are decoded side by side
    for c in together[1:]:
        assert c.usage.prompt_tokens - c.usage.reprocessed_prompt_tokens > 20
    # and the system prompt the single calls' cache holds is copied over, not evaluated again
    assert together[0].usage.reprocessed_prompt_tokens < together[0].usage.prompt_tokens - 20
    steps = backend.batcher().steps  # one feed a step, after the shared prefix's and the tails'
    assert steps == backend.batcher().feeds - 2  # one wave
    assert steps < sum(c.usage.completion_tokens for c in together)
    assert steps <= max(c.usage.completion_tokens for c in together)
    # the single calls' own cache is left as it was: the last single call's prompt is still all cached
    again = backend.complete(calls[-1][0], schema=colour, max_tokens=30)
    assert again.usage.reprocessed_prompt_tokens <= 1 and again.data == alone[-1].data


def test_guessed_tokens_are_kept_only_where_the_model_writes_them_itself(
    backend: LlamaBackend, monkeypatch: pytest.MonkeyPatch
):
    from refind_desktop.llm.llama_batch import MAX_DRAFT, Lookup

    plants = {
        "type": "object",
        "additionalProperties": False,
        "required": ["plants"],
        "properties": {
            "plants": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 40}}
        },
    }
    notes = [
        "On Sunday I repotted the monstera, the fiddle leaf fig and the little jade plant.",
        "We planted tomatoes, sweet basil and two rows of sweet peas along the back fence.",
        "I bought a snake plant and a peace lily for the office on Tuesday.",
    ]
    reader = ChatMessage("system", "You read chat excerpts and copy their words exactly.")
    calls = [
        (
            [
                reader,
                ChatMessage("user", f"Chat: {t}\nList each plant it names, in its own words. Reply as JSON."),
            ],
            plants,
            60,
        )
        for t in notes
    ]
    # the longest reply copies a sentence: once it is the last one left, its words are guessed
    sentence = {
        "type": "object",
        "additionalProperties": False,
        "required": ["sentence"],
        "properties": {"sentence": {"type": "string", "maxLength": 160}},
    }
    chat = (
        "We met at noon. The old lighthouse on the northern cliff was painted white and red last "
        "summer by the harbour volunteers. Then we walked home."
    )
    ask = f"Chat: {chat}\nCopy the chat's second sentence exactly. Reply as JSON."
    calls.append(([reader, ChatMessage("user", ask)], sentence, 80))
    batcher = backend.batcher()  # the module's backend: its batcher has decoded earlier tests' calls
    batcher.max_draft = 0
    start = batcher.steps
    plain = backend.complete_many(calls)
    plain_steps = batcher.steps - start
    batcher.max_draft = MAX_DRAFT
    kept_before = batcher.kept
    guessed = backend.complete_many(calls)
    guessed_steps = batcher.steps - start - plain_steps
    assert all(isinstance(c, Completion) for c in plain + guessed)
    # the last reply left is fed guesses; every reply is the one decoding without them writes: a guess
    # the model would not have written is replaced by its own choice, its cells dropped
    assert [c.text for c in guessed] == [c.text for c in plain]
    assert any("monstera" in p.lower() for p in guessed[0].data["plants"])
    assert batcher.kept > kept_before and guessed_steps < plain_steps
    assert [c.usage.completion_tokens for c in guessed] == [c.usage.completion_tokens for c in plain]
    # guesses the model never writes: every one is dropped, and the replies are still the same
    wrong = backend._llm.tokenize(b" zebra", add_bos=False)[0]
    monkeypatch.setattr(Lookup, "guess", lambda self, last, most: [wrong] * most)
    fed, kept = batcher.guessed, batcher.kept
    dropped = backend.complete_many(calls)
    assert batcher.guessed > fed and batcher.kept == kept
    assert [c.text for c in dropped] == [c.text for c in plain]


def test_calls_decoded_together_stop_when_the_caller_stops_them_and_the_next_batch_still_works(
    backend: LlamaBackend,
):
    class Stop(Exception):
        pass

    steps = []

    def stop_at_third() -> None:
        steps.append(1)
        if len(steps) == 3:
            raise Stop

    calls = [
        (
            [SYSTEM, ChatMessage("user", f"Keywords for: where did I park on day {i}? Reply as JSON.")],
            SCHEMA,
            40,
        )
        for i in (1, 2)
    ]
    with pytest.raises(Stop):
        backend.complete_many(calls, stop_at_third)
    assert len(steps) == 3
    again = backend.complete_many(calls)
    assert all(isinstance(c, Completion) and c.data["action"] in ("search", "answer") for c in again)
