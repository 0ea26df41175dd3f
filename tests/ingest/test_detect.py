"""Format detection and discovery: every fixture format, path rules, large-file sniffing, bad inputs."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from refind_desktop.errors import ParseError
from refind_desktop.ingest.agent_paths import AGENT_FORMATS
from refind_desktop.ingest.base import ParseContext
from refind_desktop.ingest.decoding import read_text
from refind_desktop.ingest.detect import detect_file
from refind_desktop.ingest.formats import FORMATS, get_parser
from refind_desktop.ingest.walker import Skipped, Source, discover

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "detect"

EXPECTED = {
    "chatgpt/conversations.json": "chatgpt",
    "claude_ai/conversations.json": "claude_ai",
    "claude_code/-home-dana-src-garden-app/5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11.jsonl": "claude_code",
    "codex/sessions/2025/08/14/rollout-2025-08-14T21-40-02-5b0e6c1d-2f3a-4b5c-8d9e-0a1b2c3d4e5f.jsonl": "codex",
    "codex/sessions/2025/10/29/rollout-2025-10-29T10-12-00-019a2f00-0000-7000-8000-00000000c0de.jsonl": "codex",
    "discord/Plant Swap - garden-chat [900000000000000002].json": "discord",
    "generic/conversation.json": "generic",
    "generic/messages.jsonl": "generic",
    "generic/sharegpt.json": "generic",
    "generic/transcript.md": "generic",
    "generic/transcript.txt": "generic",
    "locomo/locomo_mini.json": "locomo",
    "longmemeval/longmemeval_mini.json": "longmemeval",
    "openwebui/chat-export-1720000000000.json": "openwebui",
    "sillytavern/Seraphina - 2025-09-26@15h04m33s123ms.jsonl": "sillytavern",
    "telegram/result.json": "telegram",
    "whatsapp/WhatsApp Chat with Bo Chen.txt": "whatsapp",
    "whatsapp/_chat.txt": "whatsapp",
}


def _reason(path: Path) -> str:
    with pytest.raises(ParseError) as info:
        detect_file(path)
    return info.value.reason  # type: ignore[attr-defined]


@pytest.mark.parametrize("rel,fmt", sorted(EXPECTED.items()))
def test_fixture_detected(rel: str, fmt: str) -> None:
    assert detect_file(FIX / rel) == fmt


@pytest.mark.parametrize("rel,fmt", sorted(EXPECTED.items()))
def test_detected_by_content_under_a_neutral_name(rel: str, fmt: str, tmp_path: Path) -> None:
    """Path rules are shortcuts: the same bytes under an uninformative name are still recognised."""
    src = FIX / rel
    suffix = ".txt" if src.suffix in (".txt", ".md") else src.suffix
    dst = tmp_path / f"export{suffix}"
    shutil.copy(src, dst)
    assert detect_file(dst) == fmt


def test_slack_folder_is_one_source() -> None:
    assert detect_file(FIX / "slack") == "slack"
    sources, skipped = discover([FIX / "slack"])
    assert sources == [Source(FIX / "slack", "slack")]
    assert skipped == []


def test_discover_whole_fixture_tree_is_deterministic() -> None:
    sources, skipped = discover([FIX])
    got = {str(s.path.relative_to(FIX)): s.format for s in sources}
    assert got == {**EXPECTED, "slack": "slack"}
    assert skipped == []
    assert [s.path for s in sources] == [s.path for s in discover([FIX])[0]]
    assert [str(s.path.relative_to(FIX)) for s in sources][:3] == [
        "chatgpt/conversations.json",
        "claude_ai/conversations.json",
        "claude_code/-home-dana-src-garden-app/5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11.jsonl",
    ]


def test_every_detected_format_has_a_registered_name() -> None:
    assert set(EXPECTED.values()) | {"slack"} | set(AGENT_FORMATS) == set(FORMATS)
    assert get_parser("generic").__module__ == "refind_desktop.ingest.generic"
    assert get_parser("whatsapp").__module__ == "refind_desktop.ingest.whatsapp"
    with pytest.raises(ParseError, match="unknown chat format"):
        get_parser("myspace")


# --- path rules -------------------------------------------------------------------------------------


def test_claude_code_path_rule_wins_over_content(tmp_path: Path) -> None:
    proj = tmp_path / ".claude" / "projects" / "-home-x"
    (proj / "5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11" / "subagents").mkdir(parents=True)
    main = proj / "5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11.jsonl"
    agent = proj / "5e1f0c2a-7b1d-4c3e-9a8f-2d6b4e0c9a11" / "subagents" / "agent-a1b2.jsonl"
    old_agent = proj / "agent-1234abcd.jsonl"
    for p in (main, agent, old_agent):
        p.write_text('{"type":"summary","summary":"x"}\n', encoding="utf-8")
    assert [detect_file(p) for p in (main, agent, old_agent)] == ["claude_code"] * 3
    history = tmp_path / ".claude" / "history.jsonl"
    history.write_text('{"display":"hi","timestamp":1760299086653,"project":"/x"}\n', encoding="utf-8")
    assert "prompt history" in _reason(history)


def test_codex_path_rules(tmp_path: Path) -> None:
    day = tmp_path / ".codex" / "sessions" / "2025" / "10" / "29"
    day.mkdir(parents=True)
    rollout = day / "rollout-2025-10-29T10-12-00-x.jsonl"
    rollout.write_text('{"timestamp":"2025-10-29T09:12:00Z","type":"turn_context","payload":{}}\n')
    archived = tmp_path / ".codex" / "archived_sessions"
    archived.mkdir()
    (archived / "rollout-a.jsonl").write_text("{}\n")
    assert detect_file(rollout) == "codex"
    assert detect_file(archived / "rollout-a.jsonl") == "codex"


def test_whatsapp_file_name_confirms_a_single_message(tmp_path: Path) -> None:
    one = "12/03/2024, 14:22 - Ann Lee: hello\n"
    named = tmp_path / "WhatsApp Chat with Ann.txt"
    named.write_text(one, encoding="utf-8")
    plain = tmp_path / "notes.txt"
    plain.write_text(one, encoding="utf-8")
    assert detect_file(named) == "whatsapp"
    assert _reason(plain).startswith("unknown format: plain text")


# --- large files: only a 64 KiB window is read -------------------------------------------------------


def _big_text(n: int = 200_000) -> str:
    return "lorem ipsum " * (n // 12)


@pytest.mark.parametrize(
    "fmt,doc",
    [
        (
            "chatgpt",
            [
                {
                    "title": "t",
                    "create_time": 1.0,
                    "mapping": {"n": {"id": "n", "message": {"content": {"parts": [_big_text()]}}}},
                    "current_node": "n",
                }
            ],
        ),
        (
            "claude_ai",
            [{"uuid": "u", "name": "n", "chat_messages": [{"sender": "human", "text": _big_text()}]}],
        ),
        (
            "longmemeval",
            [
                {
                    "question_id": "q",
                    "haystack_dates": ["2023/05/20 (Sat) 02:21"],
                    "haystack_sessions": [[{"role": "user", "content": _big_text()}]],
                }
            ],
        ),
        (
            "locomo",
            [
                {
                    "sample_id": "s",
                    "conversation": {
                        "speaker_a": "A",
                        "speaker_b": "B",
                        "session_1": [{"speaker": "A", "text": _big_text()}],
                    },
                }
            ],
        ),
        (
            "openwebui",
            [
                {
                    "id": "i",
                    "user_id": "u",
                    "chat": {
                        "history": {
                            "messages": {
                                "m": {"id": "m", "parentId": None, "childrenIds": [], "content": _big_text()}
                            },
                            "currentId": "m",
                        }
                    },
                }
            ],
        ),
        ("discord", {"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [{"content": _big_text()}]}),
        (
            "telegram",
            {
                "name": "c",
                "type": "personal_chat",
                "id": 1,
                "messages": [
                    {
                        "id": 1,
                        "type": "message",
                        "date_unixtime": "1",
                        "from_id": "user1",
                        "text": _big_text(),
                    }
                ],
            },
        ),
        ("generic", {"title": "t", "messages": [{"role": "user", "content": _big_text()}]}),
        ("generic", [{"id": "x", "conversations": [{"from": "human", "value": _big_text()}]}]),
    ],
)
def test_large_json_detected_from_prefix(fmt: str, doc: object, tmp_path: Path, monkeypatch) -> None:
    for indent in (None, 1):
        path = tmp_path / f"big{indent}.json"
        path.write_text(json.dumps(doc, indent=indent), encoding="utf-8")
        assert path.stat().st_size > 64 * 1024
        monkeypatch.setattr(Path, "read_bytes", _forbidden)
        monkeypatch.setattr(Path, "read_text", _forbidden)
        assert detect_file(path) == fmt
        monkeypatch.undo()


def _forbidden(*_a: object, **_k: object) -> None:
    raise AssertionError("detection must not read a whole file")


@pytest.mark.parametrize(
    "fmt,first",
    [
        (
            "claude_code",
            {
                "parentUuid": None,
                "sessionId": "s",
                "uuid": "u",
                "type": "user",
                "message": {"role": "user", "content": _big_text()},
            },
        ),
        (
            "codex",
            {"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "instructions": _big_text()}},
        ),
        ("sillytavern", {"chat_metadata": {"note": _big_text()}, "user_name": "u", "character_name": "c"}),
        ("generic", {"role": "user", "content": _big_text()}),
    ],
)
def test_jsonl_with_huge_first_line(fmt: str, first: dict, tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(first) + "\n", encoding="utf-8")
    assert detect_file(path) == fmt


def test_json_vs_jsonl_by_content(tmp_path: Path) -> None:
    lines = '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    as_json = tmp_path / "chat.json"
    as_json.write_text(lines, encoding="utf-8")
    assert detect_file(as_json) == "generic"
    sessions = list(get_parser("generic")(as_json, ParseContext()))
    assert [t.text for t in sessions[0].turns] == ["User: hi\n\nAssistant: hello"]
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text(json.dumps({"title": "x", "messages": [{"role": "user", "content": "hi"}]}, indent=2))
    assert detect_file(pretty) == "generic"
    torn = tmp_path / "live.jsonl"
    torn.write_text(
        '{"type":"summary","summary":"s","leafUuid":"u"}\n{"parentUuid":null,"sessionId":"s",'
        '"uuid":"u","type":"user"}\n{"parentUuid":"u","sessionId',
        encoding="utf-8",
    )
    assert detect_file(torn) == "claude_code"


def test_gzip_benchmark_file(tmp_path: Path) -> None:
    gz = tmp_path / "longmemeval_s.json.gz"
    gz.write_bytes(gzip.compress((FIX / "longmemeval" / "longmemeval_mini.json").read_bytes()))
    assert detect_file(gz) == "longmemeval"
    other = tmp_path / "chat.json.gz"
    other.write_bytes(gzip.compress((FIX / "generic" / "conversation.json").read_bytes()))
    assert _reason(other) == "gzip-compressed generic file: decompress it first, then ingest the result"


# --- bad inputs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,data,reason",
    [
        ("empty.json", b"", "empty file"),
        ("blank.txt", b"  \n\n", "empty file (only whitespace)"),
        (
            "photo.jpg",
            b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(range(256)) * 4,
            "binary file (not a chat export)",
        ),
        ("db.sqlite", b"SQLite format 3\x00" + b"\x00" * 200, "binary file (not a chat export)"),
        (
            "bad.json",
            b'{"messages": [{"role": "user", "content": "hi"}',
            "not valid JSON: Expecting ',' delimiter",
        ),
        ("trail.json", b'[{"role": "user", "content": "hi"},]', "not valid JSON: "),
        (
            "cfg.json",
            b'{"theme": "dark", "font_size": 12}',
            "unknown format: JSON object with keys theme, font_size",
        ),
        ("list.json", b'["a", "b"]', "unknown format: JSON array of strings"),
        ("nums.json", b"[]", "empty JSON array (nothing to ingest)"),
        ("rows.jsonl", b'{"a": 1}\n{"a": 2}\n', "unknown format: JSON lines with keys a"),
        (
            "notes.md",
            b"# Shopping\n\n- milk\n- eggs\n",
            "unknown format: plain text",
        ),
        ("a.zst", b"\x28\xb5\x2f\xfd" + b"\x00" * 20, "zstd-compressed file"),
    ],
)
def test_bad_inputs(name: str, data: bytes, reason: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert _reason(path).startswith(reason)
    sources, skipped = discover([path])
    assert sources == [] and len(skipped) == 1 and skipped[0].reason.startswith(reason)


def test_slack_day_file_outside_export_gets_a_hint(tmp_path: Path) -> None:
    day = tmp_path / "2024-03-05.json"
    shutil.copy(FIX / "slack" / "general" / "2024-03-05.json", day)
    assert "Slack day file outside its export folder" in _reason(day)
    sources, skipped = discover([FIX / "slack" / "general" / "2024-03-05.json"])
    assert sources == [] and skipped[0].reason == f"part of a Slack export: ingest the folder {FIX / 'slack'}"


def test_missing_and_vanishing_files(tmp_path: Path, monkeypatch) -> None:
    sources, skipped = discover([tmp_path / "nope.json"])
    assert sources == [] and skipped == [Skipped(str(tmp_path / "nope.json"), "no such file or folder")]
    assert _reason(tmp_path / "gone.json") == "file vanished during ingest"
    (tmp_path / "link.json").symlink_to(tmp_path / "nowhere.json")
    assert discover([tmp_path]) == ([], [Skipped(str(tmp_path / "link.json"), "broken symbolic link")])


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "locked.json"
    path.write_text("{}")
    path.chmod(0)
    assert _reason(path).startswith("unreadable: Permission denied")


def test_non_utf8_text_is_detected_and_decoded_as_cp1252(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat with Zoë.txt"
    path.write_bytes("12/03/2024, 14:22 - Zoë: Café?\n12/03/2024, 14:23 - Ann: Sí\n".encode("cp1252"))
    assert detect_file(path) == "whatsapp"
    ctx = ParseContext()
    assert read_text(path, ctx).startswith("12/03/2024, 14:22 - Zoë: Café?")
    assert ctx.warnings == [f"{path}: not UTF-8, decoded as cp1252"]


@pytest.mark.parametrize(
    "encoding,bom",
    [("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b"")],
)
def test_bom_and_utf16_text(encoding: str, bom: bytes, tmp_path: Path) -> None:
    text = "User: héllo\nAssistant: hi ✓\n"
    path = tmp_path / "t.txt"
    path.write_bytes(bom + text.encode(encoding))
    ctx = ParseContext()
    assert read_text(path, ctx) == text
    assert ctx.warnings == []
    assert detect_file(path) == "generic"


# --- zips and export folders -------------------------------------------------------------------------


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_chatgpt_and_claude_zips(tmp_path: Path) -> None:
    chatgpt = (FIX / "chatgpt" / "conversations.json").read_bytes()
    claude = (FIX / "claude_ai" / "conversations.json").read_bytes()
    z1 = _zip(
        tmp_path / "chatgpt-export.zip",
        {
            "conversations.json": chatgpt,
            "chat.html": b"<html>",
            "user.json": b"{}",
            "file-abc-photo.png": b"\x89PNG",
        },
    )
    z2 = _zip(
        tmp_path / "data-2025-04-02-18-31-57-batch-0000.zip",
        {"conversations.json": claude, "users.json": b"[]", "projects.json": b"[]"},
    )
    z3 = _zip(
        tmp_path / "sharded.zip",
        {"export/conversations-000.json": chatgpt, "export/conversations-001.json": chatgpt},
    )
    z4 = _zip(tmp_path / "empty-chatgpt.zip", {"conversations.json": b"[]", "chat.html": b"<html>"})
    assert [detect_file(z) for z in (z1, z2, z3, z4)] == ["chatgpt", "claude_ai", "chatgpt", "chatgpt"]
    sources, skipped = discover([tmp_path])
    assert [(s.path.name, s.format) for s in sources] == [
        ("chatgpt-export.zip", "chatgpt"),
        ("data-2025-04-02-18-31-57-batch-0000.zip", "claude_ai"),
        ("empty-chatgpt.zip", "chatgpt"),
        ("sharded.zip", "chatgpt"),
    ]
    assert skipped == []


def test_other_zips_are_skipped_with_reasons(tmp_path: Path) -> None:
    photos = _zip(tmp_path / "photos.zip", {"a.jpg": b"x", "b.jpg": b"y"})
    slack = _zip(
        tmp_path / "slack.zip",
        {"channels.json": b"[]", "users.json": b"[]", "general/2024-03-05.json": b"[]"},
    )
    whatsapp = _zip(tmp_path / "WhatsApp Chat - Plant Swap.zip", {"_chat.txt": b"x"})
    corrupt = tmp_path / "broken.zip"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    weird = _zip(tmp_path / "weird.zip", {"conversations.json": b'{"a": 1}'})
    assert _reason(photos) == "zip archive that is not a ChatGPT or Claude.ai export (contains: a.jpg, b.jpg)"
    assert detect_file(slack) == "slack"  # read in place since issue 12 (defect 7)
    assert _reason(whatsapp) == "zip holds _chat.txt without WhatsApp message lines"
    assert _reason(corrupt).startswith("corrupt or unsupported zip archive")
    assert _reason(weird).startswith(
        "zip holds conversations.json but unknown format: JSON object with keys a"
    )


def test_export_folder_companions_are_silent(tmp_path: Path) -> None:
    gpt = tmp_path / "chatgpt-export"
    (gpt / "dalle-generations").mkdir(parents=True)
    shutil.copy(FIX / "chatgpt" / "conversations.json", gpt / "conversations-000.json")
    shutil.copy(FIX / "chatgpt" / "conversations.json", gpt / "conversations-001.json")
    for name in ("user.json", "message_feedback.json", "shared_conversations.json", "export_manifest.json"):
        (gpt / name).write_text("{}")
    (gpt / "chat.html").write_text("<html></html>")
    (gpt / "file-AbC123-photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (gpt / "dalle-generations" / "img.webp").write_bytes(b"RIFF\x00\x00WEBP")
    (gpt / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    claude = tmp_path / "data-2025-04-02"
    claude.mkdir()
    shutil.copy(FIX / "claude_ai" / "conversations.json", claude / "conversations.json")
    for name in ("users.json", "projects.json", "memories.json"):
        (claude / name).write_text("[]")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "x.json").write_text("{}")
    (tmp_path / "todo.txt").write_text("buy milk\n")
    sources, skipped = discover([tmp_path])
    assert [(str(s.path.relative_to(tmp_path)), s.format) for s in sources] == [
        ("chatgpt-export/conversations-000.json", "chatgpt"),
        ("chatgpt-export/conversations-001.json", "chatgpt"),
        ("data-2025-04-02/conversations.json", "claude_ai"),
    ]
    assert skipped == [
        Skipped(
            str(tmp_path / "todo.txt"),
            "unknown format: plain text, 1 line, not a known chat format "
            "(no WhatsApp date prefixes or User:/Assistant: labels)",
        )
    ]


def test_telegram_and_whatsapp_media_are_silent(tmp_path: Path) -> None:
    tg = tmp_path / "ChatExport_2024-03-20"
    (tg / "photos").mkdir(parents=True)
    shutil.copy(FIX / "telegram" / "result.json", tg / "result.json")
    (tg / "photos" / "photo_1.jpg").write_bytes(b"\xff\xd8\xff\x00")
    (tg / "export_results.html").write_text("<html></html>")
    wa = tmp_path / "WhatsApp Chat - Plant Swap"
    wa.mkdir()
    shutil.copy(FIX / "whatsapp" / "_chat.txt", wa / "_chat.txt")
    (wa / "00000012-PHOTO-2024-03-12-14-24-00.jpg").write_bytes(b"\xff\xd8\xff\x00")
    (wa / "IMG-20240312-WA0007.jpg").write_bytes(b"\xff\xd8\xff\x00")
    (wa / "holiday.jpg").write_bytes(b"\xff\xd8\xff\x00")
    sources, skipped = discover([tmp_path])
    assert [(s.path.name, s.format) for s in sources] == [
        ("result.json", "telegram"),
        ("_chat.txt", "whatsapp"),
    ]
    assert skipped == [Skipped(str(wa / "holiday.jpg"), "binary file (not a chat export)")]


def test_companion_names_outside_an_export_are_reported(tmp_path: Path) -> None:
    (tmp_path / "user.json").write_text('{"email": "a@b.c"}')
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    _, skipped = discover([tmp_path])
    assert [(Path(s.path).name, s.reason) for s in skipped] == [
        ("photo.png", "binary file (not a chat export)"),
        ("user.json", "unknown format: JSON object with keys email"),
    ]


def test_discover_dedupes_paths_and_follows_given_files(tmp_path: Path) -> None:
    shutil.copy(FIX / "generic" / "transcript.md", tmp_path / "t.md")
    sources, skipped = discover([tmp_path, tmp_path / "t.md", tmp_path])
    assert sources == [Source(tmp_path / "t.md", "generic")] and skipped == []


def test_bracketed_text_that_is_not_json(tmp_path: Path) -> None:
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[project]\nname = "x"\n')
    assert _reason(toml) == (
        "unknown format: plain text, 2 lines, not a known chat format "
        "(no WhatsApp date prefixes or User:/Assistant: labels)"
    )
    md = tmp_path / "chat.md"
    md.write_text("[link](http://x)\n\n**User:** hi\n\n**Assistant:** hello\n")
    assert detect_file(md) == "generic"
    assert [t.text for t in next(get_parser("generic")(md, ParseContext())).turns] == [
        "User: hi\n\nAssistant: hello"
    ]


def _claude_code_with_a_long_first_message(path: Path, chars: int) -> Path:
    """A Claude Code transcript whose first user message is a pasted log of `chars` characters, with the
    record's keys in the order that puts the long message before parentUuid."""
    log = "".join(f"2026-03-01T10:00:{i % 60:02d} INFO worker {i} heartbeat ok\n" for i in range(chars // 40))
    sid = "bb22cc33-0000-4000-8000-00000000d002"
    first = {"type": "user", "uuid": "u9", "sessionId": sid, "message": {"role": "user", "content": log}}
    first["parentUuid"] = None
    reply = {
        "parentUuid": "u9",
        "sessionId": sid,
        "type": "assistant",
        "uuid": "a9",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "The linker step failed."}]},
    }
    path.write_text(json.dumps(first) + "\n" + json.dumps(reply) + "\n", encoding="utf-8")
    return path


def test_a_jsonl_is_decided_by_its_records_however_long_line_one_is(tmp_path: Path) -> None:
    path = _claude_code_with_a_long_first_message(tmp_path / "buildlog.jsonl", 3_000_000)
    assert path.stat().st_size > 3_000_000
    assert detect_file(path) == "claude_code"
    (session,) = list(get_parser("claude_code")(path, ParseContext()))
    assert "linker step failed" in session.turns[0].text and len(session.turns[0].text) > 2_900_000


def test_a_first_line_over_the_string_limit_stays_undecided(tmp_path: Path) -> None:
    from refind_desktop.ingest.limits import Limits

    path = _claude_code_with_a_long_first_message(tmp_path / "huge.jsonl", 3_000_000)
    with pytest.raises(ParseError, match="unknown format: JSON object with keys type, uuid, sessionId"):
        detect_file(path, Limits(max_string_bytes=1 << 20))
