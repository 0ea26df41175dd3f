"""Known places of Qwen Code, Factory Droid, Amp and Cursor agent transcripts, for `find_known_sources`.

`places(home, env, system, data_dirs, editor_dirs)` yields `(tool, path, reads, match)` entries:
the folder (or file) to ingest and a `match(folder, name)` rule for the chat files inside it, which
`known_sources.find_known_sources` counts by name and size only (no chat file is opened).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

Match = Callable[[str, str], bool]
Place = tuple[str, Path, str, Match]


def places(
    home: Path,
    env: Mapping[str, str],
    system: str,
    data_dirs: Iterable[Path],
    editor_dirs: Iterable[tuple[str, Path]],
) -> Iterator[Place]:
    """Every location of these agents' chats on this platform (existing or not)."""
    qwen = Path(env["QWEN_RUNTIME_DIR"]) if env.get("QWEN_RUNTIME_DIR") else home / ".qwen"
    yield "Qwen Code", qwen / "projects", "chat sessions (chats/*.jsonl)", _qwen_chats
    yield "Qwen Code", qwen / "tmp", "older chat sessions and saved chats (*.json)", _qwen_old
    yield "Factory Droid", home / ".factory" / "sessions", "sessions (*.jsonl)", _droid
    amp_dirs = [Path(env["AMP_DATA_HOME"]) / "amp"] if env.get("AMP_DATA_HOME") else []
    amp_dirs += [d / "amp" for d in data_dirs]
    if system == "darwin":
        amp_dirs.append(home / "Library" / "Application Support" / "amp")
    for amp in dict.fromkeys(amp_dirs):
        yield "Amp", amp / "threads", "threads (T-*.json)", _amp
    for editor, user in editor_dirs:
        threads = user / "globalStorage" / "sourcegraph.amp" / "threads3"
        yield f"Amp ({editor})", threads, "threads of the editor extension (T-*.json)", _amp
    yield "Cursor agent", home / ".cursor" / "projects", "agent transcripts (*.jsonl, *.txt)", _cursor
    yield "Cursor agent", home / ".cursor" / "chats", "CLI chat stores (store.db, read-only)", _cursor_store


def _qwen_chats(folder: str, name: str) -> bool:
    return name.endswith(".jsonl") and os.path.basename(folder) == "chats"


def _qwen_old(folder: str, name: str) -> bool:
    if name == "logs.json":  # the old prompt log, read only where no chats folder replaced it
        return not os.path.isdir(os.path.join(folder, "chats"))
    in_chats = os.path.basename(folder) == "chats"
    return (in_chats and name.endswith((".json", ".jsonl"))) or (
        name.startswith("checkpoint-") and name.endswith(".json")
    )


def _droid(folder: str, name: str) -> bool:
    return name.endswith(".jsonl")


def _amp(folder: str, name: str) -> bool:
    return name.startswith("T-") and name.endswith(".json")


def _cursor(folder: str, name: str) -> bool:
    return name.endswith((".jsonl", ".txt")) and "agent-transcripts" in Path(folder).parts


def _cursor_store(folder: str, name: str) -> bool:
    return name == "store.db"
