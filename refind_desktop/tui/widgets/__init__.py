"""Reusable TUI widgets: status bar, trajectory and answer views, search results."""

from .answer import AnswerView, CitationItem, TrajectoryView
from .results import HitItem, ResultList
from .status import IndexStats, StatusBar

__all__ = ["AnswerView", "CitationItem", "HitItem", "IndexStats", "ResultList", "StatusBar", "TrajectoryView"]
