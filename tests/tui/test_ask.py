"""Pilot tests of the ask tab: live trajectory, streamed answer, citations, Esc, failures, history."""

from __future__ import annotations

import threading

from helpers.tui import LISBON, SHOWN, responder, wait_for, wait_indexed
from textual.widgets import Input, Label, ListView

from refind_desktop.agent import FinishEvent, NoteEvent, SearchEvent
from refind_desktop.agent.keywords import search_words
from refind_desktop.errors import BackendError
from refind_desktop.llm.catalog import embedded_entry
from refind_desktop.llm.scripted import ScriptedBackend
from refind_desktop.tui.messages import (
    AgentStepped,
    AnswerStreamed,
    BackendReady,
    ModelLoadStarted,
    QuestionAnswered,
    WorkerFailed,
)
from refind_desktop.tui.screens import AskPane, ErrorModal, TranscriptScreen
from refind_desktop.tui.widgets import AnswerView, StatusBar, TrajectoryView


async def ask(pilot, question: str) -> AskPane:
    pane = pilot.app.query_one(AskPane)
    pilot.app.query_one("#question", Input).value = question
    await pilot.press("enter")
    return pane


class TestAsk:
    async def test_question_streams_trajectory_answer_and_citations(self, make_app):
        seen = []
        app = make_app()
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            assert 1 in pane.records  # busy, input disabled, until the answer arrives
            await wait_for(pilot, lambda: not pane.busy)
            record = pane.records[1]
            assert record.state == "done"
            kinds = [type(e) for e in record.events]
            assert kinds[0] is SearchEvent and NoteEvent in kinds and FinishEvent in kinds
            search = record.events[0]
            assert search.keywords == search_words("When is my flight to Lisbon?") == ["flight", "Lisbon"]
            assert search.hits
            # the view shows the same events, the answer and one citation per cited turn
            assert pane.query_one(TrajectoryView).events == tuple(record.events)
            view = pane.query_one(AnswerView)
            assert view.answer == SHOWN and not view.streaming
            assert view.citations == ((LISBON, 2, "Lisbon trip planning"),)
            # messages: steps and streamed pieces arrived before the final answer
            names = [type(m) for m in seen]
            assert AgentStepped in names and AnswerStreamed in names
            assert names.index(AnswerStreamed) < names.index(QuestionAnswered)
            assert not pane.query_one("#question", Input).disabled

    async def test_citation_opens_transcript_at_the_cited_turn(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            citations = pane.query_one("#citations", ListView)
            citations.focus()
            citations.index = 0
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded)
            screen = app.screen
            assert screen.session_id == LISBON and screen.highlight_turn == 2
            cited = list(screen.query(".-cited"))
            assert [w.id for w in cited] == ["turn-2"]
            assert "TP1351" in str(cited[0].render())
            await pilot.press("escape")
            assert not isinstance(app.screen, TranscriptScreen)

    async def test_unsure_is_shown_as_unsure_with_the_passages_never_as_an_answer(self, make_app, backend):
        backend.responder = responder(confirms=False)  # the cited turn does not plainly answer it
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            record = pane.records[1]
            assert record.state == "done" and record.outcome == "unsure"
            view = pane.query_one(AnswerView)
            assert view.has_class("-unsure")
            assert "UNSURE" in str(view.query_one("#outcome", Label).render())
            assert "Closest passages" in str(view.query_one("#citations-title", Label).render())
            assert record.answer.startswith("Unsure:") and "TP1351" in record.answer  # the turn, verbatim
            assert record.citations and record.citations[0][0] == LISBON
            # the next question, confirmed, is an answer again
            backend.responder = responder()
            await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            assert pane.records[2].outcome == "answer" and not view.has_class("-unsure")

    async def test_escape_cancels_the_question_in_flight(self, make_app, backend):
        gate = threading.Event()
        backend.responder = responder(gate)
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: len(backend.calls) == 1)  # the model is "thinking"
            await pilot.press("escape")
            await wait_for(pilot, lambda: not pane.busy)
            gate.set()
            record = pane.records[1]
            assert record.state == "cancelled"
            box = pane.query_one("#question", Input)
            assert box.value == "When is my flight to Lisbon?" and not box.disabled
            await pilot.pause(0.3)
            # the abandoned run stops at its next step and never reaches the answer
            assert record.answer == "" and not any(c.streamed for c in backend.calls)
            # the next question runs normally
            backend.responder = responder()
            await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            assert pane.records[2].state == "done"

    async def test_failure_shows_error_and_restores_the_question(self, make_app):
        def broken(settings, progress=None):
            raise BackendError(
                "the server at http://localhost:9 refused the connection; start it or pick "
                "the llama back end in Settings",
                "model back end error",
            )

        seen = []
        app = make_app(backend_factory=broken)
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: isinstance(app.screen, ErrorModal))
            assert "refused the connection" in app.screen.message
            assert any(isinstance(m, WorkerFailed) for m in seen)
            assert pane.records[1].state == "failed" and not pane.busy
            assert pane.query_one("#question", Input).value == "When is my flight to Lisbon?"
            await pilot.press("escape")
            assert not isinstance(app.screen, ErrorModal)

    async def test_previous_questions_stay_browsable(self, make_app, backend):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            backend.responder = responder(answer="I found nothing about sourdough timing.")
            await ask(pilot, "How long do I proof the sourdough?")
            await wait_for(pilot, lambda: not pane.busy)
            history = pane.query_one("#history", ListView)
            assert len(history) == 2 and pane.shown == 2
            history.focus()
            history.index = 0
            await pilot.press("enter")
            assert pane.shown == 1
            assert pane.query_one(AnswerView).answer == SHOWN

    async def test_mode_and_backend_are_switchable(self, make_app):
        made = []

        def factory(settings, progress=None):
            made.append(settings.backend)
            return ScriptedBackend(responder())

        app = make_app(backend_factory=factory)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            pane = app.query_one(AskPane)
            pane.query_one("#ask-mode").value = "one-search"
            pane.query_one("#ask-backend").value = "openai"
            await pilot.pause()
            assert app.settings.backend == "openai"
            await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: not pane.busy)
            record = pane.records[1]
            assert record.mode == "one-search" and record.state == "done"
            assert made == ["openai"]
            assert [e.how for e in record.events if isinstance(e, NoteEvent)] == ["all"]


