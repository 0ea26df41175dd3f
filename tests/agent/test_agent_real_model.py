"""One end-to-end run of the agent with the embedded local model (slow: skipped without llama-cpp)."""

from __future__ import annotations

import pytest
from helpers.agent import day, session

from refind_desktop.agent import Agent, AgentConfig
from refind_desktop.config import Settings
from refind_desktop.services import build_services

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_backend(embedded_gguf):
    pytest.importorskip("llama_cpp")
    from refind_desktop.llm.factory import make_backend

    return make_backend(Settings(model=str(embedded_gguf), n_ctx=2048, n_threads=2), backend="llama")


def test_local_model_answers_an_easy_question(local_backend):
    svc = build_services()
    svc.ingestor.apply_sessions(
        [
            session(
                "s:bike",
                day(2, 20),
                "I bought a new bike today, a blue Trek road bike.",
                "The bike shop was next to the train station.",
            ),
            session("s:soup", day(1, 5), "I cooked tomato soup for dinner with basil."),
            session("s:work", day(3, 1), "My quarterly report is due on Friday."),
        ],
        "real-model-test",
        "generic",
    )
    result = Agent(
        svc.engine,
        local_backend,
        options=svc.search_options(),
        config=AgentConfig(controller="small"),
    ).run("What brand is the bike I bought?", day(3, 15))
    svc.close()
    kinds = [e.type for e in result.trajectory]
    assert kinds[0] == "search" and "finish" in kinds  # evidence first: no model call before it
    assert set(kinds) <= {"search", "note", "retry", "finish", "read"}
    # relevance calls, the reading, the typed reading of the answer's words ("what brand" asks for a
    # brand) and the confirming reading of its turn
    assert 1 <= len(result.searches) <= 3 and result.usage.calls <= 5
    assert "s:bike" in result.noted_sessions
    assert "trek" in result.answer.lower() and not result.abstained, result.answer
    noted = {(n.block.session_id, t.turn) for n in result.notes for t in n.block.turns}
    assert set(result.citations) <= noted, result.answer
