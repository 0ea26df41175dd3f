"""Qwen Code, Factory Droid, Amp and Cursor agent sessions in each agent's own layout, for agent_readers_bench.py.

Every builder writes `sessions` sessions of `exchanges` prompt/reply pairs (every third reply
with a tool call and its result, as the agents record them) under `folder` and returns the
folder to ingest.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

Text = Callable[[], str]
_START = datetime(2025, 11, 1, tzinfo=UTC)


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), encoding="utf-8")


def build_qwen_code(folder: Path, sessions: int, exchanges: int, text: Text) -> Path:
    """`~/.qwen/projects/<cwd>/chats/<session>.jsonl` files of uuid-linked records with Gemini API parts."""
    chats = folder / ".qwen" / "projects" / "-home-user-src-app" / "chats"
    for s in range(sessions):
        sid = str(uuid.UUID(int=s + 1))
        _jsonl(chats / f"{sid}.jsonl", _qwen_records(sid, _START + timedelta(hours=3 * s), exchanges, text))
    return folder


def _qwen_records(sid: str, when: datetime, exchanges: int, text: Text) -> list[dict]:
    records: list[dict] = []
    for i in range(exchanges):
        prompt, out = text(), text()
        parts: list[dict] = [{"text": text()}]
        if i % 3 == 0:
            parts.append(
                {"functionCall": {"id": f"call_{i}", "name": "read_file", "args": {"path": "app.py"}}}
            )
        steps: list[tuple[str, dict, dict]] = [
            (
                "user",
                {"role": "user", "parts": [{"text": prompt}]},
                {"systemPayload": {"displayText": prompt}},
            ),
            ("assistant", {"role": "model", "parts": parts}, {"model": "qwen3-coder-plus"}),
        ]
        if i % 3 == 0:
            response = {"id": f"call_{i}", "name": "read_file", "response": {"output": out}}
            result = {"callId": f"call_{i}", "status": "success", "resultDisplay": out}
            steps.append(("tool_result", {"role": "user", "parts": [{"functionResponse": response}]},
                          {"toolCallResult": result}))  # fmt: skip
        for kind, message, extra in steps:
            uid = str(uuid.uuid4())
            parent = records[-1]["uuid"] if records else None
            rec = {"uuid": uid, "parentUuid": parent, "sessionId": sid, "timestamp": _iso(when), "type": kind}
            records.append(
                {**rec, "cwd": "/home/user/src/app", "version": "0.9.1", "message": message, **extra}
            )
        when += timedelta(minutes=2)
    return records


def build_factory_droid(folder: Path, sessions: int, exchanges: int, text: Text) -> Path:
    """`~/.factory/sessions/<cwd-slug>/<uuid>.jsonl` (session_start + message lines) with settings beside them."""
    slug = folder / ".factory" / "sessions" / "-home-user-src-app"
    for s in range(sessions):
        sid = str(uuid.UUID(int=s + 1))
        when = _START + timedelta(hours=3 * s)
        lines: list[dict] = [
            {"type": "session_start", "id": sid, "title": text()[:60], "cwd": "/home/user/src/app"}
        ]
        for i in range(exchanges):
            user = {"role": "user", "content": [{"type": "text", "text": text()}]}
            lines.append(
                {"type": "message", "id": str(uuid.uuid4()), "timestamp": _iso(when), "message": user}
            )
            blocks: list[dict] = [{"type": "text", "text": text()}]
            if i % 3 == 0:
                blocks.append(
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "Read", "input": {"file_path": "app.py"}}
                )
            reply = {"role": "assistant", "content": blocks}
            lines.append(
                {"type": "message", "id": str(uuid.uuid4()), "timestamp": _iso(when), "message": reply}
            )
            if i % 3 == 0:
                result = {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text()}],
                }
                lines.append(
                    {"type": "message", "id": str(uuid.uuid4()), "timestamp": _iso(when), "message": result}
                )
            when += timedelta(minutes=2)
        _jsonl(slug / f"{sid}.jsonl", lines)
        (slug / f"{sid}.settings.json").write_text('{"model": "claude-sonnet-4-5"}', encoding="utf-8")
    return folder


def build_amp(folder: Path, sessions: int, exchanges: int, text: Text) -> Path:
    """`~/.local/share/amp/threads/T-<id>.json`, one JSON document per thread."""
    threads = folder / ".local" / "share" / "amp" / "threads"
    threads.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        tid = f"T-{uuid.UUID(int=s + 1)}"
        when = _START + timedelta(hours=3 * s)
        messages: list[dict] = []
        for i in range(exchanges):
            ms = int(when.timestamp() * 1000)
            messages.append({"role": "user", "messageId": len(messages), "content": [{"type": "text", "text": text()}],
                             "meta": {"sentAt": ms}})  # fmt: skip
            blocks: list[dict] = [{"type": "text", "text": text()}]
            if i % 3 == 0:
                blocks.append(
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "Read", "input": {"path": "app.py"}}
                )
            messages.append({"role": "assistant", "messageId": len(messages), "content": blocks,
                             "state": {"type": "complete", "stopReason": "end_turn"}})  # fmt: skip
            if i % 3 == 0:
                run = {"status": "done", "result": {"content": text()}}
                messages.append({"role": "user", "messageId": len(messages),
                                 "content": [{"type": "tool_result", "toolUseID": f"toolu_{i}", "run": run}]})  # fmt: skip
            when += timedelta(minutes=2)
        thread = {"v": 1, "id": tid, "created": int(_START.timestamp() * 1000) + s, "title": text()[:60],
                  "messages": messages, "env": {"initial": {"trees": [{"uri": "file:///home/user/src/app"}]}}}  # fmt: skip
        (threads / f"{tid}.json").write_text(json.dumps(thread, indent=2), encoding="utf-8")
    return folder


def build_cursor_cli(folder: Path, sessions: int, exchanges: int, text: Text) -> Path:
    """`~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl` role lines with content blocks."""
    transcripts = folder / ".cursor" / "projects" / "home-user-src-app" / "agent-transcripts"
    for s in range(sessions):
        cid = str(uuid.UUID(int=s + 1))
        lines: list[dict] = []
        for i in range(exchanges):
            query = f"<user_query>\n{text()}\n</user_query>"
            lines.append({"role": "user", "message": {"content": [{"type": "text", "text": query}]}})
            blocks: list[dict] = [{"type": "text", "text": text()}]
            if i % 3 == 0:
                blocks.append(
                    {"type": "tool_use", "id": f"tool_{i}", "name": "Read", "input": {"path": "app.py"}}
                )
            lines.append({"role": "assistant", "message": {"content": blocks}})
            if i % 3 == 0:
                result = [{"type": "tool_result", "tool_use_id": f"tool_{i}", "content": text()}]
                lines.append({"role": "user", "message": {"content": result}})
            lines.append({"type": "turn_ended", "status": "success"})
        _jsonl(transcripts / cid / f"{cid}.jsonl", lines)
    return folder


BUILDERS = {
    "qwen_code": build_qwen_code,
    "factory_droid": build_factory_droid,
    "amp": build_amp,
    "cursor_cli": build_cursor_cli,
}
