"""Stage-1 controllers and the answer stage, driven by the scripted back end over a small archive."""

from __future__ import annotations

import json
import threading
from datetime import date

import pytest
from helpers.agent import ARCHIVE, by_stage, day, stage_of

from refind_desktop.agent import (
    Agent,
    AgentCancelled,
    AgentConfig,
    AnswerEvent,
    DateHint,
    NoteEvent,
    RetryEvent,
    SearchEvent,
)
from refind_desktop.agent.keywords import query_key, search_words
from refind_desktop.errors import (
    BackendError,
    BackendUnavailableError,
    InvalidOutputError,
)
from refind_desktop.llm.scripted import ScriptedBackend

NOW = day(3, 15)
NONE = {"relevant": []}


def every_result(text):
    """A relevance reply naming every result of the prompt."""
    return {"relevant": [i for i in range(1, 30) if f"\n{i}. [" in text]}


def kinds(result):
    """The stage-1 steps (the answer stage's readings follow them)."""
    return [e.type for e in result.trajectory if e.type != "read"]


def finish(result):
    """The run's FinishEvent (the end of stage 1)."""
    return next(e for e in result.trajectory if e.type == "finish")


def small(**kw):
    return AgentConfig(controller="small", **kw)


def test_scripted_backend_validates_like_a_real_one():
    b = ScriptedBackend().enqueue({"a": 1}, "plain")
    c = b.complete([], schema={"type": "object"})
    assert c.data == {"a": 1} and json.loads(c.text) == {"a": 1}
    assert b.complete([]).text == "plain"
    with pytest.raises(BackendError):
        b.complete([])
    with pytest.raises(InvalidOutputError):  # a schema call answered with non-JSON text
        ScriptedBackend().enqueue("nope").complete([], schema={"type": "object"})
    with pytest.raises(InvalidOutputError):  # the one validator checks the schema's keywords
        ScriptedBackend().enqueue({"d": "x"}).complete(
            [], schema={"type": "object", "properties": {"d": {"type": "string", "pattern": "^[0-9]+$"}}}
        )
    with pytest.raises(BackendUnavailableError):
        ScriptedBackend().enqueue(BackendUnavailableError("down")).complete([])


def test_first_search_runs_before_any_model_call_and_shows_its_hits(svc):
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="A red umbrella [S1 T1]."))
    calls_at_first_search = []

    def on_event(e):
        if isinstance(e, SearchEvent) and not calls_at_first_search:
            calls_at_first_search.append(len(backend.calls))
            assert e.blocks and e.blocks[0].turns  # the verbatim hits travel with the event

    result = Agent(svc.engine, backend, config=small()).run(
        "Where did I buy my umbrella?", NOW, on_event=on_event
    )
    assert calls_at_first_search == [0]
    assert result.searches[0].keywords == search_words("Where did I buy my umbrella?") == ["buy", "umbrella"]


def test_one_batched_relevance_call_per_search(svc):
    from refind_desktop.agent.controllers import SmallController

    backend = ScriptedBackend(by_stage(relevance={"relevant": [1, 3]}, answer="ok [S1 T1]"))
    once = SmallController(second_look=False, judge_single=True)
    result = Agent(svc.engine, backend, options=svc.search_options(top_k=4), controller=once).run(
        "umbrella Louvre shop?", NOW
    )
    relevance = [c for c in backend.calls if stage_of(c.schema) == "relevance"]
    assert len(relevance) == len(result.searches) == 1
    prompt = relevance[0].prompt
    hits = result.searches[0].hits
    n = len(hits)
    assert n >= 3 and all(f"\n{i}. [" in prompt for i in range(1, n + 1))  # all K results in one call
    enum = relevance[0].schema["properties"]["relevant"]["items"]["enum"]
    assert enum == list(range(1, n + 1))  # only existing result numbers can be named
    note, kept = [e for e in result.trajectory if isinstance(e, NoteEvent)]
    assert note.indices == [1, 3] and note.how == "judged"
    assert [s for s, _ in note.saved] == [hits[0][1], hits[2][1]]
    # the other results of the first search are kept too, after the judged ones (a small model's
    # relevance call ranks well but drops answers)
    assert kept.how == "kept" and [s for s, _ in kept.saved] == [h[1] for h in hits if h[0] not in (1, 3)]
    assert [n.how for n in result.notes[:2]] == ["judged", "judged"]
    assert kinds(result) == ["search", "note", "note", "finish"] and finish(result).reason == "found"


