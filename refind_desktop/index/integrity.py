"""Integrity checks at open: tantivy's own per-file CRC32 footers, meta.json, and SQLite's quick_check.

tantivy ends every segment file with a footer (JSON with the CRC32 of the body, its length and a
magic number) but verifies it only on request, so a damaged `.fast` file gives silently wrong
hits and a damaged `.store` or `.idx` a panic later. `check_index()` verifies the files of every
segment that meta.json lists. Segment files never change once written, so a file that passed is
remembered (name, size, mtime) in a small cache and not read again: after the first open of a new
segment the check costs one `stat` per file.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path

CHECKED_FILE = "refind_checked.json"
FOOTER_MAGIC = 1337
_SEGMENT_EXTS = (".fast", ".fieldnorm", ".idx", ".pos", ".store", ".term")
DAMAGED_HINT = "run `refind reindex` to rebuild it from your chat files"


def footer_problem(path: Path) -> str | None:
    """None when `path` ends with a tantivy footer whose CRC32 matches its body; else what is wrong."""
    data = path.read_bytes()
    if len(data) < 8:
        return f"{path.name} is truncated"
    length, magic = struct.unpack("<II", data[-8:])
    if magic != FOOTER_MAGIC or length + 8 > len(data):
        return f"{path.name} has no valid footer"
    try:
        footer = json.loads(data[-8 - length : -8])
        crc = int(footer["crc"])
    except (ValueError, KeyError, TypeError):
        return f"{path.name} has a damaged footer"
    if zlib.crc32(data[: -8 - length]) != crc:
        return f"{path.name} fails its checksum"
    return None


def segment_files(index_dir: Path, meta: dict) -> list[Path]:
    """The files meta.json says make up the index (segment files and delete bitsets)."""
    out: list[Path] = []
    for seg in meta["segments"]:
        sid = str(seg["segment_id"]).replace("-", "")
        out += [index_dir / f"{sid}{ext}" for ext in _SEGMENT_EXTS if (index_dir / f"{sid}{ext}").exists()]
        if not any(p.name.startswith(sid) and p.suffix == ".store" for p in out):
            out.append(index_dir / f"{sid}.store")  # a segment always has a store: missing = damage
        deletes = seg.get("deletes")
        if deletes:
            out.append(index_dir / f"{sid}.{deletes['opstamp']}.del")
    return out


def check_index(index_dir: Path) -> str | None:
    """None when the tantivy index at `index_dir` is sound (or new); else the first problem found."""
    meta_path = index_dir / "meta.json"
    if not meta_path.exists():
        return None
    for attempt in range(2):  # a concurrent commit may garbage-collect a file between the two reads
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            files = segment_files(index_dir, meta)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return f"meta.json is damaged ({type(exc).__name__})"
        checked = _load_checked(index_dir)
        problem = None
        fresh: dict[str, list[int]] = {}
        for p in files:
            try:
                st = p.stat()
            except FileNotFoundError:
                problem = f"{p.name} is missing"
                break
            stamp = [st.st_size, st.st_mtime_ns]
            if checked.get(p.name) == stamp:
                fresh[p.name] = stamp
                continue
            try:
                problem = footer_problem(p)
            except FileNotFoundError:
                problem = f"{p.name} is missing"
            if problem:
                break
            fresh[p.name] = stamp
        if problem is None:
            if fresh != checked:
                _save_checked(index_dir, fresh)
            return None
        if attempt == 0 and "missing" in problem:
            continue
        return problem
    return None


def _load_checked(index_dir: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((index_dir / CHECKED_FILE).read_text(encoding="utf-8"))
        return {str(k): list(v) for k, v in data.items()}
    except (OSError, ValueError, AttributeError):
        return {}


def _save_checked(index_dir: Path, checked: dict[str, list[int]]) -> None:
    """Best effort (a read-only home still searches; it only checks again next time)."""
    tmp = index_dir / (CHECKED_FILE + f".{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(checked, fh)
        os.replace(tmp, index_dir / CHECKED_FILE)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
