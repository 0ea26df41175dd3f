"""What pulls brought into the mirrors that no ingest has read yet, so `refind ingest` reads only that.

A pull that knows exactly which files it wrote records them; one that does not (it failed part way,
or wrote very many files) leaves its mirror folder marked, to be walked whole. A pull marks its
mirror before it writes and replaces the mark by its files when it ends, so a process killed
mid-pull loses nothing; the list is consumed only after an ingest read it, so a killed ingest loses
nothing either. Without the list (a new data folder, or the file removed), every mirror is walked:
the safe default. Kept in `<data>/remote-pull/pending.json`, written whole and renamed, under the
pull lock.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

NAME = "pending.json"
MANY = 2000
"""Above this many files from one pull, its mirror is walked instead of the files named one by one."""


@dataclass
class Pending:
    """Mirror folders to walk whole, single mirror files to read, and whether to walk every mirror."""

    walk: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    walk_all: bool = False
    """True until an ingest has walked every mirror once (no list yet, or the list was lost)."""


def _path(data_dir: Path, work: str) -> Path:
    return Path(data_dir) / work / NAME


def read_pending(data_dir: Path, work: str) -> Pending:
    """The pending list (walk_all when there is none or it cannot be read)."""
    try:
        data = json.loads(_path(data_dir, work).read_text(encoding="utf-8"))
        return Pending(
            [str(p) for p in data.get("walk", [])],
            [str(p) for p in data.get("files", [])],
            bool(data.get("walk_all", False)),
        )
    except (OSError, ValueError, AttributeError):
        return Pending(walk_all=True)


def _write(data_dir: Path, work: str, pending: Pending) -> None:
    path = _path(data_dir, work)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{NAME}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"walk": pending.walk, "files": pending.files, "walk_all": pending.walk_all}, f)
    os.replace(tmp, path)


def begin_pull(data_dir: Path, work: str, mirror: Path) -> bool:
    """Mark `mirror` to be walked before a pull writes into it (so a process killed mid-pull loses
    nothing); returns whether it was marked already (by an earlier pull that did not finish)."""
    pending = read_pending(data_dir, work)
    if str(mirror) in pending.walk:
        return True
    pending.walk.append(str(mirror))
    _write(data_dir, work, pending)
    return False


def end_pull(data_dir: Path, work: str, mirror: Path, changed: list[Path] | None, walk_before: bool) -> None:
    """Replace the mark of `begin_pull` by the files the pull wrote, when it knows them all (a pull
    that does not, or a mirror marked before it, stays marked to be walked)."""
    if changed is None or walk_before:
        return
    pending = read_pending(data_dir, work)
    if len(changed) > MANY or any("\n" in str(p) for p in changed):
        return
    pending.walk = [p for p in pending.walk if p != str(mirror)]
    have = set(pending.files)
    pending.files += [str(p) for p in changed if str(p) not in have]
    _write(data_dir, work, pending)


def done_pending(data_dir: Path, work: str, read: Pending) -> None:
    """Drop what an ingest has read (entries added since stay)."""
    now = read_pending(data_dir, work)
    walked = set(read.walk)
    files = set(read.files)
    left = Pending(
        [p for p in now.walk if p not in walked],
        [p for p in now.files if p not in files],
        now.walk_all and not read.walk_all,
    )
    _write(data_dir, work, left)
