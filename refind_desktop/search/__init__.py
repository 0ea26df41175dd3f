"""The ReFind engine: turn BM25, the time filter, two-level reciprocal rank fusion (RRF), context blocks."""

from .engine import (
    RankedTurn,
    SearchEngine,
    SearchOptions,
    SearchSession,
    block_to_json,
    day_bounds,
    fuse,
    merge_windows,
)

__all__ = [
    "RankedTurn",
    "SearchEngine",
    "SearchOptions",
    "SearchSession",
    "block_to_json",
    "day_bounds",
    "fuse",
    "merge_windows",
]
