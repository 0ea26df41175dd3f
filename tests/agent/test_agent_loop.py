"""Stage-1 loop logic and the answer stage, driven by the scripted back end over a small archive."""

from __future__ import annotations

import json
import threading

import pytest
from helpers.agent import by_stage, day, stage_of

from refind_desktop.agent import (
    Agent,
    AgentCancelled,
    AgentConfig,
    AnswerEvent,
    AnswerTokenEvent,
    FinishEvent,
    NoteEvent,
    RetryEvent,
    SearchEvent,
)
from refind_desktop.agent.answer import parse_citations
from refind_desktop.agent.prompts import NO_HISTORY_ANSWER
from refind_desktop.agent.schemas import extract_json, validate
from refind_desktop.errors import BackendError
from refind_desktop.llm.scripted import ScriptedBackend

NOW = day(3, 15)


def kinds(result):
    return [e.type for e in result.trajectory]


def test_scripted_backend_queue_records_and_runs_dry():
    b = ScriptedBackend().enqueue({"a": 1}, "plain")
    c = b.complete([], schema={"type": "object"})
    assert c.data == {"a": 1} and json.loads(c.text) == {"a": 1}
    assert b.complete([]).text == "plain"
    assert [call.schema for call in b.calls] == [{"type": "object"}, None]
    with pytest.raises(BackendError):
        b.complete([])
    with pytest.raises(BackendError):  # a schema call answered with non-JSON text
        ScriptedBackend().enqueue("nope").complete([], schema={"type": "object"})
    pieces = list(ScriptedBackend().enqueue("a b c").stream([]))
    assert "".join(p for p in pieces if isinstance(p, str)) == "a b c"


def test_dedup_across_rounds_and_notes_survive_later_searches(svc):
    searches = iter(
        [
            {"action": "search_chatrecord", "keywords": ["umbrella"], "date_from": None, "date_to": None},
            {"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
        ]
    )
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge=lambda text: {"answer": "yes" if "Louvre" in text or "umbrella shopping" in text else "no"},
            next=lambda _: next(searches),
            answer="The red umbrella cost 30 euros [s:paris turn 2].",
        )
    )
    result = Agent(svc.engine, backend, options=svc.search_options(top_k=2)).run("umbrella price?", NOW)
    s1, s2 = result.searches
    first = {sid for _, sid, _ in s1.hits}
    second = {sid for _, sid, _ in s2.hits}
    assert first and second and not first & second
    assert kinds(result) == ["search", "note", "search", "note", "finish"]
    # the round-1 note is still there after round 2, and both reach the answer prompt
    assert result.noted_sessions == ["s:paris", "s:poison"]
    answer_call = [c for c in backend.calls if c.streamed][0]
    assert "Louvre" in answer_call.prompt and "umbrella shopping" in answer_call.prompt
    # stage 2 lists sessions oldest first
    assert answer_call.prompt.index("Session s:paris") < answer_call.prompt.index("Session s:poison")
    # notes are complete blocks: the paris note keeps its +-2 context turns
    assert [t.turn for t in result.notes[0].block.turns] == [0, 1, 2, 3, 4]
    assert result.citations == [("s:paris", 2)]
    assert isinstance(result.trajectory[-1], FinishEvent) and result.trajectory[-1].reason == "model"


def test_search_cap_is_four(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["the"]},
            judge={"answer": "no"},
            next={
                "action": "search_chatrecord",
                "keywords": ["umbrella", "bike", "report", "tomatoes"],
                "date_from": None,
                "date_to": None,
            },
            answer="unused",
        )
    )
    result = Agent(svc.engine, backend, options=svc.search_options(top_k=1)).run("anything?", NOW)
    assert len(result.searches) == 4
    assert result.trajectory[-1].reason == "max_searches"
    # no "next" step is asked after the last allowed search
    assert sum(stage_of(c.schema) == "next" for c in backend.calls) == 3
    assert len(result.searches) <= AgentConfig().max_searches


def test_malformed_actions_are_bounded_retries(svc):
    backend = ScriptedBackend().enqueue("not json at all", {"keywords": []}, {"keywords": ["x"], "rm": "-rf"})
    result = Agent(svc.engine, backend, config=AgentConfig(max_retries=2)).run("what?", NOW)
    retries = [e for e in result.trajectory if isinstance(e, RetryEvent)]
    assert [r.attempt for r in retries] == [1, 2, 3] and retries[-1].gave_up
    assert "JSON" in retries[0].reason or "back end" in retries[0].reason
    assert "at least 1" in retries[1].reason and "unknown field" in retries[2].reason
    assert kinds(result) == ["retry", "retry", "retry", "finish"]
    assert result.trajectory[-1].reason == "retries"
    assert len(backend.calls) == 3 and result.abstained
    # the retry prompt carries the error back to the model
    assert "invalid" in backend.calls[1].messages[-1].content


