"""App-wide messages posted by the TUI's workers: past-tense events, progress ones coalesced."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from textual.message import Message
from textual.worker import Worker, WorkerState

from ..ingest.pipeline import IngestReport
from ..types import Block, SessionInfo, TurnView


@dataclass
class IngestProgressed(Message):
    """The folder ingest moved on (only the latest one waiting in the queue is kept)."""

    done: int
    total: int
    current: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IngestProgressed)


@dataclass
class IngestFinished(Message):
    """A folder ingest (initial or rescan) ended; `report.cancelled` when the user stopped it."""

    report: IngestReport
    folder: str


@dataclass
class WatchIngested(Message):
    """The folder watcher reported something (a `WatchEvent`, posted from the watcher's thread)."""

    event: Any
    at: datetime = field(default_factory=datetime.now)


@dataclass
class StatsLoaded(Message):
    """Index totals and skipped files, read after a change."""

    sources: int
    sessions: int
    turns: int
    skipped: list[tuple[str, str]]
    hosts: tuple[tuple[str, str], ...] = ()
    """(host key, state) of each other machine: ok, failed, not pulled yet, removed."""


@dataclass
class ModelLoadStarted(Message):
    """The model back end started loading (it had not been loaded, or the settings chose another one)."""

    label: str
    """The model's name as the status bar shows it."""


@dataclass
class ModelProgressed(Message):
    """Model preparation progress in bytes (total 0 when unknown); coalesced."""

    done: int
    total: int
    label: str = "the model"

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ModelProgressed)


@dataclass
class BackendReady(Message):
    """A model back end is loaded and can answer."""

    label: str
    """The model's name as the status bar shows it."""


@dataclass
class AgentStepped(Message):
    """One trajectory event (search, note, retry, finish) of question `qid`."""

    qid: int
    event: Any


@dataclass
class AnswerStreamed(Message):
    """The answer text of question `qid` so far; coalesced so tokens never flood the queue."""

    qid: int
    text: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, AnswerStreamed) and message.qid == self.qid


@dataclass
class QuestionAnswered(Message):
    """Question `qid` finished with an answer and its citations."""

    qid: int
    answer: str
    citations: list[tuple[str, int]]
    titles: dict[str, str] = field(default_factory=dict)
    outcome: str = "answer"
    """"answer", "unsure" (no answer claimed: the citations are the closest passages) or "not_found"."""


@dataclass
class SearchFinished(Message):
    """A search-box query returned its blocks."""

    query: str
    date_from: date | None
    date_to: date | None
    blocks: list[Block]
    seconds: float


@dataclass
class SessionsLoaded(Message):
    """The session list was read from the catalog."""

    sessions: list[SessionInfo]


@dataclass
class TranscriptLoaded(Message):
    """A session's turns were read for the transcript screen."""

    session_id: str
    title: str
    source: str
    turns: list[TurnView]
    host: str = ""
    """The machine the session was pulled from ("" for this one)."""


@dataclass
class WorkerFailed(Message):
    """A widget's worker raised; bubbles up to the app, the one place that shows errors."""

    worker: Worker


def forward_failure(node: Any, event: Worker.StateChanged) -> None:
    """Widgets call this from `on_worker_state_changed` (that message does not bubble)."""
    if event.state == WorkerState.ERROR:
        node.post_message(WorkerFailed(event.worker))
