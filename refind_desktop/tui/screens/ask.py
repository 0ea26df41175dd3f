"""AskPane: the question box, the live trajectory, the streamed answer and this session's questions.

Its worker calls the headless core (`Agent.run`, or a registered raw-RAG runner) via `answer_question`.
"""

from __future__ import annotations

import textwrap
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, Label, ListItem, ListView, ProgressBar, Select
from textual.worker import Worker, WorkerState

from ...llm.factory import BACKENDS
from ...llm.lazy import LazyBackend
from ...modes import get_mode, mode_names
from ...terminal import printable
from ..messages import AgentStepped, AnswerStreamed, QuestionAnswered, forward_failure
from ..widgets.answer import AnswerView, TrajectoryView

UI_MODES = mode_names()


def answer_question(svc, backend, mode: str, question: str, on_event: Callable, cancel: threading.Event):
    """Run one question in `mode` through the registry (every mode takes `cancel`: Esc stops it)."""
    return get_mode(mode).run(svc, backend, question, on_event=on_event, cancel=cancel)


@dataclass
class AskRecord:
    """One question of this session and everything shown for it."""

    qid: int
    question: str
    mode: str
    events: list = field(default_factory=list)
    answer: str = ""
    citations: list[tuple[str, int, str]] = field(default_factory=list)
    outcome: str = ""
    """The answer's outcome once done: "answer", "unsure" or "not_found"."""
    state: str = "running"
    """running, done, failed or cancelled."""


HISTORY_CHARS = 75
"""A question in the side list is shortened, at a word, to about three of its lines."""


class HistoryItem(ListItem):
    """A previous question in the side list, wrapped at words (a long one shortened at a word, "…")."""

    def __init__(self, record: AskRecord) -> None:
        short = textwrap.shorten(printable(record.question), HISTORY_CHARS, placeholder=" …")
        super().__init__(Label(short, markup=False, classes="history-question"))
        self.qid = record.qid


