"""Raw-RAG and hybrid retrieval: windows, embeddings, vectors, rerank, and the modes that use them.

This module stays light (no numpy, torch or sentence-transformers): front ends import the runners
below, and the heavy modules load only when a mode actually runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import MissingDependencyError


def _load(name: str) -> Callable:
    try:
        from . import rawrag
    except ImportError as exc:  # numpy missing: the rag extra is not installed
        raise MissingDependencyError(
            f'Raw-RAG and hybrid modes need the rag extra: pip install "refind-desktop[rag]" ({exc})'
        ) from exc
    return getattr(rawrag, name)


def run_rawrag(*args: Any, **kw: Any) -> Any:
    """`refind ask --mode rawrag` (see rawrag.run_rawrag)."""
    return _load("run_rawrag")(*args, **kw)


def run_hybrid(*args: Any, **kw: Any) -> Any:
    """`refind ask --mode hybrid` (see rawrag.run_hybrid)."""
    return _load("run_hybrid")(*args, **kw)


RAG_RUNNERS: dict[str, Callable] = {"rawrag": run_rawrag, "hybrid": run_hybrid}
"""Mode name → runner(svc, backend, mode, question, now, on_event, *, cancel=None, date_hint=None);
refind_desktop/modes.py registers them as answer modes."""

__all__ = ["RAG_RUNNERS", "run_hybrid", "run_rawrag"]
