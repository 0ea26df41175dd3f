"""Scoring by outcome: an answer is right or wrong, "unsure" and "not in your history" claim nothing.

A record (eval/qa.py, eval/exportqa.py) carries the answer stage's `outcome` and its `draft` (what the
answerer composed before the checks of agent/earn.py, with `verdicts`). Both are scored here, so one run
measures the answer stage with its checks and without them (the draft as the stage gave it before the
checks existed: a composed draft was stated as an answer, the closest turn was already shown as such).
"""

from __future__ import annotations

from collections.abc import Callable

OUTCOME_KEYS = tuple(
    p + k for p in ("", "draft_") for k in ("right", "wrong", "unsure", "not_found", "false_not_found")
)
"""Shares of outcomes, with the checks and of the draft before them (per-question 1.0 / 0.0)."""
Correct = Callable[[str], bool]
"""Whether a text holds the gold answer (the set's deterministic rule)."""


def should_abstain(rec: dict) -> bool:
    """The question's answer is not in the history (LongMemEval `_abs`, LoCoMo adversarial)."""
    return bool(rec.get("abstention")) or rec.get("category") == 5


def draft_outcome(rec: dict) -> str:
    """The outcome the stage gave before the checks: a composed draft was stated as an answer."""
    outcome = rec.get("outcome") or ("not_found" if rec.get("abstained") else "answer")
    if outcome == "unsure" and rec.get("draft") and rec["draft"] != rec.get("answer"):
        return "answer"  # a composed draft the checks (or the arithmetic) turned into "unsure"
    return outcome


def scores(outcome: str, correct: bool, abstain: bool) -> dict[str, float]:
    """right / wrong / unsure / not_found / false_not_found (1.0 or 0.0) of one outcome."""
    if abstain:  # right to say it is not there; an answer is wrong; unsure claims nothing
        right = outcome == "not_found"
        wrong = outcome == "answer"
    else:
        right = outcome == "answer" and correct
        wrong = outcome == "answer" and not correct
    return {
        "right": float(right),
        "wrong": float(wrong),
        "unsure": float(outcome == "unsure"),
        "not_found": float(outcome == "not_found"),
        "false_not_found": float(outcome == "not_found" and not abstain),
    }


def score_record(rec: dict, correct: Correct) -> dict[str, float]:
    """The outcome scores of a record, and of its draft (prefixed `draft_`)."""
    abstain = should_abstain(rec)
    outcome = rec.get("outcome") or ("not_found" if rec.get("abstained") else "answer")
    out = scores(outcome, bool(rec.get("det_correct")), abstain)
    draft = rec.get("draft") or rec.get("answer", "")
    draft_scores = scores(draft_outcome(rec), correct(draft), abstain)
    out.update({f"draft_{k}": v for k, v in draft_scores.items()})
    return out
