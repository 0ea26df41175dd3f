"""KeptSources: the sessions of source files that are gone, saved beside the catalog while a reindex runs.

A reindex wipes the index and the catalog, then reads every source again. A file that is gone
cannot be read again; its sessions exist only in the archive, so before the wipe they are read
back (index/readback.py) and written here (gzip JSON lines, fsynced, replaced atomically), before
the rebuild marker that points at them. The rebuild, or the writer that finishes a killed one,
applies them first; the file is removed after the marker.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..types import Session, Turn

KEPT_NAME = "rebuild.kept.jsonl.gz"


@dataclass
class KeptSource:
    """One gone source file: its catalog record and its sessions as the archive held them."""

    path: str
    format: str
    size: int
    mtime_ns: int
    digest: str
    sessions: list[Session] = field(default_factory=list)


class KeptSources:
    """The file of kept sources (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, sources: Iterable[KeptSource]) -> int:
        """Write every source durably (replacing any earlier file); returns the turns written."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        turns = 0
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=3) as gz:
                for src in sources:
                    turns += sum(len(s.turns) for s in src.sessions)
                    gz.write((json.dumps(_encode(src), ensure_ascii=False) + "\n").encode("utf-8"))
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, self.path)
        dfd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
        return turns

    def read(self) -> Iterator[KeptSource]:
        """The kept sources (none when there is no file)."""
        try:
            fh = gzip.open(self.path, "rt", encoding="utf-8")
        except FileNotFoundError:
            return
        with fh:
            for line in fh:
                if line.strip():
                    yield _decode(json.loads(line))

    def exists(self) -> bool:
        """Whether a kept file is there."""
        return self.path.exists()

    def remove(self) -> None:
        """Drop the file (the rebuild is done)."""
        self.path.unlink(missing_ok=True)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _encode(src: KeptSource) -> dict:
    return {
        "path": src.path,
        "format": src.format,
        "size": src.size,
        "mtime_ns": src.mtime_ns,
        "digest": src.digest,
        "sessions": [
            {
                "id": s.session_id,
                "title": s.title,
                "started_at": _when(s.started_at),
                "participants": s.participants,
                "chat_id": s.chat_id,
                "chat_title": s.chat_title,
                "continues": s.continues,
                "turns": [[t.text, t.speaker, _when(t.timestamp), t.turn_id] for t in s.turns],
            }
            for s in src.sessions
        ],
    }


def _decode(d: dict) -> KeptSource:
    def when(v: str | None) -> datetime | None:
        return datetime.fromisoformat(v) if v else None

    return KeptSource(
        d["path"],
        d["format"],
        d["size"],
        d["mtime_ns"],
        d["digest"],
        [
            Session(
                session_id=s["id"],
                title=s["title"],
                started_at=when(s["started_at"]),
                participants=list(s["participants"]),
                turns=[
                    Turn(index=i, text=t[0], speaker=t[1], timestamp=when(t[2]), turn_id=t[3])
                    for i, t in enumerate(s["turns"])
                ],
                chat_id=s.get("chat_id", ""),
                chat_title=s.get("chat_title", ""),
                continues=s.get("continues", ""),
            )
            for s in d["sessions"]
        ],
    )
