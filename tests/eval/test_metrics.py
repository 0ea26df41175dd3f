"""Retrieval metrics and answer scoring against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from refind_desktop.eval.metrics import (
    mean_table,
    ndcg,
    recall_all,
    recall_any,
    score_question,
    session_ranking,
    turn_recall,
)
from refind_desktop.eval.scoring import (
    abstains,
    contains,
    deterministic,
    gold_answers,
    judge_messages,
    locomo_score,
    parse_verdict,
    strip_citations,
    token_f1,
)

HITS = [("a", 0), ("b", 3), ("a", 1), ("c", 0), ("d", 5)]


def test_sessions_ranked_by_first_appearance():
    assert session_ranking(HITS) == ["a", "b", "c", "d"]


def test_recall_with_duplicate_gold_ids():
    ranked = session_ranking(HITS)
    gold = ["b", "b", "d"]
    assert recall_any(ranked, gold, 1) == 0.0
    assert recall_any(ranked, gold, 2) == 1.0
    assert recall_all(ranked, gold, 2) == 0.0
    assert recall_all(ranked, gold, 4) == 1.0
    assert recall_all(ranked, [], 4) == 0.0


def test_ndcg_hand_computed():
    ranked = ["a", "b", "c", "d"]
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert ndcg(ranked, ["b", "d"], 4) == pytest.approx(expected)
    assert ndcg(ranked, ["b", "d", "d"], 4) == pytest.approx(expected)  # duplicates change nothing
    assert ndcg(ranked, ["b", "d"], 1) == 0.0
    assert ndcg(ranked, ["a"], 3) == 1.0
    # ideal DCG is capped at k: one hit at rank 1 of two gold items, k=1 -> perfect
    assert ndcg(["b"], ["b", "d"], 1) == 1.0


def test_turn_recall_and_context_window():
    gold = [("a", 2), ("d", 5)]
    assert turn_recall(HITS, gold, 3) == 0.0
    assert turn_recall(HITS, gold, 3, window=1) == 0.5  # ("a", 1) widened covers ("a", 2)
    assert turn_recall(HITS, gold, 5) == 0.5
    assert turn_recall(HITS, gold, 5, window=2) == 1.0


def test_score_question_omits_turn_metrics_without_labels_and_means_count_them():
    with_labels = score_question(HITS, ["b"], [("b", 3)], (1, 2), window=2)
    without = score_question(HITS, ["b"], [], (1, 2))
    assert with_labels["recall_any@2"] == 1.0 and with_labels["turn_recall@2"] == 1.0
    assert "turn_recall@1" not in without
    table = mean_table([with_labels, without])
    assert table["n"] == 2 and table["n_turn_labelled"] == 1
    assert table["recall_any@1"] == 0.0 and table["turn_recall@2"] == 1.0


def test_judge_protocol_and_verdict_rule():
    messages = judge_messages("Q?", "four", "You tried four.")
    assert "label an answer to a question as CORRECT or WRONG" in messages[0].content
    assert "Gold answer: four" in messages[1].content
    assert parse_verdict("CORRECT. The answer says four.")
    assert not parse_verdict("WRONG: it says three")
    assert not parse_verdict("Correct would be four, so this is wrong")
    assert not parse_verdict("I cannot tell")


def test_deterministic_scores():
    assert contains("I have tried 4 Korean restaurants.", "four")
    assert not contains("I have tried fourteen", "four")
    assert strip_citations("Four [lme:x turn 4].") == "Four ."
    # the citation's turn number must not count as the answer
    assert deterministic("Three [lme:x turn 4]", "4", "longmemeval")["det_correct"] == 0.0
    assert token_f1("the Dobsonian telescope", "a Dobsonian") == pytest.approx(2 / 3)
    assert abstains("This is not mentioned in your chat history.")
    assert (
        deterministic(
            "Not mentioned in the history.", "You did not mention it", "longmemeval", abstention=True
        )["det_correct"]
        == 1.0
    )
    assert (
        deterministic("Luna", "You did not mention it", "longmemeval", abstention=True)["det_correct"] == 0.0
    )


def test_locomo_category_rules():
    assert locomo_score("no information available", "x", 5) == 1.0
    assert locomo_score("self-care", "self-care is important", 5) == 0.0
    assert locomo_score("psychology, support group", "support group, psychology", 1) == 1.0
    assert locomo_score("psychology", "support group, psychology", 1) == 0.5
    assert locomo_score("sunrise", "a sunrise; sunset", 3) == 1.0
    assert locomo_score("7 May 2023", "7 May 2023", 2) == 1.0


def test_a_gold_naming_two_right_answers_accepts_either():
    gold = "14 days. 15 days (including the last day) is also acceptable."
    assert gold_answers(gold) == ["14 days", "15 days"]
    assert contains("14 days: from the shoes on 2023-01-10 to the laces on 2023-01-24.", gold)
    assert contains("It was 15 days.", gold)
    assert not contains("10 days", gold) and not contains("114 days", gold)
    assert gold_answers("Page Turners") == ["Page Turners"]
