"""Local GGUF back end on llama-cpp-python: grammar-constrained JSON, KV-cache prefix reuse, streaming.

Built by `llm.factory.make_backend`; the agent loop and `refind ask` call `complete`/`stream`.
This and `openai_backend` are the only modules that import their engine, lazily.

Prefix reuse: one `Llama` object keeps the tokens of its KV cache in `input_ids[:n_tokens]`.
`Llama.generate` keeps the longest common prefix between those tokens and the new prompt, and when
the whole prompt is cached it still replays the last prompt token to refresh the logits; only the
rest is evaluated. `Usage.reprocessed_prompt_tokens` reports exactly that number, so a loop that
only appends messages pays for the new tail alone (tests check it against llama.cpp's own
prompt-eval counter).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..errors import (
    BackendError,
    BackendUnavailableError,
    ContextOverflowError,
    InvalidOutputError,
    MissingDependencyError,
    NotFoundError,
    TruncatedOutputError,
)
from .base import ChatMessage, Completion, TokenChoice, Usage
from .llama_batch import common_start
from .schema import parse_json_output


def import_llama_cpp() -> Any:
    """The llama_cpp module, or MissingDependencyError naming the extra."""
    try:
        import llama_cpp  # deferred: loading the native library costs ~0.2 s and is optional
    except ImportError as exc:
        raise MissingDependencyError(
            'the local model back end needs llama-cpp-python: pip install "refind-desktop[local]" '
            "(or choose the openai back end: `refind config` / REFIND_BACKEND=openai)"
        ) from exc
    return llama_cpp


LOGGER = "llama-cpp-python"
"""The logger llama-cpp-python routes llama.cpp's own log lines through."""


_DEFAULTS_LOCK = threading.Lock()


@contextlib.contextmanager
def plain_buffers(llama_cpp: Any) -> Iterator[None]:
    """While open, models that llama-cpp-python loads keep their weights in llama.cpp's plain CPU
    buffers (see `new_llama`). llama-cpp-python has no argument for it, so its model defaults are
    swapped meanwhile; one load at a time."""
    api = llama_cpp.llama_cpp  # the C API module `Llama` reads its model defaults from
    default = api.llama_model_default_params

    def plain() -> Any:
        model = default()
        if hasattr(model, "use_extra_bufts"):
            model.use_extra_bufts = False
        return model

    with _DEFAULTS_LOCK:
        api.llama_model_default_params = plain
        try:
            yield
        finally:
            api.llama_model_default_params = default


def new_llama(llama_cpp: Any, *, extra_buffers: bool = False, **params: Any) -> Any:
    """`llama_cpp.Llama(**params)`, its weights in llama.cpp's plain CPU buffers unless `extra_buffers`.

    llama.cpp otherwise moves weights into "extra" buffer types: AMX tiles on a CPU that reports AMX,
    or weights repacked for wider SIMD. On a virtual machine whose CPU reports AMX that the host does
    not let it use, the first matrix product on those tiles kills the process with a segmentation
    fault, which no Python code can catch. Plain buffers run everywhere. On a 2-core AVX-512 VM, with
    llama.cpp built without AMX, the embedded model read 151 prompt tokens/s with them against 109
    with repacked weights, and wrote 11.6 tokens/s against 13.9: a reading (about 380 new prompt
    tokens, 46 written) takes about as long either way."""
    if extra_buffers:
        return llama_cpp.Llama(**params)
    with plain_buffers(llama_cpp):
        return llama_cpp.Llama(**params)


