"""Readings made together: a question that reads its whole budget sends its readings in one batch when
the back end decodes several calls at once; a reply that needs another attempt gets it alone; a question
about one fact still reads one passage at a time and stops at the first that states it."""

from __future__ import annotations

from datetime import UTC, datetime

from helpers.agent import Batching, ask_once, by_stage, day, reading_of, session

from refind_desktop.agent.question import understand
from refind_desktop.agent.run import Run
from refind_desktop.llm.base import ChatMessage
from refind_desktop.llm.scripted import ScriptedBackend

NOW = datetime(2024, 6, 1, tzinfo=UTC)

BIKES = [
    session("s:trek", day(2, 3), "I bought a road bike last week, a blue Trek", "It rides well"),
    session("s:gravel", day(3, 9), "Picked up a gravel bike from the shop today", "Tyres are wide"),
    session("s:kid", day(4, 2), "Got my daughter her first bike for her birthday", "She loved it"),
    session("s:soup", day(4, 20), "Made leek soup for dinner", "Too salty"),
]


def _ask(question: str, backend_type=ScriptedBackend):
    import helpers.agent as helper  # ask_once builds a ScriptedBackend: the batching one takes its place

    original = helper.ScriptedBackend
    helper.ScriptedBackend = backend_type
    try:
        return ask_once(BIKES, question, NOW, relevance={"relevant": [1, 2, 3]}, read=reading_of("bike"))
    finally:
        helper.ScriptedBackend = original


def test_a_count_reads_its_passages_in_one_batch_with_the_same_answer_as_one_by_one():
    plain, one_by_one = _ask("How many bikes did I buy?")
    batched, backend = _ask("How many bikes did I buy?", Batching)
    assert backend.batches and max(backend.batches) >= 2  # the readings went together
    reads = [c for c in backend.calls if c.schema and "found" in c.schema.get("properties", {})]
    assert sum(backend.batches) == len(reads)  # every reading was one of a batch
    assert batched.answer == plain.answer and batched.outcome == plain.outcome
    assert [c.messages for c in backend.calls] == [c.messages for c in one_by_one.calls]  # same prompts
    logged = [c for c in batched.call_log if c["stage"] == "answer" and "batch" in c]
    assert logged and all(c["batch"] >= 2 for c in logged)


def test_a_question_about_one_fact_reads_one_passage_at_a_time():
    _result, backend = _ask("Which bike did I buy in February?", Batching)
    assert backend.batches == []


def test_a_batched_reply_that_is_invalid_is_asked_again_alone():
    backend = Batching(by_stage(read={"found": False, "items": []}), spoil={1})
    asked = understand("How many bikes did I buy?", NOW, UTC)
    run = Run("q", NOW, UTC, asked, "", None, backend, "You read chats.", 5)  # type: ignore[arg-type]
    schema = {
        "type": "object",
        "properties": {"found": {"type": "boolean"}, "items": {"type": "array", "maxItems": 1}},
        "required": ["found", "items"],
        "additionalProperties": False,
    }
    steps = [(f"Question: q\nChat excerpt:\n<<<DATA\n[T0] text {i}\nDATA>>>", schema, 60) for i in range(3)]
    got = run.ask_many("read", steps, usage_stage="answer")
    assert got == [{"found": False, "items": []}] * 3
    assert backend.batches == [3]
    assert len(backend.calls) == 4  # three in the batch, then the spoiled one again
    retry = backend.calls[-1].messages
    assert retry[-1].role == "user" and "invalid" in retry[-1].content
    assert isinstance(retry[0], ChatMessage)


def test_a_person_waiting_is_told_what_the_batch_is_for_before_it_runs(capsys):
    """The readings made together are announced before the first of their results (CLI line, MCP progress
    line), and the announcement is not part of the question's trajectory."""
    from refind_desktop.agent import Agent, AgentConfig, BatchEvent, ReadEvent
    from refind_desktop.cli.ask import StepPrinter
    from refind_desktop.mcp.server import progress_message
    from refind_desktop.services import build_services

    svc = build_services()
    try:
        svc.ingestor.apply_sessions(BIKES, "agent-tests", "generic")
        backend = Batching(by_stage(relevance={"relevant": [1, 2, 3]}, read=reading_of("bike")))
        events: list = []
        agent = Agent(svc.engine, backend, config=AgentConfig(controller="small", max_rounds=1))
        result = agent.run("How many bikes did I buy?", NOW, on_event=events.append)
    finally:
        svc.close()
    kinds = [type(e) for e in events]
    announced = [e for e in events if isinstance(e, BatchEvent) and e.stage == "read"]
    assert announced and announced[0].calls == max(backend.batches)
    assert kinds.index(BatchEvent) < kinds.index(ReadEvent)  # before the first reading's result
    assert not any(isinstance(e, BatchEvent) for e in result.trajectory)

    StepPrinter(stream_answer=False)(announced[0])
    assert f"reading {announced[0].calls} passages together" in capsys.readouterr().err
    assert progress_message(announced[0]) == f"reading {announced[0].calls} passages together"
