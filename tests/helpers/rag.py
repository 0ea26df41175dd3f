"""Raw-RAG test helpers: a bag-of-words stand-in embedder (fast, deterministic) and archive builders."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

import numpy as np

from refind_desktop.rag.windows import whitespace_tokenize
from refind_desktop.types import Session, Turn

__all__ = ["FakeEmbedder", "day", "session", "words"]

_WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    """Hashes words into 256 dimensions: texts sharing words are similar. Counts what it encodes."""

    name = "fake-bow"
    dim = 256

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def tokenize(self, text: str) -> list[tuple[int, int]]:
        return whitespace_tokenize(text)

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in _WORD.findall(t.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def day(month: int, d: int) -> datetime:
    return datetime(2024, month, d, 12, 0, tzinfo=UTC)


def words(prefix: str, n: int) -> str:
    """n distinct filler words."""
    return " ".join(f"{prefix}{i}" for i in range(n))


def session(sid: str, when: datetime | None, *texts: str, speaker: str = "user") -> Session:
    return Session(
        sid, sid, when, ["user", "assistant"], [Turn(i, t, speaker, when) for i, t in enumerate(texts)]
    )
