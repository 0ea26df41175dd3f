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


def test_the_extraction_prompt_has_no_item_to_copy():
    # measured: with {"tag": "S1 T2", "item": "...", "value": null} shown, the 1.5B model replied with
    # exactly that item, so every count, sum and date question fell back to a free sentence
    text = prompts.extract_prompt(HEAD, "## S1 | 2023-03-01\n[S1 T0] User: I serviced my road bike", "List.")
    (example,) = _examples(text)
    assert "S1 T2" not in example and '"item"' not in example
    assert all(word in text for word in ('"tag"', '"item"', '"value"'))


def test_the_relevance_prompt_has_no_numbers_to_copy():
    # measured: with {"relevant": [1, 2]} shown, 53 of 56 relevance replies of the 1.5B model (49 of 56
    # of the 0.5B model) over 24 questions were exactly [1, 2]
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
