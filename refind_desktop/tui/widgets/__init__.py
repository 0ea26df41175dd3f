"""Reusable TUI widgets: status bar, trajectory and answer views, search results."""

from .answer import AnswerView, CitationItem, TrajectoryView
from .results import HitItem, ResultList
from .status import IndexStats, ModelStatus, StatusBar

__all__ = [
    "AnswerView",
    "CitationItem",
    "HitItem",
    "IndexStats",
    "ModelStatus",
    "ResultList",
    "StatusBar",
    "TrajectoryView",
]
