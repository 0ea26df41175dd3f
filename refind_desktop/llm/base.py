"""The small interface every language-model back end implements, and its result types."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One chat message sent to a model."""

    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(slots=True)
class Usage:
    """Token accounting of one call (or a sum of calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reprocessed_prompt_tokens: int = 0
    """Prompt tokens actually evaluated (prompt minus the reused KV-cache prefix)."""
    calls: int = 0
    seconds: float = 0.0

    def add(self, other: Usage) -> None:
        """Accumulate another usage into this one."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.reprocessed_prompt_tokens += other.reprocessed_prompt_tokens
        self.calls += other.calls
        self.seconds += other.seconds

    def to_json(self) -> dict:
        """Plain dict for JSON output."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reprocessed_prompt_tokens": self.reprocessed_prompt_tokens,
            "calls": self.calls,
            "model_seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True, slots=True)
class TokenChoice:
    """One generated token and the likeliest tokens the model weighed in its place, each with its
    log-probability (over the whole vocabulary, before any grammar narrowed it)."""

    token: str
    top: dict[str, float]


@dataclass(slots=True)
class Completion:
    """Result of one model call. `data` is the parsed JSON when a schema was given."""

    text: str
    usage: Usage = field(default_factory=Usage)
    data: Any = None
    tokens: list[TokenChoice] = field(default_factory=list)
    """Each generated token with its alternatives, when the call asked for them (the embedded back end's
    `logprobs`, for benchmarks that weigh a reply); else empty."""


@runtime_checkable
class LLMBackend(Protocol):
    """A chat model. Implementations: llama (local GGUF), openai (any compatible server), scripted."""

    name: str
    supports_schema: bool
    can_stream: bool

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Completion:
        """One call. With `schema`, the output is JSON valid under it (parsed into `data`);
        invalid output raises BackendError."""
        ...

    def stream(
        self, messages: list[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> Iterator[str | Completion]:
        """Yield text pieces as they are generated, then one final Completion with the usage."""
        ...