def quiet_load(llama_cpp: Any, **params: Any) -> Any:
    """`llama_cpp.Llama(**params)` without a word on the terminal and without touching its file
    descriptors.

    With `verbose=False` llama-cpp-python silences the load by pointing file descriptors 1 and 2 at
    /dev/null for its duration (`suppress_stdout_stderr`), for the whole process: a terminal app that
    draws on stderr (Textual does) loses every frame it writes meanwhile, and its screen stays stale
    until each region happens to change again. Here the load runs with `verbose=True`, its log lines
    (sent through Python's `sys.stderr` by llama-cpp-python's log callback) go to /dev/null at the
    Python level only, and the model is then told to stay quiet: its per-call prints check
    `Llama.verbose`, and llama.cpp's log lines pass through the logger's level."""
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stderr(sink):
        with contextlib.redirect_stdout(sink):
            try:
                llm = new_llama(llama_cpp, verbose=True, **params)
            finally:
                logging.getLogger(LOGGER).setLevel(logging.ERROR)
    llm.verbose = False
    return llm


def reused_prefix(cached: list[int], prompt: list[int]) -> int:
    """Prompt tokens llama-cpp-python keeps from the KV cache: the longest common prefix, less one
    when the whole prompt is cached (it replays the last token to get fresh logits)."""
    n = common_start(cached, prompt)
    return n - 1 if n and n == len(prompt) else n