def test_no_search_runs_twice(svc):
    # nothing is ever relevant: the controller searches again, each time with other words
    backend = ScriptedBackend(by_stage(relevance=NONE, answer="x"))
    result = Agent(svc.engine, backend, config=small(max_rounds=3)).run("umbrella bike tomatoes?", NOW)
    keys = [query_key(s.keywords) | {str(s.date_from), str(s.date_to)} for s in result.searches]
    # the second look re-ranks the first search's words (turn BM25 alone); every other search differs
    assert 2 <= len(keys) <= 3 and keys[0] == keys[1] and len(set(keys[1:])) == len(keys) - 1
    assert not any(stage_of(c.schema) == "query" for c in backend.calls)  # follow-ups need no model call
    # the first search's and the second look's results are kept as notes: they reach the answer stage
    assert [e.how for e in result.trajectory if isinstance(e, NoteEvent)] == ["kept", "kept"]


def test_a_repeated_model_query_is_not_run(svc):
    from refind_desktop.agent.controllers import SmallController

    question = "umbrella Louvre soup?"
    first = search_words(question)
    backend = ScriptedBackend(
        by_stage(relevance=NONE, query={"keywords": first, "date_from": None, "date_to": None}, answer="x")
    )
    controller = SmallController(max_rounds=2, model_keywords=True, second_look=False, judge_single=True)
    result = Agent(svc.engine, backend, controller=controller).run(question, NOW)
    assert sum(stage_of(c.schema) == "query" for c in backend.calls) == 1  # the model proposed a repeat
    a, b = result.searches
    assert a.keywords == first and query_key(b.keywords) != query_key(first)  # ... which was replaced


def test_aggregation_questions_search_more_rounds_than_lookups(svc):
    nexts = iter([["bike", "Trek"], ["report", "meeting"]])
    backend = ScriptedBackend(
        by_stage(
            relevance={"relevant": [1]},
            query=lambda _: {"keywords": next(nexts), "date_from": None, "date_to": None},
            answer="x",
        )
    )
    result = Agent(svc.engine, backend, options=svc.search_options(top_k=1), config=small(max_rounds=3)).run(
        "How many umbrellas did I buy?", NOW
    )
    assert len(result.searches) == 3 and result.to_json()["kind"] == "count"
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    lookup = Agent(svc.engine, backend, options=svc.search_options(top_k=1), config=small(max_rounds=3)).run(
        "Where is the umbrella from?", NOW
    )
    assert len(lookup.searches) == 2  # the first search and its second look, then "found"


def test_nothing_found_abstains_without_a_model_answer(svc):
    backend = ScriptedBackend(by_stage(query={"keywords": ["zeppelin"], "date_from": None, "date_to": None}))
    events = []
    result = Agent(svc.engine, backend, config=small()).run(
        "when did I ride a zeppelin?", NOW, on_event=events.append
    )
    assert all(s.hits == [] for s in result.searches)
    assert result.abstained and "not in your history" in result.answer
    assert not any(c.streamed for c in backend.calls)
    assert isinstance(events[-1], AnswerEvent) and events[-1].abstained


def test_a_dead_back_end_is_an_error_not_an_abstention(svc):
    def down(messages, schema):
        raise BackendUnavailableError("could not connect to http://127.0.0.1:9; start the server")

    with pytest.raises(BackendUnavailableError, match="start the server"):
        Agent(svc.engine, ScriptedBackend(down), config=small()).run("umbrella?", NOW)