def test_bad_dates_and_then_a_valid_action(svc):
    backend = ScriptedBackend(by_stage(judge={"answer": "yes"}, answer="ok [s:bike turn 0]")).enqueue(
        {"keywords": ["bike"]}
    )
    nexts = iter(
        [
            {"action": "search_chatrecord", "keywords": ["bike"], "date_from": "2024-13-01", "date_to": None},
            {
                "action": "search_chatrecord",
                "keywords": ["bike"],
                "date_from": "2024-03-01",
                "date_to": "2024-02-01",
            },
            {"action": "search_chatrecord", "keywords": ["bike"], "date_from": "2030-01-01", "date_to": None},
            {
                "action": "search_chatrecord",
                "keywords": ["umbrella"],
                "date_from": "2024-02-01",
                "date_to": "2024-02-28",
            },
            {"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
        ]
    )
    backend.responder = by_stage(judge={"answer": "yes"}, next=lambda _: next(nexts), answer="ok")
    result = Agent(svc.engine, backend, config=AgentConfig(max_retries=3)).run("bike?", NOW)
    reasons = [e.reason for e in result.trajectory if isinstance(e, RetryEvent)]
    assert len(reasons) == 3 and "not a date" in reasons[0] and "after date_to" in reasons[1]
    assert "after today" in reasons[2]
    dated = result.searches[1]
    assert (str(dated.date_from), str(dated.date_to)) == ("2024-02-01", "2024-02-28")
    assert {sid for _, sid, _ in dated.hits} <= {"s:dog", "s:poison"}  # February only


def test_no_results_and_abstention_without_a_model_call(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["zeppelin"]},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
        )
    )
    events = []
    result = Agent(svc.engine, backend).run("when did I ride a zeppelin?", NOW, on_event=events.append)
    assert result.searches[0].hits == []
    assert not any(stage_of(c.schema) == "judge" for c in backend.calls)
    assert result.answer == NO_HISTORY_ANSWER and result.abstained and result.citations == []
    assert all(c.schema is not None for c in backend.calls)  # the answer model was never asked to guess
    assert isinstance(events[-1], AnswerEvent) and events[-1].abstained


def test_citations_only_count_when_they_point_into_the_notes(svc):
    answer = (
        "It was 30 euros [s:paris turn 2]; see also [s:paris, turn 1] and [session s:paris turn 3; "
        "s:bike turn 0] and [s:paris turn 99] and [s:nope turn 1]."
    )
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella", "euros"]},
            judge=lambda t: {"answer": "yes" if "Louvre" in t else "no"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer=answer,
        )
    )
    result = Agent(svc.engine, backend).run("umbrella price?", NOW)
    assert result.noted_sessions == ["s:paris"]
    assert result.citations == [("s:paris", 2), ("s:paris", 1), ("s:paris", 3)]
    assert parse_citations("no brackets here s:paris turn 2", {("s:paris", 2)}) == []


def test_batch_take_note_validates_indices(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="fine",
        )
    ).enqueue({"keywords": ["umbrella"]}, {"indices": [7]}, {"indices": [1, 1, 2]})
    result = Agent(svc.engine, backend, config=AgentConfig(judge="batch")).run("umbrella?", NOW)
    retry = [e for e in result.trajectory if isinstance(e, RetryEvent)]
    assert len(retry) == 1 and "does not exist" in retry[0].reason
    note = [e for e in result.trajectory if isinstance(e, NoteEvent)][0]
    assert note.indices == [1, 2] and note.how == "chosen"


def test_streamed_tokens_and_answer_event(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["bike"]},
            judge={"answer": "yes"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="A blue Trek [s:bike turn 0]",
        )
    )
    events = []
    result = Agent(svc.engine, backend).run("which bike?", NOW, on_event=events.append)
    tokens = "".join(e.text for e in events if isinstance(e, AnswerTokenEvent))
    assert tokens == result.answer == "A blue Trek [s:bike turn 0]"
    assert result.citations == [("s:bike", 0)]
    # stage 2 gets the question date and the session date
    prompt = [c for c in backend.calls if c.streamed][0].prompt
    assert "Current time: 2024-03-15 (Friday)" in prompt and "2024-02-20 (Tuesday)" in prompt


