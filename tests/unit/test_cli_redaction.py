"""`refind search/show/sessions/stats` print secrets as [redacted: KIND] markers, in the terminal and in
`--json`; `--reveal` (one command) and REFIND_REDACT=0 (the setting) show them."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

from refind_desktop.cli import main

R = random.Random(7)
GHP = "ghp_" + "".join(R.choice(string.ascii_letters + string.digits) for _ in range(36))
AWS = "AKIA" + "".join(R.choice(string.ascii_uppercase + string.digits) for _ in range(16))
SID = "aa11bb22-0000-4000-8000-00000000d001"


def write_transcript(folder: Path) -> Path:
    """A coding-agent transcript whose first user line (the session title) is a token paste."""
    lines = [
        {
            "parentUuid": None,
            "sessionId": SID,
            "type": "user",
            "uuid": "u1",
            "timestamp": "2026-03-01T10:00:00Z",
            "message": {"role": "user", "content": f"GITHUB_TOKEN={GHP}\nwhy does the release upload fail?"},
        },
        {
            "parentUuid": "u1",
            "sessionId": SID,
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2026-03-01T10:00:05Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Your AWS key {AWS} is old."}],
            },
        },
    ]
    path = folder / "release.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def run(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_terminal_and_json_output_are_redacted_unless_revealed(tmp_path, capsys, monkeypatch):
    run(capsys, "ingest", str(write_transcript(tmp_path)))
    sid = f"claude-code:{SID}"
    outputs = {
        "search": run(capsys, "search", "release", "upload"),
        "search --json": run(capsys, "search", "release", "upload", "--json"),
        "show": run(capsys, "show", sid),
        "show --json": run(capsys, "show", sid, "--json"),
        "sessions": run(capsys, "sessions"),
        "sessions --json": run(capsys, "sessions", "--json"),
    }
    for name, out in outputs.items():
        assert GHP not in out and AWS not in out, name
        assert "[redacted: GitHub Token]" in out, name
    assert "[redacted: AWS Access Key]" in outputs["show"]
    assert json.loads(outputs["search --json"])["results"][0]["session_id"] == sid  # ids stay as they are

    for argv in (("search", "release", "upload"), ("show", sid), ("sessions",), ("show", sid, "--json")):
        out = run(capsys, *argv, "--reveal")
        assert GHP in out and "[redacted:" not in out, argv

    monkeypatch.setenv("REFIND_REDACT", "false")
    assert GHP in run(capsys, "search", "release", "upload", "--json")
