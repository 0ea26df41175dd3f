"""ScriptedBackend: a test double that replays queued replies (or asks a responder) and records every call."""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError
from .base import ChatMessage, Completion, Usage
from .schema import parse_json_output

Reply = str | dict | list | BaseException
"""A queued reply; an exception instance is raised by the call (e.g. a dead back end)."""
Responder = Callable[[list[ChatMessage], dict | None], Reply]


@dataclass
class ScriptedCall:
    """One recorded call: the messages sent and the schema asked for (None for free text)."""

    messages: list[ChatMessage]
    schema: dict | None
    streamed: bool = False
    max_tokens: int = 0

    @property
    def prompt(self) -> str:
        """All message contents joined (handy for `in` assertions)."""
        return "\n".join(m.content for m in self.messages)


@dataclass
class ScriptedBackend:
    """An LLMBackend without a model: replies come from `enqueue()`d items, else from `responder`.

    Dicts and lists are returned as JSON text; for a schema call the text is parsed and checked
    with the same validator as the real back ends (invalid output is an InvalidOutputError). An empty script raises BackendError.
    Usage counts characters/4 as tokens so that accounting code has numbers to add.
    """

    responder: Responder | None = None
    name: str = "scripted"
    supports_schema: bool = True
    can_stream: bool = True
    n_ctx: int | None = None
    calls: list[ScriptedCall] = field(default_factory=list)
    _queue: deque = field(default_factory=deque)

    def enqueue(self, *replies: Reply) -> ScriptedBackend:
        """Queue replies, consumed one per call in order."""
        self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies still queued."""
        return len(self._queue)

    def _next(self, messages: list[ChatMessage], schema: dict | None) -> Reply:
        if self._queue:
            return self._queue.popleft()
        if self.responder is not None:
            return self.responder(messages, schema)
        raise BackendError("scripted back end has no reply left for this call", "script exhausted")

    @staticmethod
    def _usage(messages: list[ChatMessage], text: str) -> Usage:
        prompt = sum(len(m.content) for m in messages) // 4 + 1
        return Usage(
            prompt_tokens=prompt,
            completion_tokens=len(text) // 4 + 1,
            reprocessed_prompt_tokens=prompt,
            calls=1,
        )

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: dict | None = None,
        max_tokens: int = 512,
        temperature: float = 0.0,
    ) -> Completion:
        """Return the next scripted reply."""
        messages = list(messages)
        self.calls.append(ScriptedCall(messages, schema, max_tokens=max_tokens))
        reply = self._next(messages, schema)
        if isinstance(reply, BaseException):
            raise reply
        data: Any = None
        text = json.dumps(reply) if isinstance(reply, dict | list) else str(reply)
        if schema is not None and stage_of(schema) == "read" and not text.lstrip().startswith("{"):
            text = json.dumps(_reading(text, schema, messages[-1].content))
        cut = self.count_tokens(text) > max_tokens  # cut where a real model stops: at max_tokens
        if cut:
            text = text[: 4 * max_tokens]
        if schema is not None:  # checked like a real back end's output: the one validator, once
            data = parse_json_output(text, schema, "scripted model", truncated=cut)
        return Completion(text=text, usage=self._usage(messages, text), data=data)

    @staticmethod
    def count_tokens(text: str) -> int:
        """About four characters a token (the same rule as its usage figures)."""
        return len(text) // 4 + 1

    def stream(
        self, messages: list[ChatMessage], *, max_tokens: int = 512, temperature: float = 0.0
    ) -> Iterator[str | Completion]:
        """Yield the next reply word by word, then the Completion."""
        messages = list(messages)
        self.calls.append(ScriptedCall(messages, None, streamed=True))
        reply = self._next(messages, None)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        pieces = text.split(" ")
        for i, piece in enumerate(pieces):
            yield piece if i == len(pieces) - 1 else piece + " "
        yield Completion(text=text, usage=self._usage(messages, text))


_LABEL = re.compile(r"^\[(T\d+)\] (.*)$", re.MULTILINE)
_WORDS = re.compile(r"\w+", re.UNICODE)


def _reading(answer: str, schema: dict, prompt: str) -> dict:
    """A test handler's answer text as a reading reply: found (unless it is empty or says "not in your
    history"), one item citing the excerpt's turn that shares most words with it (the schema's first
    turn when none does); a number in it is the item's value, its "when" is null."""
    words = " ".join(answer.split()).strip(" .")
    if not words or "not in your history" in words.lower():
        return {"found": False, "items": []}
    item_schema = schema["properties"]["items"]["items"]["properties"]
    enum = item_schema["turn"]["enum"]
    mine = {w.lower() for w in _WORDS.findall(words)}
    best, turn = 0, enum[0]
    for label, line in _LABEL.findall(prompt):
        shared = len(mine & {w.lower() for w in _WORDS.findall(line)})
        if label in enum and shared > best:
            best, turn = shared, label
    item: dict = {"turn": turn, "words": words[:100]}
    if "value" in item_schema:
        number = re.search(r"\d+(?:\.\d+)?", words)
        item["value"] = float(number.group(0)) if number else None
    if "when" in item_schema:
        item["when"] = None
    return {"found": True, "items": [item]}


AGREEING = {"confirm": {"about": True, "answers": True}, "named": {"names": True}}
"""The reply of each check reading of agent/earn.py that lets an answer stand, by `stage_of` name: what a
scripted double answers when its script says nothing of that check."""


def stage_of(schema: dict | None) -> str:
    """Which agent step a scripted call is, judged by its schema (None = the answer); for test responders."""
    if schema is None:
        return "answer"
    props = set(schema.get("properties", {}))
    if props == {"about", "answers"}:
        return "confirm"
    if props == {"names"}:
        return "named"
    if "relevant" in props:
        return "relevance"
    if "found" in props:
        return "read"
    if "answer" in props:
        return "judge"
    if "indices" in props:
        return "choose"
    if "action" in props:
        return "next"
    return "query"
