"""Copilot CLI, Pi, OpenHands, Kimi CLI and Antigravity sessions in each agent's own layout, for the bench.

Each builder writes `sessions` sessions of `exchanges` prompt/reply pairs (texts from `text()`)
with the bookkeeping lines that agent writes around them (session starts, turn markers,
checkpoints, usage, the wire log, a system prompt event), and returns the folder to ingest.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def _ids(prefix: str, n: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{prefix}/{n}"))


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def build_copilot_cli(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.copilot/session-state/<id>/events.jsonl` with workspace.yaml."""
    root = folder / ".copilot" / "session-state"
    for s in range(sessions):
        sid, t = _ids("copilot", s), START + timedelta(hours=3 * s)
        rows = [
            {
                "type": "session.start",
                "data": {"sessionId": sid, "version": 1, "producer": "copilot-agent", "startTime": _iso(t)},
                "id": f"{s}-0",
                "timestamp": _iso(t),
                "parentId": None,
            }
        ]
        for i in range(exchanges):
            at = _iso(t + timedelta(minutes=2 * i))
            for kind, data in (
                ("user.message", {"content": text(), "attachments": []}),
                ("assistant.turn_start", {"turnId": str(i)}),
                ("assistant.message", {"messageId": f"m{i}", "content": text(), "toolRequests": []}),
                ("assistant.turn_end", {"turnId": str(i)}),
            ):
                rows.append(
                    {"type": kind, "data": data, "id": f"{s}-{len(rows)}", "timestamp": at, "parentId": None}
                )
        _jsonl(root / sid / "events.jsonl", rows)
        (root / sid / "workspace.yaml").write_text(f"id: {sid}\ncwd: /home/user/src/app\n", encoding="utf-8")
    return folder