def test_invalid_output_is_retried_a_bounded_number_of_times(svc):
    from refind_desktop.agent.controllers import SmallController

    backend = ScriptedBackend(
        by_stage(
            relevance=NONE, query={"keywords": ["x"], "date_from": None, "date_to": None}, answer="x [S1 T1]"
        )
    ).enqueue("not json", {"relevant": [9]}, {"wrong": 1})
    judged = SmallController(judge_single=True)
    result = Agent(svc.engine, backend, config=small(max_retries=2), controller=judged).run(
        "umbrella Louvre?", NOW
    )
    retries = [e for e in result.trajectory if isinstance(e, RetryEvent)]
    assert [r.attempt for r in retries] == [1, 2, 3] and retries[-1].gave_up
    assert "invalid" in backend.calls[1].messages[-1].content  # the error goes back to the model
    assert [e.how for e in result.trajectory if isinstance(e, NoteEvent)][0] == "kept"


def test_first_search_can_return_more_results_than_the_follow_ups(svc):
    from refind_desktop.agent.controllers import SmallController

    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    options = svc.search_options(top_k=1, context_window=0)
    controller = SmallController(max_rounds=3, first_k=3, second_look=False, judge_single=True)
    result = Agent(svc.engine, backend, options=options, controller=controller).run("umbrella?", NOW)
    first = result.searches[0]
    assert first.top_k == 3 and len(first.hits) == 3  # three umbrella sessions, one turn each
    # every first result is a note: the judged one, then the other two kept
    assert [n.how for n in result.notes] == ["judged", "kept", "kept"]
    assert {n.block.session_id for n in result.notes} == {sid for _, sid, _ in first.hits}
    assert len(result.searches) == 1 and finish(result).reason == "found"


def test_second_look_adds_the_questions_habit_words(svc):
    from refind_desktop.agent.controllers import SmallController
    from refind_desktop.agent.keywords import habit_words

    assert habit_words("What time do I usually go to the gym? Usually?") == ["time", "usually"]
    assert habit_words("What brand of coffee do I currently buy?") == ["currently"]
    assert habit_words("Where did I buy the umbrella?") == []
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    options = svc.search_options(top_k=1)
    result = Agent(svc.engine, backend, options=options, controller=SmallController()).run(
        "What time do I usually walk my dog now?", NOW
    )
    a, b = result.searches[:2]
    # the first search keeps "time" and "usually" (search_words); the second look adds "now"
    assert a.keywords == ["time", "usually", "walk", "dog"]
    assert b.keywords == [*a.keywords, "now"]
    off = Agent(svc.engine, backend, options=options, controller=SmallController(habit_words=False))
    a, b = off.run("What time do I usually walk my dog now?", NOW).searches[:2]
    assert a.keywords == b.keywords


def test_second_look_goes_deeper_only_in_an_archive_larger_than_the_session_scale(svc):
    from refind_desktop.agent.controllers import SmallController

    def second_look(options):
        backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
        controller = SmallController(wide_look=3)
        result = Agent(svc.engine, backend, options=options, controller=controller).run(
            "Where is the umbrella from?", NOW
        )
        first, second = result.searches[:2]
        assert {sid for _, sid, _ in first.hits}.isdisjoint({sid for _, sid, _ in second.hits})
        return len(first.hits), second.top_k, {sid for _, sid, _ in second.hits}

    assert svc.catalog.session_count() == svc.engine.session_count() == len(ARCHIVE) == 6
    haystack = svc.search_options(top_k=1, context_window=0)  # 6 sessions, scale 60: not large
    assert not svc.engine.session(haystack).large
    assert second_look(haystack)[:2] == (1, 1)
    archive = haystack.with_(session_scale=2)  # 6 sessions > 2: a large archive
    assert svc.engine.session(archive).large
    n_first, depth, seen = second_look(archive)
    # the other three sessions that name an umbrella, not just the next one
    assert (n_first, depth, len(seen)) == (1, 3, 3)
    assert seen <= {"s:paris", "s:dog", "s:garden", "s:poison"}
    assert not svc.engine.session(archive.with_(session_scale=6)).large  # equal: not larger
    assert not svc.engine.session(archive.with_(session_scale=0)).large  # no scale: never large


