"""Fixtures for the operations tests (their helpers are in `helpers.ops`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.ops import jsonl


@pytest.fixture
def chats(tmp_path: Path) -> Path:
    """A folder with two small chats."""
    d = tmp_path / "chats"
    jsonl(d / "garden.jsonl", [("How deep to plant garlic?", "About five centimetres deep.")])
    jsonl(d / "bikes.jsonl", [("Which chain lube for rain?", "A wet lube.")])
    return d
