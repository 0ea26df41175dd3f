"""Benchmark loaders: LongMemEval and LoCoMo files as eval units (one haystack each) with gold labels."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

import ijson

from ..errors import ConfigError, ParseError
from ..ingest import locomo, longmemeval
from ..ingest.base import ParseContext, open_binary
from ..types import Session

DATASETS = ("longmemeval", "locomo")
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


@dataclass
class EvalQuestion:
    """One benchmark question with its gold answer and evidence, in the index's id space."""

    qid: str
    qtype: str
    question: str
    answer: str
    date: datetime | None
    answer_sessions: list[str] = field(default_factory=list)
    """Session ids (as indexed: `lme:<sid>`, `locomo:<sample>:session_<n>`), each once, gold order."""
    evidence_turns: list[str] = field(default_factory=list)
    """Turn ids of the evidence turns (`has_answer` turns; LoCoMo evidence dia_ids that resolve)."""
    evidence_refs: list[tuple[str, int]] = field(default_factory=list)
    """(session id, turn index) of each evidence turn (what the eval oracle reads)."""
    abstention: bool = False
    """LongMemEval `_abs` question: the answer is not in the history."""
    unresolved: list[str] = field(default_factory=list)
    """Gold ids (sessions or dia_ids) that match nothing in the haystack."""
    category: int | None = None
    """LoCoMo category 1..5 (None for LongMemEval)."""
    history_end: datetime | None = None
    """The latest moment of the question's own haystack (its last dated session start or turn). The
    benchmark gives that haystack as the history before the question, but LongMemEval dates the
    question and its sessions to the minute independently: 16 of the dev file's 98 questions are dated
    a few hours before a session of their own haystack (the same day), 10 of them before an answer
    session. None when nothing in the haystack is dated."""

    @property
    def as_of(self) -> datetime | None:
        """The archive setting's bound: the question's date, or the end of its own history when that
        is later (its own sessions existed when it was asked); None when undated."""
        if self.date is None or self.history_end is None:
            return self.date
        return max(self.date, self.history_end)

    def to_json(self) -> dict:
        """Plain dict (used in per-question result records)."""
        return {
            "qid": self.qid,
            "type": self.qtype,
            "question": self.question,
            "answer": self.answer,
            "date": self.date.isoformat() if self.date else None,
            "answer_sessions": self.answer_sessions,
            "evidence_turns": self.evidence_turns,
            "abstention": self.abstention,
            "unresolved": self.unresolved,
        }


@dataclass
class EvalUnit:
    """A haystack indexed on its own (one LongMemEval question, one LoCoMo conversation)."""

    unit_id: str
    sessions: list[Session]
    questions: list[EvalQuestion]

    def turn_ids(self) -> dict[tuple[str, int], str]:
        """(session_id, turn index) → turn id."""
        return {(s.session_id, t.index): t.turn_id for s in self.sessions for t in s.turns}


def _as_text(value: Any) -> str:
    """Gold answers are sometimes numbers or lists in the files: coerce to text."""
    if isinstance(value, list):
        return ", ".join(_as_text(v) for v in value)
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _items(path: Path) -> Iterator[Any]:
    with open_binary(path) as f:
        try:
            yield from ijson.items(f, "item", use_float=True)
        except (ijson.JSONError, EOFError, OSError, UnicodeDecodeError) as exc:
            raise ParseError(
                f"{path}: cannot read the benchmark file ({' '.join(str(exc).split())})"
            ) from exc


def stratified_picks(path: Path, limit: int) -> list[int]:
    """Item numbers (1-based) of `limit` LongMemEval questions taken round-robin across question
    types, in that round-robin order (so a small or interrupted run covers every type)."""
    by_type: dict[str, list[int]] = {}
    for n, item in enumerate(_items(Path(path)), start=1):
        qtype = str(item.get("question_type") or "unknown") if isinstance(item, dict) else "unknown"
        by_type.setdefault(qtype, []).append(n)
    picks: list[int] = []
    queues = list(by_type.values())
    while len(picks) < limit and any(queues):
        for q in queues:
            if q and len(picks) < limit:
                picks.append(q.pop(0))
    return picks


def load_units(
    dataset: str, path: Path, limit: int | None = None, tz: tzinfo = UTC, sample: str = "first"
) -> Iterator[EvalUnit]:
    """Stream the eval units of a benchmark file; `limit` caps the number of questions.

    `sample="stratified"` (LongMemEval only) takes the `limit` questions round-robin across types;
    `sample="abstention"` (LongMemEval only) only the `_abs` questions, whose answer is not in the history;
    `sample="type:NAME"` (LongMemEval only) only the questions of that type ("type:temporal-reasoning").
    """
    if dataset not in DATASETS:
        raise ConfigError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    if not Path(path).exists():
        raise ConfigError(f"benchmark file {path} does not exist")
    loader = _longmemeval_unit if dataset == "longmemeval" else _locomo_unit
    left = limit if limit and limit > 0 else None
    if sample == "stratified" and left is not None and dataset == "longmemeval":
        picks = stratified_picks(Path(path), left)
        chosen = {n: item for n, item in enumerate(_items(Path(path)), start=1) if n in set(picks)}
        for n in picks:  # round-robin order: the first questions done already span the types
            unit = loader(Path(path), chosen[n], n, tz)
            if unit is not None:
                yield unit
        return
    for n, item in enumerate(_items(Path(path)), start=1):
        if left is not None and left <= 0:
            return
        if sample == "abstention" and not (
            isinstance(item, dict) and str(item.get("question_id", "")).endswith("_abs")
        ):
            continue
        if sample.startswith("type:") and not (
            isinstance(item, dict) and item.get("question_type") == sample[5:]
        ):
            continue
        unit = loader(Path(path), item, n, tz)
        if unit is None:
            continue
        if left is not None:
            unit.questions = unit.questions[:left]
            left -= len(unit.questions)
        yield unit


