"""VectorStore: append-only float16 .npy shards + the window table, loaded for exact cosine search."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .state import TABLE_FILE, WindowTable
from .windows import OVERLAP_TOKENS, WINDOW_TOKENS, Window

SHARD_DTYPE = np.float16


@dataclass
class Loaded:
    """Live vectors in memory (float32, unit length) with each row's window id (`wid`), session ordinal
    (`sord`) and turns."""

    gen: int
    matrix: np.ndarray
    wid: np.ndarray
    sord: np.ndarray
    first_turn: np.ndarray
    last_turn: np.ndarray


class VectorStore:
    """data_dir/vectors/: `windows.sqlite` and `shards/NNNNNN.npy` (one per embedding flush).

    Shards are written once and never modified; a changed or forgotten window is a tombstone in
    the table. `compact()` rewrites live vectors into one new shard when tombstones pile up.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.shard_dir = folder / "shards"
        self.shard_dir.mkdir(parents=True, exist_ok=True)
        self.table = WindowTable(folder / TABLE_FILE)
        self._loaded: Loaded | None = None

    def close(self) -> None:
        """Close the window table."""
        self.table.close()

    # -- model bookkeeping -----------------------------------------------------------------------
    def check_model(self, model: str, dim: int) -> None:
        """Bind the store to one model and window scheme, or refuse vectors of another model."""
        have = self.table.meta("model")
        scheme = f"{WINDOW_TOKENS}/{OVERLAP_TOKENS}"
        if not have:
            self.table.set_meta("model", model)
            self.table.set_meta("dim", dim)
            self.table.set_meta("scheme", scheme)
            self.table.commit()
            return
        if have != model or int(self.table.meta("dim", "0")) != dim or self.table.meta("scheme") != scheme:
            raise ConfigError(
                f"the stored vectors were made with {have!r} (windows "
                f"{self.table.meta('scheme')}), not {model!r}; run `refind embed --rebuild` "
                "to embed again with the configured model"
            )

    @property
    def model(self) -> str:
        """Name of the model the stored vectors come from ('' when none yet)."""
        return self.table.meta("model")

    # -- writing -----------------------------------------------------------------------------------
    def append(self, items: list[tuple[int, Window]], vectors: np.ndarray) -> int:
        """Write one shard with these vectors, then the rows pointing at it (one transaction)."""
        if not items:
            return 0
        if len(items) != len(vectors):
            raise ValueError(f"{len(items)} windows but {len(vectors)} vectors")
        shard = self.table.next_shard()
        path = self._shard_path(shard)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, np.asarray(vectors, dtype=SHARD_DTYPE))
        os.replace(tmp, path)
        n = self.table.add(items, shard)
        self.table.commit()
        return n

    def compact(self) -> int:
        """Rewrite the live vectors into one new shard and delete the old shards; returns live rows."""
        data = self.load(force=True)
        shard = self.table.next_shard()
        old = self.table.shard_numbers()
        np.save(self._shard_path(shard), data.matrix.astype(SHARD_DTYPE))
        db = self.table.db
        db.executemany(
            "UPDATE windows SET shard=?, row=? WHERE wid=?",
            [(shard, i, int(w)) for i, w in enumerate(data.wid)],
        )
        db.execute("DELETE FROM windows WHERE dead=1")
        db.execute("DELETE FROM shards")
        db.execute("INSERT INTO shards VALUES (?, ?, strftime('%s','now'))", (shard, len(data.wid)))
        self.table._bump()
        self.table.commit()
        for s in old:
            self._shard_path(s).unlink(missing_ok=True)
        self._loaded = None
        return len(data.wid)

    def wipe(self) -> None:
        """Delete every vector and row (for `refind embed --rebuild`)."""
        self.table.close()
        shutil.rmtree(self.folder, ignore_errors=True)
        self.__init__(self.folder)  # type: ignore[misc]

    def _shard_path(self, shard: int) -> Path:
        return self.shard_dir / f"{shard:06d}.npy"

    # -- reading -----------------------------------------------------------------------------------
    def load(self, force: bool = False) -> Loaded:
        """Live vectors as one float32 matrix, reloaded only when the table changed."""
        gen = self.table.gen()
        if self._loaded is not None and self._loaded.gen == gen and not force:
            return self._loaded
        rows = list(self.table.live())
        dim = int(self.table.meta("dim", "0") or 0)
        matrix = np.empty((len(rows), dim), dtype=np.float32)
        i = 0
        while i < len(rows):
            shard = rows[i].shard
            j = i
            while j < len(rows) and rows[j].shard == shard:
                j += 1
            data = np.load(self._shard_path(shard), mmap_mode="r")
            idx = np.fromiter((r.row for r in rows[i:j]), dtype=np.int64, count=j - i)
            matrix[i:j] = data[idx]
            i = j
        self._loaded = Loaded(
            gen=gen,
            matrix=matrix,
            wid=np.fromiter((r.wid for r in rows), dtype=np.int64, count=len(rows)),
            sord=np.fromiter((r.sord for r in rows), dtype=np.int64, count=len(rows)),
            first_turn=np.fromiter((r.first_turn for r in rows), dtype=np.int64, count=len(rows)),
            last_turn=np.fromiter((r.last_turn for r in rows), dtype=np.int64, count=len(rows)),
        )
        return self._loaded

    def search(
        self, query: np.ndarray, k: int, exclude_sords: set[int] | None = None
    ) -> list[tuple[int, float]]:
        """Exact cosine over every live window: (row in `load()`, score) of the best k, best first."""
        data = self.load()
        if not len(data.wid):
            return []
        scores = data.matrix @ np.asarray(query, dtype=np.float32).reshape(-1)
        if exclude_sords:
            scores = scores.copy()
            scores[np.isin(data.sord, np.fromiter(exclude_sords, dtype=np.int64))] = -np.inf
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((data.wid[top], -scores[top]))]
        return [(int(i), float(scores[i])) for i in top if np.isfinite(scores[i])]

    def disk_bytes(self) -> int:
        """Bytes on disk: shards plus the window table."""
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())
