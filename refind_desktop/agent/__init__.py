"""The ReFind agent: search rounds with notes (stage 1), then a cited answer from the notes (stage 2)."""

from .events import (
    AgentCancelled,
    AgentResult,
    AnswerEvent,
    AnswerTokenEvent,
    BatchEvent,
    Event,
    FinishEvent,
    Note,
    NoteEvent,
    ReadEvent,
    RetryEvent,
    SearchEvent,
)
from .loop import MODES, Agent, AgentConfig
from .run import DateHint, Run

__all__ = [
    "MODES",
    "Agent",
    "AgentCancelled",
    "AgentConfig",
    "AgentResult",
    "AnswerEvent",
    "AnswerTokenEvent",
    "BatchEvent",
    "DateHint",
    "Event",
    "FinishEvent",
    "Note",
    "NoteEvent",
    "ReadEvent",
    "RetryEvent",
    "Run",
    "SearchEvent",
]
