"""ChatGPT export parser: visible branch, hidden nodes, zip/split/single-object inputs, truncation, streaming."""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest import chatgpt
from refind_desktop.ingest.base import ParseContext

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "chatgpt"
SOURDOUGH = "chatgpt:6631f000-0000-8000-9000-00000000a001"
CONVERSION = "chatgpt:67a9f000-0000-8000-9000-00000000b002"


def parse(path: Path, ctx: ParseContext | None = None) -> list:
    return list(chatgpt.parse(path, ctx or ParseContext()))


def utc(*args: int, us: int = 0) -> datetime:
    return datetime(*args, microsecond=us, tzinfo=UTC)


def test_fixture_visible_branch() -> None:
    ctx = ParseContext()
    sessions = parse(FIXTURES / "conversations.json", ctx)
    assert [s.session_id for s in sessions] == [SOURDOUGH, CONVERSION]
    s = sessions[0]
    assert s.title == "Sourdough starter troubleshooting"
    assert s.started_at == utc(2024, 5, 1, 8, 0, 0, us=118204)
    assert s.participants == ["user", "assistant"]
    assert [t.turn_id for t in s.turns] == ["n-u1", "n-u2"]
    assert s.turns[0].text == (
        "User: My starter smells like nail polish remover. Is it dead?\n\n"
        "Assistant: Not dead - that acetone smell means it is hungry. Feed it 1:1:1 twice a day:\n\n"
        "```text\n50 g starter + 50 g flour + 50 g water\n```"
    )
    assert "first draft" not in s.turns[0].text  # regenerated answer is off the current_node branch
    assert s.turns[0].timestamp == utc(2024, 5, 1, 8, 0, 0, us=520000)
    # image part -> marker on the caption's line; thoughts, python call, tool output, recap dropped
    assert s.turns[1].text == (
        "User: [image sediment://file_00000000aa11bb22cc33dd44ee55ff66] Here is the jar after 8 hours. "
        "How much did it rise?\n\n"
        "Assistant: It rose about 92% - close to doubling, so it is ready to bake with."
    )
    assert s.turns[1].timestamp == utc(2024, 5, 1, 8, 1, 10)
    assert s.turns[1].speaker == "user+assistant"
    assert [t.index for t in s.turns] == [0, 1]
    second = sessions[1]
    assert second.title == "Quick unit conversion"
    assert second.started_at == utc(2025, 2, 10, 14, 30)
    assert len(second.turns) == 1
    assert second.turns[0].text == (
        "User: How many grams is 2 cups of flour?\n\n"
        "Assistant: About 250 g (all-purpose, spooned and leveled)."
    )
    assert ctx.warnings == []


def test_edge_cases() -> None:
    ctx = ParseContext()
    sessions = parse(FIXTURES / "edge_cases.json", ctx)
    ids = [s.session_id for s in sessions]
    # 3 (no visible message) is skipped, 4 (mapping is a list) is malformed
    assert ids == [
        "chatgpt:e0000001-0000-4000-8000-000000000001",
        "chatgpt:e0000002-0000-4000-8000-000000000002",
        "chatgpt:e0000005-0000-4000-8000-000000000005",
    ]
    hidden, fallback, dangling = sessions
    # custom instructions, system, analysis channel, tool call, tether_quote dropped; citations stripped;
    # audio transcription kept; an unknown content type with parts kept; an empty user message skipped
    assert [t.text for t in hidden.turns] == [
        "User: Find me a rye recipe.\n\nAssistant: Try a 40% rye loaf with caraway.",
        "User: How long should it proof?\n\nAssistant: About 2 hours.\n\nAnything else?",
    ]
    # the user message has create_time null: the turn takes its reply's time
    assert hidden.turns[1].timestamp == utc(2024, 6, 1, 0, 0, 10)
    # no current_node: deepest leaf; a greeting before any user message is a turn of its own
    assert fallback.title == ""
    assert [t.text for t in fallback.turns] == [
        "Assistant: Hello! How can I help?",
        "User: What is a levain?\n\nAssistant: A pre-ferment made from starter.",
    ]
    assert fallback.turns[0].speaker == "assistant"
    assert [t.text for t in dangling.turns] == [
        "User: Is the parent gone?\n\nAssistant: Yes, but this branch survives."
    ]
    assert len(ctx.warnings) == 4
    assert "unknown content_type 'canvas_text'" in ctx.warnings[0]
    assert "conversation #4 is malformed" in ctx.warnings[1]
    assert "current_node 'ghost'" in ctx.warnings[2]
    assert "'lost-parent' is missing" in ctx.warnings[3]


def test_single_object_file() -> None:
    (s,) = parse(FIXTURES / "single_object.json")
    assert s.session_id == "chatgpt:f0000001-0000-4000-8000-000000000001"
    assert s.turns[0].text == "User: Is this one conversation?\n\nAssistant: Yes, a bare object."
    assert s.started_at == utc(2024, 6, 10, 6, 13, 20)


