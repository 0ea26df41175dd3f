"""Answer scoring: the LongMemEval LLM-judge protocol (paper appendix) and deterministic fallbacks."""

from __future__ import annotations

import re
import string
from collections import Counter

from ..llm.base import ChatMessage, LLMBackend

# The ReFind paper, appendix "LongMemEval Evaluation" (STITCH protocol), verbatim.
JUDGE_PROMPT = (
    "Your task is to label an answer to a question as CORRECT or WRONG. You will be given: (1) a "
    "question, (2) a gold answer, and (3) a generated answer. The gold answer is concise and contains the "
    "ground-truth information. The generated answer might be longer. Be generous: if the generated answer "
    "contains the gold answer information (even verbatim inside a longer response), mark it as CORRECT. "
    "Otherwise, mark it as WRONG. Respond with either CORRECT or WRONG, and provide a brief reasoning."
)

_NUMBERS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
}
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_ABSTAIN = re.compile(
    r"\b(not (been )?(mentioned|found|available|provided|specified|stated|discussed|recorded|included|"
    r"in (the|your) (chat|conversation|history))|no (information|mention|record|relevant|details?|data)|"
    r"insufficient|(don't|do not|cannot|can't|couldn't|could not|unable to) (know|find|determine|tell|"
    r"answer|be determined|be found)|unknown|no conversation history)\b",
    re.IGNORECASE,
)


_CITATION = re.compile(r"\[[^\[\]]*\bturns?\s*#?\s*\d+[^\[\]]*\]", re.IGNORECASE)


def strip_citations(text: str) -> str:
    """The answer without its `[session_id turn N]` markers (their numbers are not answer content)."""
    return " ".join(_CITATION.sub(" ", text or "").split())


def judge_messages(question: str, gold: str, generated: str) -> list[ChatMessage]:
    """The judge call: the protocol's instruction, then the three inputs."""
    return [
        ChatMessage("system", JUDGE_PROMPT),
        ChatMessage("user", f"Question: {question}\nGold answer: {gold}\nGenerated answer: {generated}"),
    ]


def parse_verdict(text: str) -> bool:
    """The protocol's parsing rule: CORRECT iff the reply contains "correct" and not "wrong"."""
    t = text.lower()
    return "correct" in t and "wrong" not in t


def llm_judge(backend: LLMBackend, question: str, gold: str, generated: str) -> tuple[bool, str, object]:
    """(verdict, raw reply, usage) of one judge call (temperature 0, max 200 tokens; the gold answer as
    given, also for abstention questions, whose gold text says the information is missing)."""
    comp = backend.complete(
        judge_messages(question, gold, strip_citations(generated)), max_tokens=200, temperature=0.0
    )
    return parse_verdict(comp.text), comp.text, comp.usage


# -- deterministic fallback -------------------------------------------------------------------------
def normalize(text: str) -> str:
    """SQuAD-style: lower-case, punctuation and articles removed, number words as digits."""
    words = _ARTICLES.sub(" ", str(text).lower().translate(_PUNCT)).split()
    return " ".join(_NUMBERS.get(w, w) for w in words)


_ALSO = re.compile(r"^(?P<first>.+?)\.\s+(?P<second>.+?)\s*(?:\([^)]*\)\s*)?is also acceptable\.?\s*$", re.I)
"""LongMemEval's gold answers that name two right answers: "14 days. 15 days (including the last day) is
also acceptable." (its own judge prompt accepts either)."""


def gold_answers(gold: str) -> list[str]:
    """The right answers a gold text names: both of "A. B (...) is also acceptable.", else the text."""
    m = _ALSO.match(str(gold).strip())
    return [m.group("first"), m.group("second")] if m else [str(gold)]


def contains(pred: str, gold: str) -> bool:
    """A normalized gold answer appears, on word boundaries, inside the normalized prediction (either
    one of a gold that names two: `gold_answers`)."""
    p = f" {normalize(pred)} "
    return any(bool(g) and f" {g} " in p for g in map(normalize, gold_answers(gold)))


def token_f1(pred: str, gold: str) -> float:
    """SQuAD token F1 of the normalized strings."""
    p, g = normalize(pred).split(), normalize(gold).split()
    if not p or not g:
        return float(p == g)
    same = sum((Counter(p) & Counter(g)).values())
    if not same:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def abstains(pred: str) -> bool:
    """The answer says the information is not there."""
    return bool(_ABSTAIN.search(pred))


def locomo_score(pred: str, gold: str, category: int | None) -> float:
    """LoCoMo's official rules: multi-hop (1) = mean over comma-separated gold parts of the best part F1;
    open-domain (3) uses the gold text before the first ';'; adversarial (5) = 1 when the answer says
    "no information available" / "not mentioned"; others token F1 (no Porter stemming here)."""
    if category == 5:
        low = pred.lower()
        return float("no information available" in low or "not mentioned" in low)
    if category == 3:
        gold = gold.split(";")[0]
    if category == 1:
        parts = [g for g in gold.split(",") if g.strip()]
        preds = [p for p in pred.split(",") if p.strip()] or [pred]
        if not parts:
            return 0.0
        return sum(max(token_f1(p, g) for p in preds) for g in parts) / len(parts)
    return token_f1(pred, gold)


def deterministic(
    pred: str, gold: str, dataset: str, abstention: bool = False, category: int | None = None
) -> dict:
    """The always-reported deterministic scores: `det_correct` (containment, or abstaining when the gold
    answer is absent) and `det_f1` (token F1; the LoCoMo category rules for LoCoMo); citations removed."""
    pred = strip_citations(pred)
    if abstention or (dataset == "locomo" and category == 5):
        ok = abstains(pred)
        f1 = locomo_score(pred, gold, category) if dataset == "locomo" else float(ok)
        return {"det_correct": float(ok), "det_f1": round(f1, 4)}
    f1 = locomo_score(pred, gold, category) if dataset == "locomo" else token_f1(pred, gold)
    return {"det_correct": float(contains(pred, gold)), "det_f1": round(f1, 4)}