def test_one_search_and_generic_modes(svc):
    backend = ScriptedBackend(by_stage(query={"keywords": ["umbrella"]}, answer="x"))
    one = Agent(svc.engine, backend, mode="one-search").run("umbrella?", NOW)
    assert kinds(one) == ["search", "note", "finish"] and one.trajectory[-1].reason == "one-search"
    assert len(one.notes) == len(one.searches[0].hits) > 0
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge={"answer": "yes"},
            next={"action": "search_chatrecord", "keywords": ["umbrella"]},
            answer="x",
        )
    )
    gen = Agent(svc.engine, backend, mode="generic").run("umbrella?", NOW)
    assert gen.searches[0].hits[0] == gen.searches[1].hits[0]  # no seen-session exclusion
    assert all(len(n.block.turns) == 1 for n in gen.notes)  # no context window
    next_schema = [c.schema for c in backend.calls if stage_of(c.schema) == "next"][0]
    assert "date_from" not in next_schema["properties"]  # no time filter offered
    assert "Time filtering" not in backend.calls[0].messages[0].content


def test_cancel_stops_between_steps(svc):
    cancel = threading.Event()
    backend = ScriptedBackend(by_stage(query={"keywords": ["umbrella"]}, judge={"answer": "yes"}))

    def on_event(e):
        if isinstance(e, SearchEvent):
            cancel.set()

    with pytest.raises(AgentCancelled):
        Agent(svc.engine, backend).run("umbrella?", NOW, on_event=on_event, cancel=cancel)
    assert not any(stage_of(c.schema) == "judge" for c in backend.calls)


def test_result_json_shape(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge={"answer": "yes"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="30 euros [s:paris turn 2]",
        )
    )
    data = Agent(svc.engine, backend).run("umbrella price?", NOW).to_json()
    json.dumps(data)
    assert {"answer", "citations", "trajectory", "usage"} <= set(data)
    assert data["citations"] == [{"session_id": "s:paris", "turn": 2}]
    assert [t["type"] for t in data["trajectory"]] == ["search", "note", "finish"]
    search = data["trajectory"][0]
    assert {"keywords", "date_from", "date_to", "hits", "top_k"} <= set(search)
    assert set(search["hits"][0]) == {"rank", "session_id", "turn"}
    assert data["trajectory"][-1]["action"] == "finish_search"
    usage = data["usage"]
    assert usage["llm_calls"] == len(backend.calls) and usage["searches"] == 1
    assert {"prompt_tokens", "completion_tokens", "search_seconds", "model_seconds"} <= set(usage)


def test_schema_validator_and_json_extraction():
    from refind_desktop.agent.schemas import next_schema

    s = next_schema(True)
    assert (
        validate({"action": "finish_search", "keywords": [], "date_from": None, "date_to": None}, s) is None
    )
    assert "one of" in validate({"action": "delete", "keywords": [], "date_from": None, "date_to": None}, s)
    assert "missing" in validate({"action": "finish_search"}, s)
    assert extract_json('Thought: ok\n```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('blah {"a": [1, 2]} tail') == {"a": [1, 2]}
    with pytest.raises(ValueError):
        extract_json("no json")


def test_answer_prompt_over_context_is_shrunk_and_retried(svc):
    sizes = []

    def answer(text):
        sizes.append(len(text))
        if len(sizes) == 1:
            raise BackendError("Requested tokens (9000) exceed context window of 8192")
        return "30 euros [s:paris turn 2]"

    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge={"answer": "yes"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer=answer,
        )
    )
    result = Agent(svc.engine, backend, config=AgentConfig(answer_chars=8000)).run("umbrella?", NOW)
    assert result.answer == "30 euros [s:paris turn 2]" and len(sizes) == 2


def test_fallback_keeps_first_results_when_the_controller_saves_nothing(svc):
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge={"answer": "no"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="The umbrella was bought at the Louvre shop [s:paris turn 1].",
        )
    )
    result = Agent(svc.engine, backend, config=AgentConfig(fallback_notes=2)).run("umbrella?", NOW)
    first = result.searches[0].hits
    note = [e for e in result.trajectory if isinstance(e, NoteEvent)]
    assert len(note) == 1 and note[0].how == "fallback"
    assert note[0].saved == [(sid, turn) for _, sid, turn in first[:2]]
    assert len(result.notes) == 2 and not result.abstained
    assert any(stage_of(c.schema) == "answer" for c in backend.calls)
    # with the fallback off, the same run abstains without asking the answer model
    backend = ScriptedBackend(
        by_stage(
            query={"keywords": ["umbrella"]},
            judge={"answer": "no"},
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="x",
        )
    )
    result = Agent(svc.engine, backend, config=AgentConfig(fallback_notes=0)).run("umbrella?", NOW)
    assert result.abstained and result.notes == []