def test_split_export_files_and_folder() -> None:
    split = FIXTURES / "split"
    first = parse(split / "conversations-000.json")
    second = parse(split / "conversations-001.json")
    assert [s.session_id for s in first] == ["chatgpt:s0000000-0000-4000-8000-000000000000"]
    assert [s.session_id for s in second] == ["chatgpt:s0000001-0000-4000-8000-000000000001"]
    both = parse(split)
    assert [s.turns[0].text for s in both] == [
        "User: Shard zero question\n\nAssistant: Shard zero answer",
        "User: Shard one question\n\nAssistant: Shard one answer",
    ]


def test_zip_export(tmp_path: Path) -> None:
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("chat.html", "<html></html>")
        zf.writestr("user.json", "{}")
        zf.write(FIXTURES / "conversations.json", "export/conversations.json")
        zf.write(FIXTURES / "split" / "conversations-001.json", "export/conversations-001.json")
        zf.writestr("file_00000000aa11bb22cc33dd44ee55ff66-jar.jpg", b"\xff\xd8")
    ids = [s.session_id for s in parse(archive)]
    assert ids == ["chatgpt:s0000001-0000-4000-8000-000000000001", SOURDOUGH, CONVERSION]


def test_zip_without_conversations(tmp_path: Path) -> None:
    archive = tmp_path / "other.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("notes.txt", "hi")
    with pytest.raises(ParseError, match="no file matching"):
        parse(archive)


def test_truncated_file_keeps_read_conversations(tmp_path: Path) -> None:
    data = (FIXTURES / "conversations.json").read_bytes()
    cut = data.index(b'"Quick unit conversion"') + 40
    torn = tmp_path / "conversations.json"
    torn.write_bytes(data[:cut])
    ctx = ParseContext()
    sessions = parse(torn, ctx)
    assert [s.session_id for s in sessions] == [SOURDOUGH]
    assert len(ctx.warnings) == 1
    assert "reading stopped after 1 conversation(s)" in ctx.warnings[0]
    assert "truncated" in ctx.warnings[0]


def test_truncated_before_first_conversation_raises(tmp_path: Path) -> None:
    data = (FIXTURES / "conversations.json").read_bytes()
    torn = tmp_path / "conversations.json"
    torn.write_bytes(data[:500])
    with pytest.raises(ParseError, match="no conversation could be read"):
        parse(torn)


@pytest.mark.parametrize("content", [b"", b"hello, not json", b'"a string"'])
def test_not_json_raises(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "conversations.json"
    bad.write_bytes(content)
    with pytest.raises(ParseError, match=str(bad).replace("\\", "\\\\")):
        parse(bad)


def test_utf8_bom_and_wrapper_object(tmp_path: Path) -> None:
    convs = json.loads((FIXTURES / "conversations.json").read_text(encoding="utf-8"))
    wrapped = tmp_path / "conversations.json"
    wrapped.write_bytes(b"\xef\xbb\xbf" + json.dumps({"exported": "x", "conversations": convs}).encode())
    assert [s.session_id for s in parse(wrapped)] == [SOURDOUGH, CONVERSION]


def test_stream_large_export_in_bounded_memory(tmp_path: Path) -> None:
    """A 50k-conversation, ~30 MB export is streamed: Python memory stays a small fraction of the file.

    tracemalloc runs from before the first read until 10k sessions have come out, then stops (it
    slows every allocation ~10x). That window catches both ways of not streaming: loading the whole
    file up front (a peak of several times the file size at the first session) and accumulating
    conversations or sessions (a peak growing with the 10k sessions read). The remaining 40k
    sessions are then counted untraced.
    """
    big = tmp_path / "conversations.json"
    pad = "lorem ipsum " * 50
    count, traced = 50_000, 10_000
    with open(big, "w", encoding="utf-8") as f:
        f.write("[")
        for i in range(count):
            conv = {
                "id": f"c{i}",
                "current_node": "u",
                "mapping": {
                    "u": {
                        "message": {
                            "author": {"role": "user"},
                            "content": {"content_type": "text", "parts": [f"question {i} {pad}"]},
                        }
                    }
                },
            }
            f.write(("," if i else "") + json.dumps(conv))
        f.write("]")
    size = big.stat().st_size
    assert size > 30_000_000
    seen = 0
    last = None
    peak = 0
    tracemalloc.start()
    try:
        for session in chatgpt.parse(big, ParseContext()):
            seen += 1
            last = session
            if seen == traced:
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
    finally:
        tracemalloc.stop()
    assert seen == count
    assert last is not None and last.session_id == f"chatgpt:c{count - 1}"
    assert last.turns[0].text.startswith(f"User: question {count - 1} lorem ipsum")
    assert 0 < peak < size / 20, f"peak {peak} bytes for a {size}-byte file"
