"""Generic reader: JSON/JSONL messages, grouping, ShareGPT, Markdown and plain-text transcripts."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest.base import ParseContext, stable_id
from refind_desktop.ingest.generic import count_labels, parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "generic"


def _parse(name: str | Path, ctx: ParseContext | None = None) -> list:
    path = name if isinstance(name, Path) else FIX / name
    return list(parse(path, ctx or ParseContext()))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_json_object_with_messages() -> None:
    [s] = _parse("conversation.json")
    assert s.session_id == "generic:" + stable_id("conversation.json", "conv-generic-1")
    assert s.title == "Basil care"
    assert s.started_at == utc(2024, 7, 1, 10)
    assert s.participants == ["user", "assistant"]
    [t] = s.turns
    assert (
        t.text == "User: When should I pinch basil?\n\nAssistant: Pinch above the second set of true leaves."
    )
    assert t.timestamp == utc(2024, 7, 1, 10, 0, 5)
    assert t.turn_id == s.session_id + ":0"


def test_jsonl_mixed_timestamps_parts_and_system_line() -> None:
    ctx = ParseContext()
    [s] = _parse("messages.jsonl", ctx)
    assert s.session_id == "generic:" + stable_id("messages.jsonl", "When should I pinch basil?")
    assert s.title == "messages"
    assert [t.text for t in s.turns] == [
        "User: When should I pinch basil?\n\nAssistant: Pinch above the second set of true leaves once the "
        "plant is ~15 cm tall.",
        "User: And mint?\n\nAssistant: Same idea - pinch tips every couple of weeks to keep it bushy.",
    ]
    assert [t.timestamp for t in s.turns] == [utc(2024, 7, 1, 10, 0, 5), utc(2024, 7, 1, 10, 0, 30)]
    assert s.started_at == utc(2024, 7, 1, 10, 0, 5)
    assert ctx.warnings == []  # the system line is skipped silently


def test_jsonl_grouped_by_conversation_key_with_bad_lines() -> None:
    ctx = ParseContext(tz=ZoneInfo("Europe/Berlin"))
    trip, soup, loose = _parse("grouped.jsonl", ctx)
    assert trip.session_id == "generic:" + stable_id("grouped.jsonl", "trip")
    assert soup.session_id == "generic:" + stable_id("grouped.jsonl", "soup")
    assert (trip.title, soup.title, loose.title) == ("grouped (trip)", "grouped (soup)", "grouped")
    assert [(t.text, t.timestamp, t.turn_id) for t in trip.turns] == [
        ("User: Best month for Lisbon?\n\nAssistant: May or late September.", utc(2024, 5, 1, 7), "m1"),
        (
            "User: And for Porto?\n\nAssistant: Also May.\nPack a jacket.",
            utc(2024, 5, 1, 7, 1),
            trip.session_id + ":1",
        ),  # naive "time" read in ctx.tz (Berlin, UTC+2)
    ]
    assert [(t.text, t.timestamp) for t in soup.turns] == [
        ("User: Miso soup ratio?\n\nAssistant: About 1 tbsp miso per cup of dashi.", utc(2024, 5, 1, 8))
    ]
    assert [t.text for t in loose.turns] == ["User: a line without a conversation key"]
    path = FIX / "grouped.jsonl"
    assert ctx.warnings == [
        f"{path}:5: malformed JSON line skipped (Expecting ',' delimiter)",
        f"{path}:6: unknown role 'narrator', message skipped",
        f"{path}:11: torn last line skipped (Unterminated string starting at)",
    ]


def test_json_array_of_conversations() -> None:
    plants, untitled = _parse("conversations.json")  # the third conversation is empty: no session
    assert plants.session_id == "generic:" + stable_id("conversations.json", "17")
    assert plants.title == "Houseplants"
    assert plants.started_at == datetime(2024, 7, 1, 10, 0, 0, 500000, tzinfo=UTC)
    assert [(t.text, t.speaker) for t in plants.turns] == [
        ("Assistant: Hi! Ask me about plants.", "assistant"),  # greeting before any user message
        (
            "User: Monstera light?\n\nAssistant: Bright, indirect.\n\nAvoid harsh afternoon sun.",
            "user+assistant",
        ),
    ]
    assert untitled.title == "Untitled chat"
    assert untitled.session_id == "generic:" + stable_id("conversations.json", "1", "Is 2+2 four?")
    assert [(t.text, t.timestamp) for t in untitled.turns] == [
        ("User: Is 2+2 four?\n\nAssistant: Yes.", datetime(2024, 7, 1, 10, 0, 34, 512000, tzinfo=UTC))
    ]


def test_sharegpt_array_and_jsonl() -> None:
    [s] = _parse("sharegpt.json")
    assert s.session_id == "generic:" + stable_id("sharegpt.json", "sg-1")
    assert s.title == "sharegpt (sg-1)"
    assert [t.text for t in s.turns] == [
        "User: Name three herbs that grow well indoors.\n\nAssistant: Basil, chives and parsley."
    ]
    peru, chile = _parse("sharegpt.jsonl")
    assert peru.session_id == "generic:" + stable_id("sharegpt.jsonl", "a-1")
    assert chile.session_id == "generic:" + stable_id("sharegpt.jsonl", "2", "Capital of Chile?")
    assert [t.text for t in chile.turns] == [
        "User: Capital of Chile?\n\nAssistant: Santiago.",
        "User: Thanks",
    ]


def test_sharegpt_single_object(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(
        '{"id": "z", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}',
        encoding="utf-8",
    )
    [s] = _parse(path)
    assert (s.session_id, [t.text for t in s.turns]) == (
        "generic:" + stable_id("one.json", "z"),
        ["User: hi\n\nAssistant: hello"],
    )


def test_markdown_headings_and_code_fence() -> None:
    [s] = _parse("transcript.md")
    assert s.title == "Basil care"
    assert s.started_at == utc(2024, 7, 1, 10)  # from "_Exported 2024-07-01 10:00_"
    assert [t.text for t in s.turns] == [
        "User: When should I pinch basil?\n\nAssistant: Pinch above the second set of true leaves once the "
        "plant is about 15 cm tall:\n\n```text\ncut here -> just above a leaf node\n```",
        "User: And mint?\n\nAssistant: Same idea.",
    ]
    assert s.session_id == "generic:" + stable_id("transcript.md", "When should I pinch basil?")


def test_markdown_bold_labels_front_matter_comments_and_fenced_labels() -> None:
    [s] = _parse("bold.md")
    assert s.title == "Sourdough help"
    assert s.started_at == utc(2024, 6, 1, 8, 30)
    assert [(t.text, t.timestamp) for t in s.turns] == [
        (
            "User: My loaf is flat.\n<!-- ignored: not at the start of a message body -->\n\n"
            "Assistant: Try a longer bulk ferment:\n\n```\nUser: this fenced line is code, not a new message\n"
            "Assistant: neither is this\n```\n\nThen shape tighter.",
            utc(2024, 6, 1, 8, 31),
        ),
        ("User: Thanks!\n\nAssistant: You're welcome.", None),
    ]
    assert count_labels((FIX / "bold.md").read_text()) == 4


def test_plain_text_transcripts() -> None:
    [s] = _parse("transcript.txt")
    assert s.title == "transcript"
    assert [t.text for t in s.turns] == [
        "User: When should I pinch basil?\n\nAssistant: Pinch above the second set of true leaves.\n"
        "It helps the plant branch out.",
        "User: And mint?\n\nAssistant: Same idea - pinch the tips every couple of weeks.",
    ]
    [crlf] = _parse("crlf.txt")
    assert [t.text for t in crlf.turns] == ["User: line one\nstill user\n\nAssistant: reply"]


def test_same_file_same_ids_anywhere(tmp_path: Path) -> None:
    for name in ("conversation.json", "messages.jsonl", "transcript.md", "grouped.jsonl"):
        shutil.copy(FIX / name, tmp_path / name)
        first = [s.session_id for s in _parse(name)]
        again = [s.session_id for s in _parse(tmp_path / name)]
        assert first == again and len(set(first)) == len(first)


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="no speaker labels found"):
        _parse("nolabels.md")
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": [', encoding="utf-8")
    with pytest.raises(ParseError, match="not valid JSON"):
        _parse(bad)
    other = tmp_path / "other.json"
    other.write_text('{"theme": "dark"}', encoding="utf-8")
    with pytest.raises(ParseError, match="without a 'messages' or 'conversations' list"):
        _parse(other)
    broken_array = tmp_path / "broken.json"
    broken_array.write_text('[{"role": "user", "content": "hi"}, {"role": ', encoding="utf-8")
    with pytest.raises(ParseError, match="not valid JSON"):
        _parse(broken_array)
