"""Bounded reading (issue 13 item 3) and decoding problems (issue 13 item 12) through the real pipeline."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from refind_desktop.cli import main
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.formats import get_parser
from refind_desktop.ingest.limits import Limits

MIB = 1 << 20
GOOD = [
    {"role": "user", "content": "When do I sow parsnips?", "timestamp": "2024-03-01T10:00:00Z"},
    {
        "role": "assistant",
        "content": "From late February once the soil is workable.",
        "timestamp": 1709287205,
    },
]


def jsonl(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def ingest_json(paths: list[Path], capsys) -> tuple[dict, dict]:
    capsys.readouterr()
    assert main(["ingest", "--json", *map(str, paths)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["stats", "--json"]) == 0
    return report, json.loads(capsys.readouterr().out)


def skipped_reason(stats: dict, path: Path) -> str:
    return next(s["reason"] for s in stats["skipped"] if s["path"] == str(path))


def zip_bomb(path: Path, unpacked_mib: int) -> Path:
    """A ChatGPT-looking export zip whose conversations.json is one giant string (1000:1 deflate)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("chat.html", "<html></html>")
        with zf.open("conversations.json", "w", force_zip64=True) as f:
            f.write(b'[{"title": "x", "create_time": 1, "mapping": {}, "pad": "')
            chunk = b"a" * MIB
            for _ in range(unpacked_mib):
                f.write(chunk)
            f.write(b'"}]')
    return path


def test_zip_bomb_is_skipped_and_the_rest_ingests(tmp_path: Path, capsys) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    bomb = zip_bomb(chats / "chatgpt-export.zip", 64)
    assert bomb.stat().st_size < MIB  # small on disk, 64 MiB unpacked
    (chats / "good.jsonl").write_text(jsonl(GOOD), encoding="utf-8")
    report, stats = ingest_json([chats], capsys)
    assert report["added_turns"] == 1
    reason = skipped_reason(stats, bomb)
    assert "compression ratio" in reason and "max_unpack_ratio" in reason and "zip bomb" in reason


def test_limits_are_settings(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    many = chats / "WhatsApp Chat - Many.zip"
    with zipfile.ZipFile(many, "w") as zf:
        zf.writestr("_chat.txt", "[14/07/2024, 09:15:40] Ann: hi\n[14/07/2024, 09:16:40] Bo: hello\n")
        for i in range(30):
            zf.writestr(f"{i:08d}-PHOTO-2024-07-14-09-18-00.jpg", b"x")
    long_string = chats / "conversations.json"
    long_string.write_text(
        json.dumps([{"title": "t", "create_time": 1, "mapping": {}, "pad": "b" * (3 * MIB)}]),
        encoding="utf-8",
    )
    (chats / "good.jsonl").write_text(jsonl(GOOD), encoding="utf-8")
    monkeypatch.setenv("REFIND_MAX_ARCHIVE_MEMBERS", "10")
    monkeypatch.setenv("REFIND_MAX_STRING_MB", "1")
    report, stats = ingest_json([chats], capsys)
    assert report["added_turns"] == 1
    assert "31 members, over the limit of 10 (setting max_archive_members)" in skipped_reason(stats, many)
    assert "longer than 1 MiB (setting max_string_mb)" in skipped_reason(stats, long_string)


def test_zst_bomb_is_bounded(tmp_path: Path) -> None:
    import zstandard

    from refind_desktop.errors import ParseError

    meta = {"timestamp": "2025-10-29T00:59:38.317Z", "type": "session_meta", "payload": {"id": "x"}}
    comp = zstandard.ZstdCompressor().compressobj()
    out = comp.compress(json.dumps(meta).encode() + b"\n")
    spaces = b" " * MIB
    for _ in range(64):
        out += comp.compress(spaces)
    out += comp.flush()
    bomb = tmp_path / "rollout-2025-10-29T10-12-00-x.jsonl.zst"
    bomb.write_bytes(out)
    assert len(out) < 64 * 1024
    assert detect_file(bomb) == "codex"
    with pytest.raises(ParseError, match="compression ratio over 200:1"):
        list(get_parser("codex")(bomb, ParseContext(limits=Limits())))


def test_utf16_jsonl_is_read(tmp_path: Path) -> None:
    for enc in ("utf-16", "utf-16-le"):  # with BOM, and BOM-less
        f = tmp_path / f"chat-{enc}.jsonl"
        f.write_bytes(jsonl(GOOD).encode(enc))
        assert detect_file(f) == "generic"
        ctx = ParseContext()
        (s,) = get_parser("generic")(f, ctx)
        assert s.turns[0].text.startswith("User: When do I sow parsnips?")
        assert ctx.warnings == []


def test_latin1_jsonl_warns(tmp_path: Path) -> None:
    f = tmp_path / "chat.jsonl"
    rows = [dict(GOOD[0], content="Wie lange brauchen Pastinaken zum Keimen? Grüße"), GOOD[1]]
    f.write_bytes(jsonl(rows).encode("latin-1"))
    ctx = ParseContext()
    (s,) = get_parser("generic")(f, ctx)
    assert "Grüße" in s.turns[0].text
    assert "\ufffd" not in s.turns[0].text
    assert ctx.warnings == [
        f"{f}: 1 line(s) are not UTF-8 and were read as cp1252 (Windows/latin-1); "
        "check accented characters, or re-save the file as UTF-8"
    ]


def test_markdown_with_a_long_first_message(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    pasted = "\n".join(f"log line {i}: pump pressure nominal" for i in range(4000))
    f.write_text(f"## User\n\n{pasted}\n\n## Assistant\n\nThe pump log looks healthy.\n", encoding="utf-8")
    assert f.stat().st_size > 64 * 1024
    assert detect_file(f) == "generic"
    (s,) = get_parser("generic")(f, ParseContext())
    assert s.turns[0].text.endswith("Assistant: The pump log looks healthy.")


def test_fifo_is_not_an_empty_file(tmp_path: Path, capsys) -> None:
    chats = tmp_path / "chats"
    chats.mkdir()
    fifo = chats / "pipe.jsonl"
    os.mkfifo(fifo)
    (chats / "good.jsonl").write_text(jsonl(GOOD), encoding="utf-8")
    report, stats = ingest_json([chats], capsys)
    assert report["added_turns"] == 1
    assert (
        skipped_reason(stats, fifo)
        == "not a regular file (named pipe (FIFO)); refind reads only regular files"
    )