def test_a_follow_up_in_a_large_archive_searches_the_questions_rarest_words(svc):
    from refind_desktop.agent.controllers import SmallController

    question = "How often did I open the umbrella at the Louvre shop?"
    words = search_words(question)
    assert words == ["often", "open", "umbrella", "Louvre", "shop"]
    # "often" no turn holds; "open" 1 turn ("opens"), "Louvre" 1, "shop" 3 ("shopping"), "umbrella" 5
    assert svc.engine.rarest(words, 3) == ["open", "Louvre", "shop"]

    def searches(options):  # nothing judged relevant: a follow-up runs after the second look
        backend = ScriptedBackend(by_stage(relevance=NONE, answer="x"))
        controller = SmallController(max_rounds=3)
        result = Agent(svc.engine, backend, options=options, controller=controller).run(question, NOW)
        return [s.keywords for s in result.searches]

    haystack = svc.search_options(top_k=1, context_window=0)
    small_archive = searches(haystack)
    assert small_archive[0] == words and small_archive[2] != ["open", "Louvre", "shop"]
    large = searches(haystack.with_(session_scale=2))
    assert large[0] == words and large[2] == ["open", "Louvre", "shop"]
    assert len(large) == len(small_archive) == 3  # in place of the feedback words, not one more


def test_second_look_ranks_the_same_words_by_turn_bm25_without_the_seen_sessions(svc):
    from refind_desktop.agent.controllers import SmallController

    def relevance(text):  # the first result of each search is relevant
        return {"relevant": [1]}

    options = svc.search_options(top_k=1, context_window=0)
    backend = ScriptedBackend(by_stage(relevance=relevance, answer="x"))
    once = Agent(
        svc.engine, backend, options=options, controller=SmallController(second_look=False, judge_single=True)
    )
    assert len(once.run("Where is the umbrella from?", NOW).searches) == 1
    backend = ScriptedBackend(by_stage(relevance=relevance, answer="x"))
    result = Agent(svc.engine, backend, options=options, controller=SmallController(judge_single=True)).run(
        "Where is the umbrella from?", NOW
    )
    a, b = result.searches
    assert a.keywords == b.keywords and b.step == 2  # the same words, one round later ...
    # ... never the first one's session (seen sessions are excluded), and the engine's turn ranking
    assert {sid for _, sid, _ in a.hits}.isdisjoint({sid for _, sid, _ in b.hits})
    turn_ranked = svc.engine.search(
        " ".join(a.keywords), exclude={sid for _, sid, _ in a.hits}, options=options.with_(rrf=False)
    )
    assert [(x.session_id, x.turn) for x in turn_ranked] == [(sid, t) for _, sid, t in b.hits]
    # both are notes: judged first, then the rest kept; the lookup stops there ("found")
    assert [n.how for n in result.notes] == ["judged", "judged"]
    assert sum(stage_of(c.schema) == "relevance" for c in backend.calls) == 2
    assert finish(result).reason == "found"
    # the same search under another ranking is not a repeat; the same ranking is
    run_keys = [(tuple(s.keywords), s.step) for s in result.searches]
    assert len(run_keys) == len(set(run_keys))


def test_date_hint_applies_to_the_first_search_and_falls_back(svc):
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    hint = DateHint(date(2024, 2, 1), date(2024, 2, 28))
    result = Agent(svc.engine, backend, config=small()).run("umbrella?", NOW, date_hint=hint)
    first = result.searches[0]
    assert (first.date_from, first.date_to) == (date(2024, 2, 1), date(2024, 2, 28))
    assert first.hits and {sid for _, sid, _ in first.hits} <= {"s:dog", "s:poison"}
    # a range with nothing in it: the same words again without the filter
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    empty = DateHint(date(2020, 1, 1), date(2020, 1, 31))
    result = Agent(svc.engine, backend, config=small()).run("umbrella?", NOW, date_hint=empty)
    a, b = result.searches[:2]
    assert a.hits == [] and a.date_from == date(2020, 1, 1)
    assert b.hits and b.date_from is None and b.keywords == a.keywords


