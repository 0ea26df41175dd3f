"""OpenAI-compatible back end (api.openai.com, llama.cpp's server, vLLM, Ollama …) on the official client.

Built by `llm.factory.make_backend`; the only module besides `llama` that imports a model engine.
"""

from __future__ import annotations

import ipaddress
import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlparse

from ..errors import (
    BackendError,
    BackendUnavailableError,
    ConfigError,
    ContextOverflowError,
    InvalidOutputError,
    MissingDependencyError,
)
from ..redact import redact_text
from .base import ChatMessage, Completion, Usage
from .schema import parse_json_output

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
DUMMY_KEY = "sk-no-key-needed"


def import_openai() -> Any:
    """The openai module, or MissingDependencyError naming the extra."""
    try:
        import openai  # deferred: the client pulls in httpx and pydantic models (~0.3 s)
    except ImportError as exc:
        raise MissingDependencyError(
            'the openai back end needs the openai client: pip install "refind-desktop[openai]"'
        ) from exc
    return openai


def _is_local(base_url: str) -> bool:
    host = urlparse(base_url).hostname or ""
    return host in LOCAL_HOSTS or host.endswith(".local")


def is_loopback_url(base_url: str) -> bool:
    """Whether a base URL names this machine (localhost, 127.0.0.0/8, ::1); empty means api.openai.com."""
    host = (urlparse(base_url).hostname or "") if base_url else ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OpenAIBackend:
    """A chat model behind an OpenAI-compatible HTTP API."""

    name = "openai"
    supports_schema = True
    can_stream = True

    def __init__(
        self,
        model: str = "gpt-4o-mini",
        base_url: str = "",
        api_key: str = "",
        timeout: float = 120.0,
        max_retries: int = 1,
        redact: bool = True,
        parallel: int = 4,
    ) -> None:
        openai = import_openai()
        self._openai = openai
        self.model = model
        self.base_url = base_url or ""
        key = api_key or os.environ.get("OPENAI_API_KEY", "")
        if not key:
            if not self.base_url:
                raise ConfigError(
                    "No OpenAI key: set OPENAI_API_KEY or `refind config` "
                    "(openai_api_key), or point openai_base_url at a local server"
                )
            key = DUMMY_KEY  # local servers (llama.cpp, Ollama, vLLM) usually need none
        self._where = self.base_url or "api.openai.com"
        self._client = openai.OpenAI(
            api_key=key, base_url=self.base_url or None, timeout=timeout, max_retries=max_retries
        )
        self._json_schema_ok = True  # set False once the server rejects response_format json_schema
        self.redacts = redact and not is_loopback_url(self.base_url)
        """Prompts carry chat text: secrets in it are redacted before they leave for a remote server."""
        self.parallel = max(1, parallel)
        """Requests `complete_many` has in flight at once."""

    def _payload(self, messages: list[ChatMessage]) -> list[dict]:
        """The messages as the API takes them, secrets redacted when the server is not this machine."""
        show = redact_text if self.redacts else str
        return [{"role": m.role, "content": show(m.content)} for m in messages]

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.model!r}, {self._where!r})"

    # -- errors --------------------------------------------------------------------------------------

    def _translate(self, exc: Exception) -> Exception:
        o = self._openai
        if isinstance(exc, o.APITimeoutError):
            return BackendUnavailableError(
                f"{self._where} did not answer in time; check the server is running and "
                "not overloaded, or raise the timeout / use a smaller model"
            )
        if isinstance(exc, o.APIConnectionError):
            return BackendUnavailableError(
                f"could not connect to {self._where} ({exc.__cause__ or exc}); start the "
                "server or fix openai_base_url with `refind config`"
            )
        if isinstance(exc, o.AuthenticationError):
            return ConfigError(
                f"{self._where} rejected the API key; set OPENAI_API_KEY or `refind config` (openai_api_key)"
            )
        if isinstance(exc, o.NotFoundError):
            return BackendUnavailableError(
                f"{self._where} has no model {self.model!r} ({exc.message}); set "
                "openai_model with `refind config`"
            )
        if isinstance(exc, o.RateLimitError):
            return BackendError(f"{self._where} is rate-limiting requests ({exc.message}); wait and retry")
        if isinstance(exc, o.APIStatusError):
            if _is_context_overflow(exc):
                return ContextOverflowError(
                    f"{self._where}: the prompt is longer than the model's context ({exc.message}); "
                    "send less text or serve the model with a larger context"
                )
            if exc.status_code >= 500:
                return BackendUnavailableError(
                    f"{self._where} answered HTTP {exc.status_code}: {exc.message}; check the server "
                    "log and that the model is loaded"
                )
            return BackendError(f"{self._where} answered HTTP {exc.status_code}: {exc.message}")
        return BackendError(f"request to {self._where} failed: {exc}")

    def _create(self, **kwargs: Any) -> Any:
        try:
            return self._client.chat.completions.create(model=self.model, **kwargs)
        except self._openai.OpenAIError as exc:
            raise self._translate(exc) from exc

    @staticmethod
    def _usage(raw: Any, start: float) -> Usage:
        if raw is None:
            return Usage(calls=1, seconds=time.perf_counter() - start)
        details = getattr(raw, "prompt_tokens_details", None)
        cached = (getattr(details, "cached_tokens", None) or 0) if details else 0
        return Usage(
            prompt_tokens=raw.prompt_tokens or 0,
            completion_tokens=raw.completion_tokens or 0,
            reprocessed_prompt_tokens=(raw.prompt_tokens or 0) - cached,
            calls=1,
            seconds=time.perf_counter() - start,
        )

    # -- LLMBackend ----------------------------------------------------------------------------------

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Completion:
        """One call. With `schema`: `json_schema` response format, or — when the server rejects it —
        `json_object` with the schema spelled out in the system prompt; the JSON is parsed and checked."""
        start = time.perf_counter()
        payload = self._payload(messages)
        common = {"max_tokens": max_tokens, "temperature": temperature}
        if schema is None:
            response = self._create(messages=payload, **common)
        else:
            response = None
            if self._json_schema_ok:
                fmt = {
                    "type": "json_schema",
                    "json_schema": {"name": "action", "schema": schema, "strict": False},
                }
                try:
                    response = self._client.chat.completions.create(
                        model=self.model, messages=payload, response_format=fmt, **common
                    )
                except self._openai.APIStatusError as exc:
                    if not _rejects_json_schema(exc):
                        raise self._translate(exc) from exc
                    self._json_schema_ok = False
                except self._openai.OpenAIError as exc:
                    raise self._translate(exc) from exc
            if response is None:
                response = self._create(
                    messages=_with_schema_prompt(payload, schema),
                    response_format={"type": "json_object"},
                    **common,
                )
        if not response.choices:
            raise BackendError(f"{self._where} returned no choices; check the model name and server logs")
        choice = response.choices[0]
        text = choice.message.content or ""
        data = None
        if schema is not None:
            data = parse_json_output(
                text, schema, f"{self.model} at {self._where}", truncated=choice.finish_reason == "length"
            )
        return Completion(text=text, usage=self._usage(response.usage, start), data=data)

    def complete_many(
        self, calls: list[tuple[list[ChatMessage], dict, int]], step: Callable[[], None] | None = None
    ) -> list[Completion | Exception]:
        """Several independent schema calls `(messages, schema, max_tokens)`, each as `complete` makes it,
        up to `parallel` of them in flight at once (a server that decodes requests side by side answers
        them together; one that queues them answers them one after another, as before). A reply that is
        not valid JSON under its schema comes back as its InvalidOutputError (or TruncatedOutputError);
        any other failure is raised, and the calls not yet sent are dropped. `step` runs before each
        request is sent (the run's cancel check)."""

        def one(call: tuple[list[ChatMessage], dict, int]) -> Completion | Exception:
            if step is not None:
                step()
            messages, schema, room = call
            try:
                return self.complete(messages, schema=schema, max_tokens=room)
            except InvalidOutputError as exc:
                return exc

        if self.parallel == 1 or len(calls) < 2:
            return [one(call) for call in calls]
        pool = ThreadPoolExecutor(min(self.parallel, len(calls)), thread_name_prefix="refind-openai")
        try:
            futures = [pool.submit(one, call) for call in calls]
            return [f.result() for f in futures]
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def stream(
        self, messages: list[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> Iterator[str | Completion]:
        """Yield text pieces, then the final Completion (usage from the server when it sends it, else
        the number of streamed pieces as the completion count)."""
        start = time.perf_counter()
        chunks = self._create(
            messages=self._payload(messages),
            max_tokens=max_tokens,
            temperature=temperature,
            stream=True,
            stream_options={"include_usage": True},
        )
        pieces: list[str] = []
        raw_usage = None
        try:
            for chunk in chunks:
                raw_usage = getattr(chunk, "usage", None) or raw_usage
                if not chunk.choices:
                    continue
                piece = chunk.choices[0].delta.content
                if piece:
                    pieces.append(piece)
                    yield piece
        except self._openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        finally:
            chunks.close()
        usage = self._usage(raw_usage, start)
        if raw_usage is None:
            usage.completion_tokens = len(pieces)
        yield Completion(text="".join(pieces), usage=usage)


def _is_context_overflow(exc: Any) -> bool:
    """True when an error status says the prompt exceeds the context (OpenAI, vLLM, llama.cpp wording)."""
    message = str(getattr(exc, "message", "") or exc).lower()
    return "context" in message and any(w in message for w in ("length", "exceed", "too long", "window"))


def _rejects_json_schema(exc: Any) -> bool:
    """True when an error status means "response_format json_schema unsupported": 400/422, or another
    status whose message names it (llama.cpp's server answers its validation error with 500)."""
    message = str(getattr(exc, "message", "") or exc)
    return exc.status_code in (400, 422) or "json_schema" in message or "response_format" in message


def _with_schema_prompt(payload: list[dict], schema: dict) -> list[dict]:
    """The messages with the JSON schema added to (or as) the system message."""
    rule = (
        "Answer with one JSON object only, no other text. It must be valid under this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False)
    )
    if payload and payload[0]["role"] == "system":
        return [{"role": "system", "content": payload[0]["content"] + "\n\n" + rule}, *payload[1:]]
    return [{"role": "system", "content": rule}, *payload]
