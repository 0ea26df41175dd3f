"""`--backend scripted` / `--judge scripted`: deterministic model stand-ins that run the harness offline.

The controller searches the question's content words, keeps every result and finishes after one
search; a reading call finds, in each passage, the turn that shares most words with the question and
copies its first words; the judge marks an answer CORRECT when it contains the gold answer. Useful for tests and dry runs, not as a baseline.
"""

from __future__ import annotations

import re

from ..llm.base import ChatMessage
from ..llm.scripted import AGREEING, ScriptedBackend, stage_of
from .scoring import contains

_WORD = re.compile(r"[A-Za-z0-9']+")
_STOP = set(
    "a an the and or of to in on at for with about from by is are was were be been do does did i my me "
    "you your we our what which who whom when where why how many much long ago have has had it its "
    "that this these those there their they he she his her than then will would can could should "
    "tell remind previous conversation".split()
)


def _question(messages: list[ChatMessage]) -> str:
    for m in messages:
        found = re.search(r"^Question:\s*(.+)$", m.content, re.MULTILINE)
        if found:
            return found.group(1).strip()
    return messages[-1].content if messages else ""


def _content_words(text: str) -> list[str]:
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP))


def _controller_reply(messages: list[ChatMessage], schema: dict) -> dict:
    props = schema.get("properties", {})
    reply: dict = {}
    check = AGREEING.get(stage_of(schema))
    if check is not None:  # a check reading of an answer (agent/earn.py): agree
        return dict(check)
    if "relevant" in props:  # the batched relevance call: keep every result it was shown
        return {"relevant": list(props["relevant"].get("items", {}).get("enum", [1]))}
    if "items" in props:  # an aggregation's extraction: nothing extracted (the written answer follows)
        return {"items": []}
    if set(props) == {"answer"}:  # judge one result (agent/schemas.py JUDGE_SCHEMA): keep it
        return {"answer": props["answer"].get("enum", ["yes"])[0]}
    if "indices" in props:
        return {"indices": [1]}
    if "action" in props:
        reply = {"action": "finish_search", "keywords": []}
    elif "keywords" in props:
        reply = {"keywords": _content_words(_question(messages))[:6] or ["chat"]}
    for key in ("date_from", "date_to"):
        if key in props:
            reply[key] = None
    return reply


_TURN = re.compile(r"^\[(T\d+)\] (?:\S+ \S+ )?(.*)$", re.MULTILINE)


def _reading_reply(messages: list[ChatMessage], schema: dict) -> dict:
    """A reading: the excerpt's turn sharing most words with the question (at least two), its first
    twelve words copied; nothing found otherwise."""
    question = set(_content_words(_question(messages)))
    best, best_score = None, 1
    for label, line in _TURN.findall(messages[-1].content):
        score = len(question & set(_content_words(line)))
        if score > best_score:
            best, best_score = (label, line), score
    if best is None:
        return {"found": False, "items": []}
    props = schema["properties"]["items"]["items"]["properties"]
    body = best[1].split(": ", 1)[-1]
    item: dict = {"turn": best[0], "words": " ".join(body.split()[:12])[:100]}
    if "value" in props:
        item["value"] = None
    if "when" in props:
        item["when"] = None
    return {"found": True, "items": [item]}


def _answer_reply(messages: list[ChatMessage]) -> str:
    question = set(_content_words(_question(messages)))
    best, best_score = "", 0
    for line in messages[-1].content.splitlines():
        if line.startswith("Question:"):
            continue
        score = len(question & set(_content_words(line)))
        if score > best_score:
            best, best_score = line.strip(), score
    return best[:300] or "The information is not mentioned in the history."


def offline_backend() -> ScriptedBackend:
    """The scripted controller + answer model."""

    def respond(messages: list[ChatMessage], schema: dict | None):
        if schema is not None and "found" in schema.get("properties", {}):
            return _reading_reply(messages, schema)
        return _controller_reply(messages, schema) if schema is not None else _answer_reply(messages)

    return ScriptedBackend(responder=respond, name="scripted-offline", can_stream=False)


def offline_judge() -> ScriptedBackend:
    """A scripted judge following the protocol's reply format (containment decides the verdict)."""

    def respond(messages: list[ChatMessage], schema: dict | None) -> str:
        text = messages[-1].content
        gold = re.search(r"^Gold answer:\s*(.*)$", text, re.MULTILINE)
        gen = re.search(r"^Generated answer:\s*(.*)", text, re.MULTILINE | re.DOTALL)
        ok = bool(gold and gen and contains(gen.group(1), gold.group(1)))
        return "CORRECT: the answer contains the gold answer." if ok else "WRONG: the gold answer is missing."

    return ScriptedBackend(responder=respond, name="scripted-judge", can_stream=False)
