"""Embedding catch-up: bring the vector store in step with the catalog, in cancellable batches."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..index.catalog import Catalog
from ..index.store import TurnIndex
from .vectors import VectorStore
from .windows import Window, session_windows


class WindowEmbedder(Protocol):
    """What the catch-up needs from a model: its tokenizer and its encoder."""

    name: str
    dim: int

    def tokenize(self, text: str) -> list[tuple[int, int]]: ...

    def encode(self, texts: list[str]) -> Any: ...


@dataclass
class EmbedProgress:
    """Windows embedded so far of the windows known to be pending (the total grows as sessions are read)."""

    done: int
    pending: int
    sessions_done: int
    sessions_total: int


@dataclass
class EmbedReport:
    """What one catch-up run did: the contract behind `refind embed --json`."""

    sessions_checked: int = 0
    sessions_embedded: int = 0
    sessions_dropped: int = 0
    windows_added: int = 0
    windows_kept: int = 0
    windows_dropped: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    cancelled: bool = False
    model: str = ""
    totals: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The stable JSON shape."""
        rate = self.windows_added / self.embed_seconds if self.embed_seconds else 0.0
        return {
            "model": self.model,
            "sessions_checked": self.sessions_checked,
            "sessions_embedded": self.sessions_embedded,
            "sessions_dropped": self.sessions_dropped,
            "windows_added": self.windows_added,
            "windows_kept": self.windows_kept,
            "windows_dropped": self.windows_dropped,
            "seconds": round(self.seconds, 3),
            "windows_per_second": round(rate, 2),
            "cancelled": self.cancelled,
            "totals": self.totals,
        }


def session_fingerprint(n_turns: int, hashes: tuple[str, ...]) -> str:
    """Fingerprint of a session's content as the catalog records it (turn hashes)."""
    return hashlib.blake2b(f"{n_turns}|{','.join(hashes)}".encode(), digest_size=12).hexdigest()


def catch_up(
    index: TurnIndex,
    catalog: Catalog,
    store: VectorStore,
    embedder: WindowEmbedder,
    progress: Callable[[EmbedProgress], None] | None = None,
    cancel: threading.Event | None = None,
    batch: int = 64,
    flush_every: int = 2048,
) -> EmbedReport:
    """Embed every window that is missing, and tombstone every window that is no longer valid.

    A session is re-windowed when its catalog fingerprint differs from the one recorded at its
    last complete embedding; windows whose key is unchanged keep their vectors (so appended turns
    only cost their new windows). Sessions gone from the catalog lose their vectors. Vectors are
    written in shards of up to `flush_every` windows; a cancelled run keeps what it finished.
    """
    t0 = time.perf_counter()
    report = EmbedReport(model=embedder.name)
    store.check_model(embedder.name, embedder.dim)
    table = store.table
    index.reload()
    recorded = table.fingerprints()
    current = {rec.ord: rec for rec in catalog.iter_sessions()}
    report.sessions_checked = len(current)
    for sord in sorted(set(recorded) - set(current)):
        report.windows_dropped += table.forget_session(sord)
        report.sessions_dropped += 1
    table.commit()
    dirty = [
        rec
        for sord, rec in sorted(current.items())
        if recorded.get(sord) != session_fingerprint(rec.n_turns, rec.hashes)
    ]

    pending: list[tuple[int, Window]] = []  # windows to embed, in order
    vectors: list[Any] = []
    done_upto = 0  # pending[:done_upto] have vectors
    finished: list[tuple[int, str, int]] = []  # (sord, fp, index in pending after its last window)

    def flush() -> None:
        nonlocal pending, vectors, done_upto, finished
        if done_upto:
            import numpy as np

            store.append(pending[:done_upto], np.concatenate(vectors)[:done_upto])
            report.windows_added += done_upto
        for sord, fp, end in finished:
            if end <= done_upto:
                table.set_fingerprint(sord, fp)
        table.commit()
        finished = [(s, f, e - done_upto) for s, f, e in finished if e > done_upto]
        pending, vectors, done_upto = pending[done_upto:], [], 0

    def embed_ready(final: bool) -> bool:
        nonlocal done_upto
        while len(pending) - done_upto >= batch or (final and done_upto < len(pending)):
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                return False
            chunk = pending[done_upto : done_upto + batch]
            e0 = time.perf_counter()
            vectors.append(embedder.encode([w.text for _, w in chunk]))
            report.embed_seconds += time.perf_counter() - e0
            done_upto += len(chunk)
            if progress:
                progress(
                    EmbedProgress(
                        report.windows_added + done_upto,
                        report.windows_added + len(pending),
                        n_read,
                        len(dirty),
                    )
                )
            if done_upto >= flush_every:
                flush()
        return True

    n_read = 0
    for rec in dirty:
        n_read += 1
        if cancel is not None and cancel.is_set():
            report.cancelled = True
            break
        turns = index.session_turns(rec.ord)
        wins = session_windows(turns, embedder.tokenize)
        live = table.live_keys(rec.ord)
        fresh = [w for w in wins if w.key not in live]
        keep = {w.key for w in wins}
        stale = [wid for key, wid in live.items() if key not in keep]
        if stale:
            table.kill(stale)
            report.windows_dropped += len(stale)
        table.set_content(rec.ord, rec.hashes)
        table.commit()
        report.windows_kept += len(wins) - len(fresh)
        pending.extend((rec.ord, w) for w in fresh)
        finished.append((rec.ord, session_fingerprint(rec.n_turns, rec.hashes), len(pending)))
        if fresh:
            report.sessions_embedded += 1
        if not embed_ready(final=False):
            break
    if not report.cancelled:
        embed_ready(final=True)
    flush()
    counts = table.counts()
    if counts["dead_windows"] > max(1000, counts["live_windows"]):
        store.compact()
        counts = table.counts()
    report.totals = counts
    report.seconds = time.perf_counter() - t0
    if progress:
        progress(EmbedProgress(report.windows_added, report.windows_added, n_read, len(dirty)))
    return report