def test_oneshot_controller_validates_take_note_indices(svc):
    backend = ScriptedBackend(
        by_stage(
            next={"action": "finish_search", "keywords": [], "date_from": None, "date_to": None},
            answer="fine",
        )
    ).enqueue({"keywords": ["umbrella"]}, {"indices": [7]}, {"indices": [1, 1, 2]})
    result = Agent(svc.engine, backend, config=AgentConfig(controller="oneshot")).run("umbrella?", NOW)
    retry = [e for e in result.trajectory if isinstance(e, RetryEvent)]
    assert len(retry) == 1 and "does not exist" in retry[0].reason
    note = [e for e in result.trajectory if isinstance(e, NoteEvent)][0]
    assert note.indices == [1, 2] and note.how == "chosen"
    assert "take_note" in backend.calls[0].messages[0].content  # the paper's actions in its system prompt


def test_one_search_and_generic_modes(svc):
    backend = ScriptedBackend(by_stage(query={"keywords": ["umbrella"]}, answer="x"))
    one = Agent(svc.engine, backend, mode="one-search").run("umbrella?", NOW)
    assert kinds(one) == ["search", "note", "finish"] and finish(one).reason == "one-search"
    assert len(one.notes) == len(one.searches[0].hits) > 0
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    gen = Agent(svc.engine, backend, mode="generic", config=small()).run("umbrella?", NOW)
    assert all(len(n.block.turns) == 1 for n in gen.notes)  # no context window


def test_cancel_stops_between_steps(svc):
    cancel = threading.Event()
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}))

    def on_event(e):
        if isinstance(e, SearchEvent):
            cancel.set()

    with pytest.raises(AgentCancelled):
        Agent(svc.engine, backend, config=small()).run("umbrella?", NOW, on_event=on_event, cancel=cancel)
    assert backend.calls == []


def test_result_json_shape(svc):
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="30 euros [S1 T2]"))
    data = Agent(svc.engine, backend, config=small()).run("umbrella euros?", NOW).to_json()
    json.dumps(data)
    assert {"answer", "citations", "trajectory", "usage", "kind", "tags", "outcome"} <= set(data)
    assert data["citations"] == [{"session_id": "s:paris", "turn": 2}]
    assert data["outcome"] == "answer" and data["verdicts"]["answers"] is True
    types = [t["type"] for t in data["trajectory"]]
    # stage 1 (searches and notes, then finish), then the answer stage's readings
    assert types[0] == "search" and types.index("finish") < types.index("read")
    assert set(types[1 : types.index("finish")]) <= {"note", "search"} and set(
        types[types.index("finish") + 1 :]
    ) == {"read"}
    read = next(t for t in data["trajectory"] if t["type"] == "read" and t["items"])
    assert read["items"][0]["turn"] == 2 and "30 euros" in read["items"][0]["words"]
    usage = data["usage"]  # the first search and the second look (a question about one fact: no
    # relevance call), the reading, the confirming reading of the answer's cited turn
    assert usage["llm_calls"] == len(backend.calls) == 2 and usage["searches"] == 2
    assert {"prompt_tokens", "completion_tokens", "search_seconds", "model_seconds"} <= set(usage)


def test_time_words_add_one_search_within_the_dates_that_can_tell_of_them(svc):
    from refind_desktop.agent.controllers import SmallController

    options = svc.search_options(top_k=1, context_window=0)
    question = "What did I say about the umbrella last month?"  # asked 2024-03-15: February
    plain = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    controller = SmallController(time_words=False)
    off = Agent(svc.engine, plain, options=options, controller=controller).run(question, NOW)
    assert all(s.date_from is None for s in off.searches)
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    controller = SmallController(time_words=True)
    result = Agent(svc.engine, backend, options=options, controller=controller).run(question, NOW)
    dated = [s for s in result.searches if s.date_from is not None]
    assert len(dated) == 1
    (s,) = dated
    assert (s.date_from, s.date_to) == (date(2024, 2, 1), date(2024, 3, 15))
    assert s.keywords == result.searches[0].keywords
    seen = {sid for x in result.searches if x is not s for _, sid, _ in x.hits}
    hits = {sid for _, sid, _ in s.hits}
    assert hits and hits.isdisjoint(seen)  # sessions already returned are not returned again
    dates = {sess.session_id: sess.started_at.date() for sess in ARCHIVE}
    assert all(date(2024, 2, 1) <= dates[sid] <= date(2024, 3, 15) for sid in hits)
    assert {n.block.session_id for n in result.notes} >= hits  # judged and kept as notes


