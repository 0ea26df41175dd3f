"""benchmarks/named_replay.py: the typed reading replayed on a recorded answer (the question and the
answer's words, never the turn), and the aggregates it prints."""

from __future__ import annotations

from datetime import UTC, datetime

from helpers.agent import day, session
from helpers.scripts import benchmark

from refind_desktop.llm.scripted import ScriptedBackend
from refind_desktop.services import build_services

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)


def test_the_replay_reads_the_question_and_the_words_alone_and_only_for_an_asked_type():
    tool = benchmark("named_replay")
    seen: list[str] = []

    def respond(messages, schema):
        seen.append(messages[-1].content)
        return {"names": False}

    backend = ScriptedBackend(respond, name="scripted")
    svc = build_services()
    try:
        svc.ingestor.apply_sessions(
            [session("s:bike", day(4, 2), "The brakes squeak again, I should get them checked soon.")],
            "named-replay",
            "generic",
        )
        item = ("s:bike", 0, "I should get them checked")
        got = tool.named_one(backend, svc, {"question": "Who fixed my bike?"}, NOW, item)
        assert got == {"asked": True, "names": False}
        assert "Who fixed my bike?" in seen[0] and '"I should get them checked"' in seen[0]
        assert "a person" in seen[0] and "brakes squeak" not in seen[0]
        got = tool.named_one(backend, svc, {"question": "Who fixed my bike?"}, NOW, item, words_only=True)
        assert "Who fixed my bike?" not in seen[1] and '"I should get them checked"' in seen[1]
        # "what did I …" asks for no type: nothing is read
        assert tool.named_one(backend, svc, {"question": "What did I do with my bike?"}, NOW, item) == {
            "asked": False
        }
        assert len(seen) == 2
        # the variant that reads those too asks for the thing the question asks for
        got = tool.named_one(
            backend, svc, {"question": "What did I do with my bike?"}, NOW, item, untyped=True
        )
        assert got == {"asked": True, "names": False} and "name the thing the question asks for?" in seen[2]
        assert (
            tool.named_one(backend, svc, {"question": "Who fixed my bike?"}, NOW, ("s:gone", 0, "x")) is None
        )
    finally:
        svc.close()


def test_the_summary_counts_right_and_wrong_answers_a_no_makes_unsure():
    tool = benchmark("named_replay")
    rows = [
        {"asked": True, "names": False, "right": 0.0, "wrong": 1.0},
        {"asked": True, "names": False, "right": 1.0, "wrong": 0.0},
        {"asked": True, "names": True, "right": 1.0, "wrong": 0.0},
        {"asked": True, "names": None, "right": 0.0, "wrong": 1.0},  # no valid reply: kept
        {"asked": False, "right": 0.0, "wrong": 1.0},
        {"missing": True, "right": 1.0, "wrong": 0.0},
    ]
    assert tool.summary(rows) == {
        "answers": 6,
        "read": 4,
        "unsure": {"right": 1, "wrong": 1},
        "kept": {"right": 1, "wrong": 1},
    }