class AskPane(Vertical):
    """Ask a question; Esc cancels the one in flight."""

    BINDINGS = [
        Binding("escape", "cancel_question", "Cancel question", id="ask.cancel"),
        Binding("ctrl+o", "sources", "Sources", id="ask.sources"),
    ]

    @dataclass
    class BusyChanged(Message):
        """A question started (busy) or ended."""

        busy: bool

    busy: reactive[bool] = reactive(False, init=False)
    model_progress: reactive[tuple[int, int] | None] = reactive(None, init=False)
    """(done, total) bytes while the model is being prepared; set by the app."""

    def __init__(self, mode: str, backend: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mode = mode if mode in UI_MODES else "refind"
        self.backend_name = backend if backend in BACKENDS else "llama"
        self.records: dict[int, AskRecord] = {}
        self.shown: int | None = None
        self._next_qid = 1
        self._cancel: threading.Event | None = None
        self._running: AskRecord | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="ask-bar"):
            yield Select(
                [(m, m) for m in UI_MODES], value=self.mode, allow_blank=False, id="ask-mode", compact=True
            )
            yield Select(
                [(b, b) for b in BACKENDS],
                value=self.backend_name,
                allow_blank=False,
                id="ask-backend",
                compact=True,
            )
            yield Input(placeholder="Ask about your chats, e.g. when is my flight to Lisbon?", id="question")
        with Horizontal(id="ask-body"):
            with Vertical(id="history-box"):
                yield Label("This session", classes="section-title")
                yield ListView(id="history")
            with VerticalScroll(id="ask-main"):
                yield Label("", id="ask-question", markup=False)
                yield ProgressBar(id="model-progress", show_eta=False)
                yield TrajectoryView(id="trajectory")
                yield AnswerView(id="answer")

    # ---- asking -------------------------------------------------------------------------------
    @on(Input.Submitted, "#question")
    def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip() and not self.busy:
            self.ask(event.value.strip())

    def ask(self, question: str) -> AskRecord:
        """Start answering `question` (the screen's input does this on Enter)."""
        record = AskRecord(self._next_qid, question, self.mode)
        self._next_qid += 1
        self.records[record.qid] = record
        history = self.query_one("#history", ListView)
        history.append(HistoryItem(record))
        history.index = len(history) - 1
        self.query_one("#question", Input).value = ""
        self._running = record
        self._cancel = threading.Event()
        self.busy = True
        self.show(record.qid)
        self.run_question(record.qid, question, self.mode, self._cancel)
        return record

    @work(thread=True, exclusive=True, group="ask", exit_on_error=False, description="answering a question")
    def run_question(self, qid: int, question: str, mode: str, cancel: threading.Event) -> None:
        app = self.app
        backend = LazyBackend(
            lambda: app.acquire_backend(cancel),  # type: ignore[attr-defined]
            app.model_lock,  # type: ignore[attr-defined]
            traits=app.backend_traits(),  # type: ignore[attr-defined]  # the first search needs no model
        )
        pieces: list[str] = []

        def on_event(event: object) -> None:
            kind = getattr(event, "type", "")
            if kind == "answer_token":
                pieces.append(event.text)  # type: ignore[attr-defined]
                self.post_message(AnswerStreamed(qid, "".join(pieces)))
            elif kind in ("search", "note", "batch", "retry", "finish"):
                self.post_message(AgentStepped(qid, event))

        with app.model_lock:  # type: ignore[attr-defined]
            result = answer_question(app.services, backend, mode, question, on_event, cancel)  # type: ignore[attr-defined]
        titles = {}
        for sid, _ in result.citations:
            rec = app.services.catalog.get_session(sid)  # type: ignore[attr-defined]
            titles[sid] = rec.title if rec else sid
        outcome = getattr(result, "outcome", "answer")
        self.post_message(QuestionAnswered(qid, result.answer, list(result.citations), titles, outcome))

    def action_cancel_question(self) -> None:
        """Esc: stop the question in flight and give the question back to the input."""
        if not self.busy:
            return
        if self._cancel is not None:
            self._cancel.set()
        self.workers.cancel_group(self, "ask")

    # ---- results from the worker --------------------------------------------------------------
    def on_agent_stepped(self, message: AgentStepped) -> None:
        record = self.records.get(message.qid)
        if record is not None and record.state == "running":
            record.events.append(message.event)
            if self.shown == record.qid:
                self.query_one(TrajectoryView).events = tuple(record.events)

    def on_answer_streamed(self, message: AnswerStreamed) -> None:
        record = self.records.get(message.qid)
        if record is not None and record.state == "running":
            record.answer = message.text
            if self.shown == record.qid:
                self.query_one(AnswerView).answer = record.answer

    def on_question_answered(self, message: QuestionAnswered) -> None:
        record = self.records.get(message.qid)
        if record is None or record.state != "running":
            return
        record.answer = message.answer
        record.outcome = message.outcome
        record.citations = [(s, t, message.titles.get(s, s)) for s, t in message.citations]
        record.state = "done"
        self._finish(record)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        forward_failure(self, event)
        if event.worker.group != "ask" or self._running is None:
            return
        if event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            record = self._running
            record.state = "cancelled" if event.state == WorkerState.CANCELLED else "failed"
            self._finish(record)
            question = self.query_one("#question", Input)
            question.value = record.question
            question.focus()
            if event.state == WorkerState.CANCELLED:
                self.notify("question cancelled", timeout=3)

    def _finish(self, record: AskRecord) -> None:
        if self._running is record:
            self._running = None
            self.busy = False
        if self.shown == record.qid:
            self.show(record.qid)

    # ---- display ------------------------------------------------------------------------------
    def show(self, qid: int) -> None:
        """Display a question of this session (the running one or a previous one)."""
        record = self.records[qid]
        self.shown = qid
        state = {"running": "…", "done": "", "failed": "  (failed)", "cancelled": "  (cancelled)"}[
            record.state
        ]
        self.query_one("#ask-question", Label).update(f"[{record.mode}] {record.question}{state}")
        self.set_class(record.state in ("failed", "cancelled"), "-stopped")
        self.query_one(TrajectoryView).events = tuple(record.events)
        view = self.query_one(AnswerView)
        view.streaming = record.state == "running"
        view.outcome = record.outcome
        view.answer = record.answer
        view.citations = tuple(record.citations)
        self.refresh_bindings()

    @on(ListView.Selected, "#history")
    def history_selected(self, event: ListView.Selected) -> None:
        event.stop()
        if isinstance(event.item, HistoryItem):
            self.show(event.item.qid)

    @on(Select.Changed, "#ask-mode")
    def mode_changed(self, event: Select.Changed) -> None:
        self.mode = str(event.value)

    @on(Select.Changed, "#ask-backend")
    def backend_changed(self, event: Select.Changed) -> None:
        if str(event.value) != self.backend_name:
            self.backend_name = str(event.value)
            self.app.update_settings(persist=False, backend=self.backend_name)  # type: ignore[attr-defined]

    def sync(self, settings) -> None:
        """Show saved settings in the mode and back-end menus."""
        if settings.mode in UI_MODES:
            self.query_one("#ask-mode", Select).value = settings.mode
        if settings.backend in BACKENDS:
            self.query_one("#ask-backend", Select).value = settings.backend

    def action_sources(self) -> None:
        """Ctrl+O: to the shown answer's sources (Enter opens the transcript at the cited turn)."""
        citations = self.query_one("#citations", ListView)
        if len(citations):
            citations.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc (cancel) is offered only while a question runs, Ctrl+O when the answer has sources."""
        if action == "cancel_question":
            return self.busy
        if action == "sources":
            return self.shown is not None and bool(self.records[self.shown].citations)
        return True

    def watch_busy(self, busy: bool) -> None:
        self.post_message(self.BusyChanged(busy))
        self.set_class(busy, "-busy")
        self.refresh_bindings()
        focused = self.screen.focused
        self.query_one("#question", Input).disabled = busy
        if focused is not None and self not in focused.ancestors_with_self:
            return  # the user is on another tab: leave the focus there
        if busy:
            self.query_one("#ask-main", VerticalScroll).focus()  # keeps Esc (cancel) in this pane
        else:
            self.query_one("#question", Input).focus()

    def watch_model_progress(self, value: tuple[int, int] | None) -> None:
        self.set_class(value is not None, "-loading")
        if value is not None:
            done, total = value
            self.query_one("#model-progress", ProgressBar).update(total=total or None, progress=done)