# -- LongMemEval -----------------------------------------------------------------------------------
def _longmemeval_unit(path: Path, item: Any, n: int, tz: tzinfo) -> EvalUnit | None:
    if not isinstance(item, dict) or not isinstance(item.get("haystack_sessions"), list):
        raise ParseError(f"{path}: element {n} is not a LongMemEval question (no haystack_sessions)")
    ctx = ParseContext(tz=tz)
    sessions = list(longmemeval._haystack(path, item, ctx, {}, set()))
    present = {s.session_id for s in sessions}
    qid = str(item.get("question_id") or f"q{n}")
    gold = [f"lme:{sid}" for sid in dict.fromkeys(str(x) for x in item.get("answer_session_ids") or [])]
    evidence = _has_answer_turns(item, sessions)
    index_of = {t.turn_id: (s.session_id, t.index) for s in sessions for t in s.turns}
    q = EvalQuestion(
        qid=qid,
        qtype=str(item.get("question_type") or "unknown"),
        question=str(item.get("question") or ""),
        answer=_as_text(item.get("answer")),
        date=longmemeval.parse_date(item.get("question_date"), tz),
        answer_sessions=[s for s in gold if s in present],
        evidence_turns=evidence,
        evidence_refs=[index_of[t] for t in evidence if t in index_of],
        abstention=qid.endswith("_abs"),
        unresolved=[s for s in gold if s not in present],
        history_end=history_end(sessions),
    )
    return EvalUnit(qid, sessions, [q])


def history_end(sessions: list[Session]) -> datetime | None:
    """The latest session start or turn time of a haystack (None when nothing is dated)."""
    stamps = [s.started_at for s in sessions if s.started_at]
    stamps += [t.timestamp for s in sessions for t in s.turns if t.timestamp]
    return max(stamps, default=None)


def _has_answer_turns(item: dict, sessions: list[Session]) -> list[str]:
    """Turn ids holding a `has_answer` message: the turn whose first message is the last one at or
    before the labelled message (turn ids are `lme:<sid>:<index of the turn's first message>`)."""
    by_sid = {s.session_id: s for s in sessions}
    out: list[str] = []
    for sid, raw in zip(
        item.get("haystack_session_ids") or [], item.get("haystack_sessions") or [], strict=False
    ):
        session = by_sid.get(f"lme:{sid}")
        if session is None or not isinstance(raw, list):
            continue
        starts = sorted(
            (int(t.turn_id.rsplit(":", 1)[1]), t.turn_id)
            for t in session.turns
            if t.turn_id.rsplit(":", 1)[-1].isdigit()
        )
        for j, msg in enumerate(raw):
            if not (isinstance(msg, dict) and msg.get("has_answer")):
                continue
            owner = [tid for start, tid in starts if start <= j]
            if owner and owner[-1] not in out:
                out.append(owner[-1])
    return out


# -- LoCoMo ----------------------------------------------------------------------------------------
def _locomo_unit(path: Path, item: Any, n: int, tz: tzinfo) -> EvalUnit | None:
    conv = item.get("conversation") if isinstance(item, dict) else None
    if not isinstance(conv, dict):
        raise ParseError(f"{path}: element {n} is not a LoCoMo conversation (no `conversation` object)")
    sample = str(item.get("sample_id") or f"sample-{n}")
    ctx = ParseContext(tz=tz)
    sessions = list(locomo._sessions(path, sample, conv, ctx))
    turn_session = {t.turn_id: s.session_id for s in sessions for t in s.turns}
    questions: list[EvalQuestion] = []
    end = history_end(sessions)
    for i, qa in enumerate(item.get("qa") or []):
        if not isinstance(qa, dict):
            continue
        ids: list[str] = []
        for ev in qa.get("evidence") or []:
            ids += [x for x in _EVIDENCE_SPLIT.split(str(ev)) if x]
        ids = list(dict.fromkeys(ids))
        found = [x for x in ids if x in turn_session]
        cat = qa.get("category")
        cat = int(cat) if isinstance(cat, int | float) or str(cat).isdigit() else None
        answer = qa.get("answer") if "answer" in qa else qa.get("adversarial_answer")
        session_date = sessions[0].started_at if sessions else None
        last = max((s.started_at for s in sessions if s.started_at), default=session_date)
        questions.append(
            EvalQuestion(
                qid=f"{sample}:q{i}",
                qtype=f"{cat}-{LOCOMO_CATEGORIES.get(cat, 'unknown')}" if cat else "unknown",
                question=str(qa.get("question") or ""),
                answer=_as_text(answer),
                date=last,
                answer_sessions=list(dict.fromkeys(turn_session[x] for x in found)),
                evidence_turns=found,
                unresolved=[x for x in ids if x not in turn_session],
                category=cat,
                history_end=end,
            )
        )
    return EvalUnit(sample, sessions, questions)
