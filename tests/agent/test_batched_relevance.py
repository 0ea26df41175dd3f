"""Relevance calls made together: a question that adds things up runs its first search, its second look
and its first follow-up search, then judges all their results in one batch, with the same prompts and
the same notes, in the same order, as one call at a time; a question about one fact has no relevance
call and keeps each search's results as it goes."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.agent import Batching, by_stage, day, session, stage_of

from refind_desktop.agent import Agent, AgentConfig, NoteEvent
from refind_desktop.agent.controllers import SmallController
from refind_desktop.llm.scripted import ScriptedBackend
from refind_desktop.services import build_services

NOW = day(6, 1)
PLANTS = [
    session("s:basil", day(3, 2), "I repotted the basil on the balcony", "It needs more sun"),
    session("s:fern", day(3, 9), "Bought a fern for the bathroom plant shelf", "Ferns like the damp"),
    session("s:cactus", day(3, 20), "A friend gave me a cactus plant for my desk", "Water it once a month"),
    session("s:orchid", day(4, 2), "The orchid plant from the market is blooming", "White flowers"),
    session("s:ivy", day(4, 15), "I bought an ivy plant and a clay pot", "It climbs the shelf"),
    session("s:mint", day(4, 28), "Mint plant on the windowsill keeps spreading", "Tea every morning"),
    session("s:palm", day(5, 6), "Got a small palm plant for the living room", "Repotted it yesterday"),
    session("s:soup", day(5, 10), "Made leek soup for dinner", "Too salty"),
]
QUESTION = "How many plants did I buy for my flat?"


def _run(backend, sessions=PLANTS, question=QUESTION):
    svc = build_services()
    try:
        svc.ingestor.apply_sessions(sessions, "agent-tests", "generic")
        agent = Agent(
            svc.engine, backend, options=svc.search_options(top_k=2), config=AgentConfig(controller="small")
        )
        return agent.run(question, NOW)
    finally:
        svc.close()


def _replies():
    # each search's second result is the relevant one; the readings find nothing
    return by_stage(relevance={"relevant": [2]}, read={"found": False, "items": []})


def _notes(result):
    return [(n.block.session_id, n.block.turn, n.how, n.step) for n in result.notes]


def test_a_count_judges_its_first_three_searches_in_one_batch_with_the_same_notes_as_one_by_one():
    one_by_one = ScriptedBackend(_replies())
    plain = _run(one_by_one)
    together = Batching(_replies())
    batched = _run(together)
    assert len(batched.searches) == 3  # the first search, the second look, the first follow-up
    assert together.steps[0] == ["relevance"] * 3  # judged together, before any reading
    assert [c.messages for c in together.calls] == [c.messages for c in one_by_one.calls]  # same prompts
    assert [s.keywords for s in batched.searches] == [s.keywords for s in plain.searches]
    assert _notes(batched) == _notes(plain)
    # the notes in the searches' order: each one's relevant result, then the rest of the first two
    # (every result of theirs is kept), and only the relevant one of the follow-up
    hits = [[(sid, turn) for _rank, sid, turn in s.hits] for s in batched.searches]
    assert [(sid, turn, how) for sid, turn, how, _ in _notes(batched)] == [
        (*hits[0][1], "judged"),
        (*hits[0][0], "kept"),
        (*hits[1][1], "judged"),
        (*hits[1][0], "kept"),
        (*hits[2][1], "judged"),
    ]
    assert [r for *_, r in _notes(batched)] == [1, 1, 2, 2, 3]
    logged = [c for c in batched.call_log if c["stage"] == "controller"]
    assert [c.get("batch") for c in logged] == [3, 3, 3]


def test_the_follow_up_words_count_results_about_to_be_noted_as_notes():
    svc = build_services()
    try:
        svc.ingestor.apply_sessions(PLANTS, "agent-tests", "generic")
        agent = Agent(svc.engine, ScriptedBackend(_replies()), options=svc.search_options(top_k=3))
        controller = SmallController()
        early = agent.new_run(QUESTION, NOW)
        found = early.search(["plant"])
        ahead = controller.next_search(early, found)
        late = agent.new_run(QUESTION, NOW)
        late.note([1, 2, 3], late.search(["plant"]), "kept")
        assert ahead is not None and ahead == controller.next_search(late)
        assert ahead != controller.next_search(agent.new_run(QUESTION, NOW))  # the pending results count
    finally:
        svc.close()


def test_a_question_about_one_fact_keeps_each_searchs_results_as_it_goes():
    backend = Batching(_replies())
    result = _run(backend, question="Which plant did I put on the shelf?")
    assert not any(stage_of(c.schema) == "relevance" for c in backend.calls)
    steps = [e.type for e in result.trajectory if e.type in ("search", "note")]
    assert steps[:4] == ["search", "note", "search", "note"]
    assert all(e.how == "kept" for e in result.trajectory if isinstance(e, NoteEvent))


def test_a_relevance_reply_that_lists_every_result_fits_the_room_it_is_given(embedded_gguf: Path):
    # a reply cut at its room is asked again alone with twice the room: in a batch that means its whole
    # prompt read once more, so the room must hold the longest reply, counted in the model's own tokens
    import llama_cpp

    many = [session(f"s:pot{i}", day(2, i + 1), f"Plant number {i} went into a new pot") for i in range(12)]
    svc = build_services()
    try:
        svc.ingestor.apply_sessions(many, "agent-tests", "generic")
        backend = ScriptedBackend(lambda _messages, _schema: {"relevant": list(range(1, 11))})
        run = Agent(svc.engine, backend, options=svc.search_options(top_k=10)).new_run(QUESTION, NOW)
        blocks = run.search(["plant", "pot"])
        assert len(blocks) == 10
        assert SmallController().relevant(run, [blocks]) == [list(range(1, 11))]
    finally:
        svc.close()
    (call,) = backend.calls
    vocab = llama_cpp.Llama(model_path=str(embedded_gguf), vocab_only=True, verbose=False)
    longest = json.dumps({"relevant": list(range(1, 11))}).encode()
    assert len(vocab.tokenize(longest, add_bos=False)) <= call.max_tokens