class TestEvidenceFirst:
    """The first search needs no model: its hits are shown before the model loads or is called."""

    async def test_first_search_hits_show_while_a_slow_model_loads(self, make_app, backend):
        gate = threading.Event()
        built = []

        def slow_load(settings, progress=None):  # a model that loads for as long as the test wants
            built.append(1)
            gate.wait(10)
            return backend

        seen = []
        app = make_app(backend_factory=slow_load)
        async with app.run_test(size=(120, 40), message_hook=seen.append) as pilot:
            await wait_indexed(pilot)
            bar = app.query_one(StatusBar)
            pane = await ask(pilot, "When is my flight to Lisbon?")
            trajectory = pane.query_one(TrajectoryView)
            await wait_for(pilot, lambda: bool(trajectory.events))
            first = trajectory.events[0]
            assert isinstance(first, SearchEvent) and first.step == 1 and first.hits
            assert "search flight, Lisbon" in str(trajectory.render())
            # the model's load started only after the hits were posted, and it is still loading
            await wait_for(pilot, lambda: bar.model.state == "loading")
            assert built == [1] and backend.calls == [] and pane.busy
            assert bar.model_text().startswith("model loading: ")
            gate.set()
            await wait_for(pilot, lambda: not pane.busy)
            assert pane.records[1].state == "done" and backend.calls
            kinds = [type(m) for m in seen if isinstance(m, AgentStepped | ModelLoadStarted | BackendReady)]
            assert kinds.index(AgentStepped) < kinds.index(ModelLoadStarted) < kinds.index(BackendReady)
            steps = [m.event for m in seen if isinstance(m, AgentStepped)]
            assert steps[0] is first  # the search message came first, before any model call

    async def test_status_bar_tells_the_models_real_state(self, make_app, backend):
        gate = threading.Event()
        backend.responder = responder(gate)  # the first model call waits for the test
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_indexed(pilot)
            bar = app.query_one(StatusBar)
            assert bar.model_text() == "model: not loaded"
            pane = await ask(pilot, "When is my flight to Lisbon?")
            await wait_for(pilot, lambda: len(backend.calls) == 1)
            await wait_for(pilot, lambda: bar.model.state == "ready" and bar.answering)
            name = embedded_entry().name  # the default model, named as the catalog names it
            assert bar.model_text() == f"model answering: {name}"
            assert f"model answering: {name}" in str(bar.query_one("#status-model").render())
            gate.set()
            await wait_for(pilot, lambda: not pane.busy)
            await wait_for(pilot, lambda: not bar.answering)
            assert bar.model_text() == f"model loaded: {name}"


async def test_the_trajectory_names_a_batch_before_its_results(make_app, backend):
    """A question that adds things up on a back end that decodes calls together: the trajectory pane
    says what the batch is for ("judging the results of N searches together") while it runs."""
    from helpers.agent import Batching

    from refind_desktop.agent import BatchEvent

    batching = Batching(backend.responder)
    app = make_app(backend_factory=lambda settings, progress=None: batching)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_indexed(pilot)
        pane = await ask(pilot, "How many trips did I plan?")
        await wait_for(pilot, lambda: not pane.busy)
        shown = [e for e in pane.records[1].events if isinstance(e, BatchEvent)]
        assert batching.batches and [e.calls for e in shown] == batching.batches
        trajectory = pane.query_one(TrajectoryView)
        assert shown[0].describe() in str(trajectory.content)