class LlamaBackend:
    """A chat model running in-process from a GGUF file (loaded once, on first use)."""

    name = "llama"
    supports_schema = True
    can_stream = True
    controller_hint = "auto"
    """The catalog's controller default for this model (set by the factory)."""

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        n_ctx: int = 8192,
        n_threads: int = 0,
        n_gpu_layers: int = 0,
        prefix_reuse: bool = True,
        n_batch: int = 512,
        n_ubatch: int = 512,
        n_threads_batch: int = 0,
        flash_attn: bool = True,  # measured on 2 cores: +28% prompt tok/s at 512, +16% at 6k, +4% generation
        type_k: int | None = None,
        type_v: int | None = None,
        grammar_first: bool = True,
        extra_buffers: bool = False,
    ) -> None:
        self._llama_cpp = import_llama_cpp()
        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise NotFoundError(
                f"model file {self.model_path} does not exist; "
                "run `refind models list` and `refind models use NAME`"
            )
        self.n_ctx = n_ctx
        self.n_threads = n_threads or os.cpu_count() or 1
        self.n_gpu_layers = n_gpu_layers
        self.prefix_reuse = prefix_reuse
        self.tuning: dict[str, Any] = {
            "n_batch": n_batch,
            "n_ubatch": n_ubatch,
            "n_threads_batch": n_threads_batch or self.n_threads,
            "flash_attn": flash_attn,
            "extra_buffers": extra_buffers,  # see new_llama: off, a CPU that reports AMX it cannot run
        }
        if type_k is not None:
            self.tuning["type_k"] = type_k
        if type_v is not None:
            self.tuning["type_v"] = type_v
        self.grammar_first = grammar_first
        """Check the best token against a JSON grammar before constraining the vocabulary
        (llm/grammar_first.py: same output, faster JSON)."""
        self.sampling: Any = None
        """The GrammarFirst sampler once the model is loaded (its counters), or None."""
        self._lock = threading.Lock()
        self._llm: Any = None
        self._batcher: Any = None
        """The BatchDecoder of `complete_many` (its own context), made on first use."""

    def __repr__(self) -> str:
        return f"LlamaBackend({self.model_path.name!r}, n_ctx={self.n_ctx}, n_threads={self.n_threads})"

    # -- model ---------------------------------------------------------------------------------------

    def load(self) -> Any:
        """Load the model now (else the first call does); returns the llama_cpp.Llama object."""
        with self._lock:
            return self._model()

    def _model(self) -> Any:
        if self._llm is None:
            try:
                self._llm = quiet_load(
                    self._llama_cpp,
                    model_path=str(self.model_path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_gpu_layers=self.n_gpu_layers,
                    **self.tuning,
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise BackendUnavailableError(
                    f"could not load {self.model_path.name} ({exc}); check the file is a "
                    "GGUF this llama.cpp supports (pull it again), or lower n_ctx"
                ) from exc
            if self.grammar_first:
                from .grammar_first import GrammarFirst

                self.sampling = GrammarFirst(self._llm, self._llama_cpp)
        return self._llm

    @contextlib.contextmanager
    def _call(self, messages: list[ChatMessage]) -> Iterator[tuple[Any, dict]]:
        """Hold the lock, prepare the cache and record this call's prompt tokens in `state`."""
        with self._lock:
            llm = self._model()
            if not self.prefix_reuse:
                llm.reset()
            state: dict = {
                "cached": llm.input_ids[: llm.n_tokens].tolist(),
                "prompt": None,
                "start": time.perf_counter(),
            }
            original = llm.tokenize

            def recording_tokenize(text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
                tokens = original(text, add_bos, special)
                if state["prompt"] is None:  # the chat handler tokenizes the formatted prompt first
                    state["prompt"] = list(tokens)
                return tokens

            llm.tokenize = recording_tokenize
            try:
                yield llm, state
            except ValueError as exc:  # llama-cpp-python's "Requested tokens exceed context window"
                raise ContextOverflowError(f"{exc}; raise n_ctx (`refind config`) or send less text") from exc
            except RuntimeError as exc:
                raise BackendError(f"llama.cpp failed during generation ({exc})") from exc
            finally:
                del llm.tokenize

    @staticmethod
    def _usage(state: dict, prompt_tokens: int, completion_tokens: int) -> Usage:
        prompt = state["prompt"] or []
        reprocessed = len(prompt) - reused_prefix(state["cached"], prompt) if prompt else prompt_tokens
        return Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            reprocessed_prompt_tokens=reprocessed,
            calls=1,
            seconds=time.perf_counter() - state["start"],
        )

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` with this model's own tokenizer (loads the model on first use)."""
        with self._lock:
            llm = self._model()
            return len(llm.tokenize(text.encode("utf-8"), False, False))

    # -- LLMBackend ----------------------------------------------------------------------------------

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
        logprobs: int = 0,
    ) -> Completion:
        """One chat call; with `schema` the output is grammar-constrained JSON parsed into `data`.
        `logprobs` is told for greedy schema calls (the grammar-first sampler records them)."""
        extra: dict = {}
        if schema is not None:
            extra["response_format"] = {"type": "json_object", "schema": schema}
        tokens: list[TokenChoice] = []
        with self._call(messages) as (llm, state):
            sampling = self.sampling
            if sampling is not None:
                sampling.record, sampling.steps = logprobs, []
            try:
                response = llm.create_chat_completion(
                    messages=[{"role": m.role, "content": m.content} for m in messages],
                    max_tokens=max_tokens,
                    temperature=temperature,
                    **extra,
                )
            finally:
                if sampling is not None:
                    steps, sampling.record, sampling.steps = sampling.steps, 0, []
            reported = response["usage"]
            usage = self._usage(state, reported["prompt_tokens"], reported["completion_tokens"])
            if sampling is not None and logprobs:
                tokens = [self._choice(llm, chosen, top) for chosen, top in steps if chosen >= 0]
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
        data = None
        if schema is not None:
            data = parse_json_output(
                text,
                schema,
                f"local model {self.model_path.name}",
                truncated=choice.get("finish_reason") == "length",
            )
        return Completion(text=text, usage=usage, data=data, tokens=tokens)

    def batcher(self) -> Any:
        """The BatchDecoder of `complete_many` (llm/llama_batch.py: its own context of the loaded model),
        made now if not yet (benchmarks and tests set its guesses and read its counters)."""
        with self._lock:
            return self._batch_decoder()

    def _batch_decoder(self) -> Any:
        if self._batcher is None:
            from .llama_batch import BatchDecoder

            self._batcher = BatchDecoder(self._model(), self._llama_cpp)
        return self._batcher

    def complete_many(
        self, calls: list[tuple[list[ChatMessage], dict, int]], step: Callable[[], None] | None = None
    ) -> list[Completion | Exception]:
        """Several schema calls `(messages, schema, max_tokens)` decoded side by side (llm/llama_batch.py),
        each as `complete` would make it (the same prompt tokens and grammar, greedy); a reply that is not
        valid JSON under its schema comes back as its InvalidOutputError or TruncatedOutputError. The
        batch's seconds are shared evenly between its calls. `step` runs before each decoding step."""
        with self._lock:
            llm = self._model()
            start = time.perf_counter()
            requests = [self._request(llm, messages, schema, room) for messages, schema, room in calls]
            for req in requests:
                if len(req.tokens) >= self.n_ctx:
                    raise ContextOverflowError(
                        f"Requested tokens ({len(req.tokens)}) exceed context window of {self.n_ctx}; "
                        "raise n_ctx (`refind config`) or send less text"
                    )
            try:
                replies = self._batch_decoder().run(requests, step)
            except RuntimeError as exc:
                raise BackendError(f"llama.cpp failed during generation ({exc})") from exc
            share = (time.perf_counter() - start) / max(1, len(calls))
        out: list[Completion | Exception] = []
        for (_messages, schema, _room), req, reply in zip(calls, requests, replies, strict=True):
            usage = Usage(len(req.tokens), len(reply.tokens), reply.evaluated, 1, share)
            try:
                data = parse_json_output(
                    reply.text,
                    schema,
                    f"local model {self.model_path.name}",
                    truncated=reply.finish == "length",
                )
            except (InvalidOutputError, TruncatedOutputError) as exc:
                out.append(exc)
                continue
            out.append(Completion(text=reply.text, usage=usage, data=data))
        return out

    @staticmethod
    def _request(llm: Any, messages: list[ChatMessage], schema: dict, max_tokens: int) -> Any:
        """The prompt tokens, grammar and stop strings `create_chat_completion` would generate from (its
        chat handler's own, caught on their way to `create_completion`)."""
        from .llama_batch import Request

        seen: dict = {}

        class Caught(Exception):
            pass

        def catch(**kw: Any) -> None:
            seen.update(kw)
            raise Caught

        llm.create_completion = catch
        try:
            llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in messages],
                max_tokens=max_tokens,
                temperature=0.0,
                response_format={"type": "json_object", "schema": schema},
            )
        except Caught:
            pass
        finally:
            del llm.create_completion
        stop = seen.get("stop") or []
        return Request(
            list(seen["prompt"]), seen["grammar"], [stop] if isinstance(stop, str) else list(stop), max_tokens
        )

    @staticmethod
    def _choice(llm: Any, chosen: int, top: list[tuple[int, float]]) -> TokenChoice:
        def piece(token: int) -> str:
            return llm.detokenize([token]).decode("utf-8", errors="replace")

        return TokenChoice(piece(chosen), {piece(t): lp for t, lp in top})

    def stream(
        self, messages: list[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> Iterator[str | Completion]:
        """Yield text pieces as they are generated, then the final Completion (the lock is held until
        the generator finishes or is closed)."""
        with self._call(messages) as (llm, state):
            pieces: list[str] = []
            finish = None
            for chunk in llm.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in messages],
                max_tokens=max_tokens,
                temperature=temperature,
                stream=True,
            ):
                choice = chunk["choices"][0]
                finish = choice.get("finish_reason") or finish
                piece = choice["delta"].get("content")
                if piece:
                    pieces.append(piece)
                    yield piece
            prompt_tokens = len(state["prompt"] or ())
            # Every sampled token but the last is evaluated into the cache; a stop token is not
            # counted as output, a token that hit max_tokens is.
            completion_tokens = max(0, llm.n_tokens - prompt_tokens + (1 if finish == "length" else 0))
            usage = self._usage(state, prompt_tokens, completion_tokens)
        yield Completion(text="".join(pieces), usage=usage)
