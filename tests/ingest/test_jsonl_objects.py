"""The JSONL agent readers share one reading of object lines (base.jsonl_objects): a line that is not a
JSON object is skipped with a warning, and a file none of whose lines is an object is a clear skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import claude_code, codex, cursor_cli, factory_droid, qwen_code
from refind_desktop.ingest.base import ParseContext, jsonl_objects

READERS = {
    "claude_code": (claude_code, "session.jsonl"),
    "codex": (codex, "rollout-2026-03-01T09-00-00-abc.jsonl"),
    "cursor_cli": (cursor_cli, "agent.jsonl"),
    "factory_droid": (factory_droid, "session.jsonl"),
    "qwen_code": (qwen_code, "chat.jsonl"),
}


def test_object_lines_are_yielded_and_other_values_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"a": 1}\n[1, 2]\n"text"\n{"b": 2}\n', encoding="utf-8")
    ctx = ParseContext()
    assert list(jsonl_objects(path, ctx, "a log?")) == [(1, {"a": 1}), (4, {"b": 2})]
    assert [w for w in ctx.warnings if "is not a JSON object" in w] == [
        f"{path}: line 2 is not a JSON object; skipped",
        f"{path}: line 3 is not a JSON object; skipped",
    ]


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_file_without_one_object_line_is_a_clear_skip_for_every_reader(tmp_path: Path, name: str) -> None:
    module, filename = READERS[name]
    path = tmp_path / filename
    path.write_text('[1, 2]\n"not an object"\n42\n', encoding="utf-8")
    with pytest.raises(ParseError, match="no line is a JSON object; is this really"):
        list(module.parse(path, ParseContext()))


def test_an_empty_file_reads_as_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    assert list(jsonl_objects(path, ParseContext(), "a log?")) == []
