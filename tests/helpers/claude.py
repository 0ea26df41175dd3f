"""Synthetic Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`) written by tests."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

__all__ = ["PROJECT", "claude_lines", "claude_session"]

PROJECT = ".claude/projects/-home-dana-src-app"
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def claude_lines(sid: str, exchanges: list[tuple[str, str, str]], start_minute: int = 0) -> list[str]:
    """JSONL lines of one session: (uuid prefix, prompt, reply) per exchange; the user line's uuid is
    `<prefix>-u`, the reply's `<prefix>-a`, so two files can share (replay) exchanges exactly."""
    lines, parent = [], None
    for i, (uid, prompt, reply) in enumerate(exchanges):
        minute = start_minute + 2 * i
        for role, text, suffix in (("user", prompt, "u"), ("assistant", reply, "a")):
            stamp = (T0 + timedelta(minutes=minute + (suffix == "a"))).isoformat().replace("+00:00", "Z")
            message = (
                {"role": "user", "content": text}
                if role == "user"
                else {"id": f"msg_{uid}", "role": "assistant", "content": [{"type": "text", "text": text}]}
            )
            lines.append(
                json.dumps(
                    {
                        "type": role,
                        "uuid": f"{uid}-{suffix}",
                        "parentUuid": parent,
                        "sessionId": sid,
                        "timestamp": stamp,
                        "isSidechain": False,
                        "cwd": "/home/dana/src/app",
                        "message": message,
                    }
                )
            )
            parent = f"{uid}-{suffix}"
    return lines


def claude_session(
    root: Path, sid: str, exchanges: list[tuple[str, str, str]], start_minute: int = 0
) -> Path:
    """Write one session file under `root`'s Claude Code project folder; returns its path."""
    path = root / PROJECT / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(claude_lines(sid, exchanges, start_minute)) + "\n", encoding="utf-8")
    return path
