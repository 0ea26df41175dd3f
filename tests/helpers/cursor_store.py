"""cursor-agent CLI chat stores built the way the CLI writes them, for the reader and watcher tests."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

STORE_MESSAGES = [
    {"role": "system", "content": "You are a coding agent running in the Cursor CLI."},
    {"role": "user", "content": [{"type": "text", "text": "<user_info>\nOS Version: linux\n</user_info>\n<user_query>\nwhy does the seed tray heater stay on?\n</user_query>"}]},
    {"role": "assistant", "content": [
        {"type": "reasoning", "text": "Look at the relay state machine."},
        {"type": "text", "text": "Checking the relay code."},
        {"type": "tool-call", "toolCallId": "call_1", "toolName": "Shell", "args": {"command": "grep -n relay heater.py"}}]},
    {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "Shell", "result": "heater.py:9: relay.on()  # never switched off"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "The relay is switched on and never off; add `relay.off()` above 24 degrees."}]},
    {"role": "user", "content": [{"type": "text", "text": "<user_query>add it</user_query>"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Added `relay.off()` when the tray passes 24 degrees."}]},
]  # fmt: skip


def _field(number: int, value: bytes) -> bytes:
    """One length-delimited protobuf field (values under 128 bytes)."""
    return bytes([number << 3 | 2, len(value)]) + value


def _put(db: sqlite3.Connection, data: bytes) -> str:
    blob_id = hashlib.sha256(data).hexdigest()
    db.execute("INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)", (blob_id, data))
    return blob_id


def _set_root(db: sqlite3.Connection, ids: list[str], agent_id: str) -> None:
    root = b"".join(_field(1, bytes.fromhex(i)) for i in ids) + _field(9, b"/home/dana/src/greenhouse")
    meta = {"agentId": agent_id, "latestRootBlobId": _put(db, root), "name": "Seed tray heater",
            "mode": "default", "createdAt": 1764660600000, "lastUsedModel": "gpt-5"}  # fmt: skip
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))


def build_store(path: Path, keep_open: bool = False):
    """A cursor-agent chat store as the CLI writes it (WAL mode, content-addressed blobs, protobuf root)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    ids = [_put(db, json.dumps(m).encode()) for m in STORE_MESSAGES]
    _set_root(db, ids, path.parent.name)
    db.commit()
    if keep_open:
        return db
    db.close()
    return path


def add_exchange(db: sqlite3.Connection, prompt: str, reply: str) -> None:
    """What the CLI does for a new exchange: new message blobs, a new root, the meta row pointing at it."""
    meta = json.loads(bytes.fromhex(db.execute("SELECT value FROM meta").fetchone()[0]))
    root = db.execute("SELECT data FROM blobs WHERE id = ?", (meta["latestRootBlobId"],)).fetchone()[0]
    ids, i = [], 0
    while i < len(root):
        number, size = root[i] >> 3, root[i + 1]
        if number == 1:
            ids.append(root[i + 2 : i + 2 + size].hex())
        i += 2 + size
    ids.append(
        _put(
            db,
            json.dumps(
                {"role": "user", "content": [{"type": "text", "text": f"<user_query>{prompt}</user_query>"}]}
            ).encode(),
        )
    )
    ids.append(
        _put(db, json.dumps({"role": "assistant", "content": [{"type": "text", "text": reply}]}).encode())
    )
    _set_root(db, ids, meta["agentId"])
    db.commit()
