"""TrajectoryView (live search steps) and AnswerView (streamed answer with selectable citations)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, ListItem, ListView, Static

from .text import answer_text, plain, trajectory_line


class TrajectoryView(Static):
    """The agent's steps so far; the parent sets `events`."""

    events: reactive[tuple] = reactive(tuple, init=False)

    def on_mount(self) -> None:
        self.watch_events(self.events)

    def watch_events(self, events: tuple) -> None:
        if not events:
            self.update(Text("The search steps appear here while the agent works.", style="dim"))
            return
        self.update(Text("\n").join(trajectory_line(e) for e in events))


class CitationItem(ListItem):
    """One cited turn."""

    def __init__(self, session_id: str, turn: int, title: str) -> None:
        super().__init__(Label(plain(f"▸ {title or session_id} — turn {turn}", one_line=True)))
        self.session_id = session_id
        self.turn = turn


class AnswerView(Vertical):
    """The answer text and its citations; selecting a citation posts `CitationSelected`."""

    @dataclass
    class CitationSelected(Message):
        """The user chose a citation of the answer."""

        session_id: str
        turn: int

    answer: reactive[str] = reactive("", init=False)
    citations: reactive[tuple[tuple[str, int, str], ...]] = reactive(tuple, init=False)
    """(session_id, turn, session title) of each citation."""
    streaming: reactive[bool] = reactive(False, init=False)
    outcome: reactive[str] = reactive("", init=False)
    """"answer", "unsure", "not_found", or "" while none is known."""

    OUTCOME_LABELS = {
        "unsure": "UNSURE — no answer is claimed. The closest passages, verbatim:",
        "not_found": "NOT IN YOUR HISTORY",
    }

    def compose(self) -> ComposeResult:
        yield Label("", id="outcome")
        yield Static("", id="answer-text")
        yield Label("Sources", id="citations-title")
        yield ListView(id="citations")

    def on_mount(self) -> None:
        self.watch_answer(self.answer)
        self.watch_citations(self.citations)
        self.watch_outcome(self.outcome)

    def watch_outcome(self, outcome: str) -> None:
        self.set_class(outcome == "unsure", "-unsure")
        self.set_class(outcome == "not_found", "-not-found")
        self.query_one("#outcome", Label).update(self.OUTCOME_LABELS.get(outcome, ""))
        title = "Closest passages" if outcome == "unsure" else "Sources"
        self.query_one("#citations-title", Label).update(title)

    def watch_answer(self, answer: str) -> None:
        text = answer_text(answer) if answer else Text("")
        if self.streaming:
            text.append("▌", style="blink")
        self.query_one("#answer-text", Static).update(text)

    def watch_streaming(self, streaming: bool) -> None:
        self.set_class(streaming, "-streaming")
        self.watch_answer(self.answer)

    def watch_citations(self, citations: tuple[tuple[str, int, str], ...]) -> None:
        self.set_class(bool(citations), "-has-citations")
        view = self.query_one("#citations", ListView)
        view.clear()
        view.extend(CitationItem(s, t, title) for s, t, title in citations)
        view.index = 0 if citations else None

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        event.stop()
        item = event.item
        if isinstance(item, CitationItem):
            self.post_message(self.CitationSelected(item.session_id, item.turn))