def build_pi(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl`, version 3 entries."""
    root = folder / ".pi" / "agent" / "sessions" / "--home-user-src-app--"
    for s in range(sessions):
        sid, t = _ids("pi", s), START + timedelta(hours=3 * s)
        rows: list[dict] = [{"type": "session", "version": 3, "id": sid, "timestamp": _iso(t), "cwd": "/x"}]
        parent = None
        for i in range(exchanges):
            for role in ("user", "assistant"):
                eid = f"{s:04x}{len(rows):04x}"
                at = t + timedelta(minutes=2 * i + (role == "assistant"))
                msg = {
                    "role": role,
                    "content": [{"type": "text", "text": text()}],
                    "timestamp": int(at.timestamp() * 1000),
                }
                if role == "assistant":
                    msg.update({"provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop"})
                rows.append(
                    {"type": "message", "id": eid, "parentId": parent, "timestamp": _iso(at), "message": msg}
                )
                parent = eid
        _jsonl(root / f"{_iso(t).replace(':', '-')}_{sid}.jsonl", rows)
    return folder


def build_openhands(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.openhands/conversations/<id>/` with base_state.json and one file per event."""
    root = folder / ".openhands" / "conversations"
    for s in range(sessions):
        conv, t = _ids("openhands", s).replace("-", ""), START + timedelta(hours=3 * s)
        events = root / conv / "events"
        events.mkdir(parents=True)
        (root / conv / "base_state.json").write_text(json.dumps({"id": conv, "agent": {"kind": "Agent"}}))
        rows = [
            {
                "kind": "SystemPromptEvent",
                "source": "agent",
                "system_prompt": {"type": "text", "text": "You are OpenHands agent."},
            }
        ]
        for _ in range(exchanges):
            for source, role in (("user", "user"), ("agent", "assistant")):
                rows.append(
                    {
                        "kind": "MessageEvent",
                        "source": source,
                        "llm_message": {"role": role, "content": [{"type": "text", "text": text()}]},
                    }
                )
        for n, row in enumerate(rows):
            eid = _ids(conv, n)
            row.update({"id": eid, "timestamp": (t + timedelta(seconds=30 * n)).isoformat()})
            (events / f"event-{n:05d}-{eid}.json").write_text(json.dumps(row), encoding="utf-8")
    return folder


def build_kimi_cli(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.kimi/sessions/<hash>/<id>/context.jsonl` with its wire.jsonl."""
    root = folder / ".kimi" / "sessions" / "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c"
    for s in range(sessions):
        sid, t = _ids("kimi", s), START + timedelta(hours=3 * s)
        context: list[dict] = [{"role": "_system_prompt", "content": "You are Kimi CLI."}]
        wire: list[dict] = [{"type": "metadata", "protocol_version": "1.2"}]
        for i in range(exchanges):
            prompt = text()
            context += [
                {"role": "_checkpoint", "id": i},
                {"role": "user", "content": prompt},
                {"role": "assistant", "content": [{"type": "text", "text": text()}]},
                {"role": "_usage", "token_count": 1000 * (i + 1)},
            ]
            at = (t + timedelta(minutes=2 * i)).timestamp()
            wire.append(
                {"timestamp": at, "message": {"type": "TurnBegin", "payload": {"user_input": prompt}}}
            )
            wire.append({"timestamp": at + 1, "message": {"type": "StepBegin", "payload": {"n": 1}}})
        _jsonl(root / sid / "context.jsonl", context)
        _jsonl(root / sid / "wire.jsonl", wire)
    return folder


def build_kimi_code(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.kimi-code/sessions/<work dir>/<session>/agents/main/wire.jsonl` with state.json."""
    root = folder / ".kimi-code" / "sessions" / "wd_app_3f2a1b0c9d8e"
    for s in range(sessions):
        sid, t = f"session_{_ids('kimi-code', s)}", int((START + timedelta(hours=3 * s)).timestamp() * 1000)
        rows: list[dict] = [{"type": "metadata", "protocol_version": "1.4", "created_at": t}]
        for i in range(exchanges):
            at, prompt = t + 120_000 * i, [{"type": "text", "text": text()}]
            message = {"role": "user", "content": prompt, "origin": {"kind": "user"}, "toolCalls": []}
            rows += [
                {"type": "turn.prompt", "input": prompt, "origin": {"kind": "user"}, "time": at},
                {"type": "context.append_message", "message": message, "time": at + 1},
                {
                    "type": "context.append_loop_event",
                    "event": {"type": "step.begin", "turnId": str(i)},
                    "time": at + 2,
                },
                {
                    "type": "context.append_loop_event",
                    "event": {
                        "type": "content.part",
                        "turnId": str(i),
                        "part": {"type": "text", "text": text()},
                    },
                    "time": at + 3,
                },
                {"type": "turn.ended", "reason": "completed", "time": at + 4},
            ]
        _jsonl(root / sid / "agents" / "main" / "wire.jsonl", rows)
        (root / sid / "state.json").write_text(json.dumps({"title": f"session {s}"}), encoding="utf-8")
    return folder


def build_antigravity(folder: Path, sessions: int, exchanges: int, text: Callable[[], str]) -> Path:
    """`~/.gemini/antigravity-cli/brain/<id>/.system_generated/logs/transcript_full.jsonl`."""
    brain = folder / ".gemini" / "antigravity-cli" / "brain"
    for s in range(sessions):
        cid, t = _ids("antigravity", s), START + timedelta(hours=3 * s)
        rows = []
        for i in range(exchanges):
            at = t + timedelta(minutes=2 * i)
            request = f"<USER_REQUEST>\n{text()}\n</USER_REQUEST>"
            rows.append(
                {
                    "step_index": len(rows),
                    "source": "USER_EXPLICIT",
                    "type": "USER_INPUT",
                    "status": "DONE",
                    "created_at": _iso(at),
                    "content": request,
                }
            )
            rows.append(
                {
                    "step_index": len(rows),
                    "source": "MODEL",
                    "type": "PLANNER_RESPONSE",
                    "status": "DONE",
                    "created_at": _iso(at + timedelta(seconds=20)),
                    "content": text(),
                }
            )
        _jsonl(brain / cid / ".system_generated" / "logs" / "transcript_full.jsonl", rows)
    return folder


BUILDERS = {
    "copilot_cli": build_copilot_cli,
    "pi": build_pi,
    "openhands": build_openhands,
    "kimi_cli": build_kimi_cli,
    "kimi_code": build_kimi_code,
    "antigravity": build_antigravity,
}
