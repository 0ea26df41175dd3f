"""benchmarks/confirm_weights.py: P("true") of a yes/no field from a reply's tokens, the item a recorded
answer's confirming reading read, and the aggregates it prints (no question text)."""

from __future__ import annotations

import math

from helpers.scripts import benchmark

from refind_desktop.llm.base import TokenChoice


def reply(about: dict[str, float], answers: dict[str, float]) -> list[TokenChoice]:
    """The tokens of '{"about": <v>, "answers": <v>}' with the given alternatives at each value."""

    def tc(token: str, top: dict[str, float] | None = None) -> TokenChoice:
        return TokenChoice(token, {k: math.log(v) for k, v in (top or {token: 1.0}).items()})

    first_about = max(about, key=about.get)
    first_answers = max(answers, key=answers.get)
    return [
        tc('{"'),
        tc("about"),
        tc('":'),
        tc(first_about, about),
        tc(","),
        tc(' "'),
        tc("answers"),
        tc('":'),
        tc(first_answers, answers),
        tc("}"),
    ]


def test_yes_weight_reads_the_value_token_of_the_named_field():
    tool = benchmark("confirm_weights")
    toks = reply({" true": 0.6, " false": 0.3, " True": 0.01}, {" false": 0.6, " true": 0.2, " maybe": 0.1})
    assert math.isclose(tool.yes_weight(toks, "about"), 0.6 / 0.9)  # "True" is not JSON's true
    assert math.isclose(tool.yes_weight(toks, "answers"), 0.2 / 0.8)
    assert tool.yes_weight(toks, "other") is None
    assert tool.yes_weight([], "answers") is None  # a back end that told nothing


def test_the_cited_item_is_the_first_item_read_from_the_first_cited_turn():
    tool = benchmark("confirm_weights")
    rec = {
        "citations": [{"session_id": "b", "turn": 2}],
        "trajectory": [
            {"type": "search"},
            {"type": "read", "session_id": "a", "items": [{"turn": 2, "words": "Lisbon"}]},
            {"type": "read", "session_id": "b", "items": [{"turn": 1, "words": "Porto"}]},
            {
                "type": "read",
                "session_id": "b",
                "items": [{"turn": 2, "words": "Faro"}, {"turn": 2, "words": "x"}],
            },
        ],
    }
    assert tool.cited(rec) == ("b", 2, "Faro")
    assert tool.cited({**rec, "citations": [], "draft": "Porto [S2 T1]"}) == ("b", 1, "Porto")
    assert tool.cited({"trajectory": []}) is None


def test_the_summary_counts_answers_a_cut_off_would_make_unsure():
    tool = benchmark("confirm_weights")
    rows = [
        {
            "outcome": "answer",
            "right": 1.0,
            "wrong": 0.0,
            "rec_about": True,
            "rec_answers": True,
            "about": True,
            "answers": True,
            "p_answers": 0.65,
        },
        {
            "outcome": "answer",
            "right": 0.0,
            "wrong": 1.0,
            "rec_about": True,
            "rec_answers": True,
            "about": True,
            "answers": True,
            "p_answers": 0.75,
        },
        {
            "outcome": "unsure",
            "right": 0.0,
            "wrong": 0.0,
            "rec_about": False,
            "rec_answers": False,
            "about": True,
            "answers": True,
            "p_answers": 0.55,
        },
        {"outcome": "answer", "right": 1.0, "missing": True},
    ]
    got = tool.summary(rows, [0.6, 0.7, 0.8])
    assert (got["replayed"], got["missing"], got["same_verdicts"]) == (3, 1, 2)
    assert (got["answers_judged"], got["right"], got["wrong"]) == (2, 1, 1)
    assert got["below 0.6"] == {"right": 0, "wrong": 0}
    assert got["below 0.7"] == {"right": 1, "wrong": 0}
    assert got["below 0.8"] == {"right": 1, "wrong": 1}