def test_a_reply_cut_at_max_tokens_is_asked_again_with_twice_the_room(svc):
    # a reply cut mid-JSON, retried with the cut reply plus "that was invalid" and the same room,
    # could only be cut again
    reply = {"items": [{"tag": "S1 T0", "item": "a rather long item name", "value": None}]}
    backend = ScriptedBackend().enqueue(reply, reply)
    schema = {"type": "object", "properties": {"items": {"type": "array"}}, "required": ["items"]}
    run = Agent(svc.engine, backend, config=small()).new_run("How many items?", NOW)
    cut_at = len(json.dumps(reply)) // 4 - 4  # the scripted model stops at 4 characters a token
    assert run.ask("read", "List them.", schema, cut_at) == reply
    first, second = backend.calls
    assert (first.max_tokens, second.max_tokens) == (cut_at, 2 * cut_at)
    assert second.messages == first.messages  # the same question again, not the cut reply
    (retry,) = [e for e in run.trajectory if isinstance(e, RetryEvent)]
    assert "cut at max_tokens" in retry.reason


def test_the_agents_searches_know_whether_the_question_is_about_the_person(svc):
    # its search words drop "I" and "my", so the run tells the engine (SearchOptions.person)
    backend = ScriptedBackend(by_stage(relevance=NONE, answer="x"))
    agent = Agent(svc.engine, backend)
    assert agent.new_run("Where did I buy my umbrella?", NOW).session.options.person is True
    assert agent.new_run("Which shop sells umbrellas near the Louvre?", NOW).session.options.person is False


def test_the_reader_controller_makes_no_relevance_call_and_keeps_every_result(svc):
    backend = ScriptedBackend(by_stage(read={"found": False, "items": []}))
    result = Agent(svc.engine, backend, config=AgentConfig(controller="reader", max_rounds=3)).run(
        "Where did I buy my umbrella?", NOW
    )
    assert not any(stage_of(c.schema) == "relevance" for c in backend.calls)
    assert {n.how for n in result.notes} == {"kept"} and all(
        stage_of(c.schema) == "read" for c in backend.calls
    )
    # every result of the first search and the second look is kept and read; no follow-up search runs
    # (nothing judged what those missed; the old reader ran them and read none of their results)
    found = {(sid, turn) for s in result.searches for _, sid, turn in s.hits}
    assert len(result.searches) == 2 and found == {(n.block.session_id, n.block.turn) for n in result.notes}
    assert finish(result).reason == "unjudged"


def test_small_reads_a_lookups_results_unjudged_and_judges_those_of_a_question_that_adds_up(svc):
    # a question about one fact runs `reader`'s searches with no relevance call (stage 2's reading
    # judges each passage); one that adds things up has each search's results judged, and follow-ups
    lookup = "Where did I buy my umbrella?"
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    result = Agent(svc.engine, backend, config=small(max_rounds=3)).run(lookup, NOW)
    assert not any(stage_of(c.schema) == "relevance" for c in backend.calls)
    assert {n.how for n in result.notes} == {"kept"} and finish(result).reason == "unjudged"
    as_reader = Agent(
        svc.engine,
        ScriptedBackend(by_stage(answer="x")),
        config=AgentConfig(controller="reader", max_rounds=3),
    ).run(lookup, NOW)
    assert [s.hits for s in result.searches] == [s.hits for s in as_reader.searches]
    assert [(n.block.session_id, n.block.turn) for n in result.notes] == [
        (n.block.session_id, n.block.turn) for n in as_reader.notes
    ]
    backend = ScriptedBackend(by_stage(relevance={"relevant": [1]}, answer="x"))
    count = Agent(svc.engine, backend, config=small(max_rounds=3)).run("How many umbrellas did I buy?", NOW)
    relevance = [c for c in backend.calls if stage_of(c.schema) == "relevance"]
    assert len(relevance) == len(count.searches) >= 2 and "judged" in {n.how for n in count.notes}
