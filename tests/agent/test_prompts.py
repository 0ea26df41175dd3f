"""The model-facing prompts show the reply's shape without example values a small model copies."""

from __future__ import annotations

import json
import re

from refind_desktop.agent import prompts

HEAD = "Question: How many bikes did I service in March?\n"


def _examples(prompt: str) -> list[object]:
    """The JSON written after "Reply as JSON:" (the part a model may copy)."""
    tail = prompt.split("Reply as JSON:", 1)[1]
    start = tail.index("{")
    depth = 0
    for i, ch in enumerate(tail[start:], start):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return [tail[start : i + 1]]
    raise AssertionError("unbalanced example")


def test_the_reading_prompt_shows_the_reply_shape_without_an_item_to_copy():
    from datetime import UTC, datetime

    from refind_desktop.agent.evidence import Line, Passage
    from refind_desktop.agent.question import understand
    from refind_desktop.agent.reading import prompt
    from refind_desktop.types import TurnView

    when = datetime(2023, 3, 1, 9, 0, tzinfo=UTC)
    view = TurnView("s", 2, "user", when, "I serviced my road bike")
    passage = Passage("s", "bikes", when, (Line(view, view.text, True),), 0)
    q = understand("How much did I spend on bike service in total?", when, UTC)
    text = prompt(q, passage)
    (example,) = _examples(text)
    assert json.loads(example) == {"found": False, "items": []}  # the "no" reply, nothing to copy
    assert all(word in text for word in ('"turn"', '"words"', '"value"'))
    # the question and the task come first (the same for every passage: the model's cache keeps
    # them), the passage after, then the question again
    assert text.index("Task:") < text.index("<<<DATA") < text.rindex("Question:")
    assert "[T2] 2023-03-01 09:00 user: I serviced my road bike" in text


def test_the_relevance_prompt_has_no_numbers_to_copy():
    # a small model copies the numbers of an example reply instead of judging the results
    text = prompts.relevance_prompt(HEAD, ["1. [2023-03-01] User: serviced my bike", "2. [..] x"])
    (example,) = _examples(text)
    assert not re.search(r"\d", example)
    assert json.loads(example.replace("...", "")) == {"relevant": []}


def test_the_one_shot_take_note_prompt_has_no_numbers_to_copy():
    # the same copying as the relevance prompt's: the one-shot controller showed {"indices": [1, 3]}
    text = prompts.choose_prompt(HEAD, ["1. [2023-03-01] User: serviced my bike", "2. [..] x"], 1)
    (example,) = _examples(text)
    assert not re.search(r"\d", example)
    assert json.loads(example.replace("...", "")) == {"indices": []}
