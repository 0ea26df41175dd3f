"""Evaluation harness: benchmark loaders, retrieval metrics and modes, QA scoring, reports."""

from .datasets import DATASETS, EvalQuestion, EvalUnit, load_units
from .metrics import ndcg, recall_all, recall_any, score_question, session_ranking, turn_recall
from .modes import MODES, RetrievalMode, get_mode, register_mode
from .qa import run_qa
from .retrieval import run_retrieval

__all__ = [
    "DATASETS",
    "MODES",
    "EvalQuestion",
    "EvalUnit",
    "RetrievalMode",
    "get_mode",
    "load_units",
    "ndcg",
    "recall_all",
    "recall_any",
    "register_mode",
    "run_qa",
    "run_retrieval",
    "score_question",
    "session_ranking",
    "turn_recall",
]
