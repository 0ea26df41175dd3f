"""Export sets: a folder of chat-export files plus a `questions.json`, ingested through the normal readers.

A set is what a person has: the files a messenger or chat app exported (a WhatsApp `_chat.txt`, a
Telegram `result.json`, ...) and, beside them, `questions.json` (format `refind-export-questions/1`):

    {"format": "refind-export-questions/1", "language": "en", "timezone": "UTC",
     "scoring": "locomo" | "plain",
     "questions": [{"id", "question", "answer", "category", "abstain": bool, "now": ISO time,
                    "evidence": [{"file", "timestamp", "speaker", "text"}], "unresolved_evidence"?}]}

Evidence names messages, not sessions: the file, the message's time as the file shows it (naive,
local), its sender and its text. `resolve_evidence` finds each one among the ingested turns by time,
sender and text, so the evidence stays valid however a reader splits a chat into sessions. The
set's times are read as UTC (the harness's services use UTC), so the file's times and the turns'
times compare as written. Called by benchmarks/export_qa.py; written by benchmarks/messenger_export.py
and by hand (benchmarks/sets/).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ConfigError

FORMAT = "refind-export-questions/1"
QUESTIONS = "questions.json"


@dataclass(frozen=True)
class Evidence:
    """One message that holds (part of) the answer, as the export file shows it."""

    file: str
    timestamp: datetime
    """Naive local time of the message."""
    speaker: str
    text: str


@dataclass
class SetQuestion:
    """One question of an export set."""

    qid: str
    question: str
    answer: str
    category: str
    now: datetime | None
    """When the question is asked (naive local time); None: now."""
    abstain: bool = False
    """The chats do not hold the answer: the right answer says so."""
    evidence: list[Evidence] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    """Evidence the set's writer could not place in the files (an image without text, say)."""
    category_id: int | None = None
    """LoCoMo's category number when the set is scored with LoCoMo's rules."""
    file: str = ""
    """The chat the question is about (its export file), when the set says."""


@dataclass
class ExportSet:
    """The folder, its export files, and its questions."""

    folder: Path
    language: str
    scoring: str
    questions: list[SetQuestion]
    description: str = ""

    def files(self) -> list[Path]:
        """What to ingest: every entry of the folder but the questions file (sorted)."""
        return sorted(p for p in self.folder.iterdir() if p.name != QUESTIONS and not p.name.startswith("."))


def _when(value: Any, where: str) -> datetime | None:
    if value in (None, ""):
        return None
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise ConfigError(f"{where}: not an ISO date and time (like 2024-03-12T14:22:05)") from exc
    return when.astimezone(UTC).replace(tzinfo=None) if when.tzinfo else when


def load_set(folder: Path) -> ExportSet:
    """Read `folder/questions.json`; a ConfigError says what is wrong (never quoting the file)."""
    folder = Path(folder)
    path = folder / QUESTIONS
    if not path.is_file():
        raise ConfigError(
            f"{folder}: no {QUESTIONS} in this folder; an export set holds the export files and {QUESTIONS}"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path}: not readable as JSON ({type(exc).__name__})") from exc
    if (
        not isinstance(data, dict)
        or data.get("format") != FORMAT
        or not isinstance(data.get("questions"), list)
    ):
        raise ConfigError(
            f"{path}: not a questions file of format {FORMAT} (an object with a 'questions' list)"
        )
    scoring = str(data.get("scoring") or "plain")
    out: list[SetQuestion] = []
    for n, raw in enumerate(data["questions"], start=1):
        where = f"{path}: question {n}"
        if not isinstance(raw, dict) or not str(raw.get("question") or "").strip():
            raise ConfigError(f"{where}: needs at least a 'question' text")
        evidence = []
        for e in raw.get("evidence") or []:
            when = _when(e.get("timestamp") if isinstance(e, dict) else None, f"{where}, evidence")
            if when is None:
                raise ConfigError(f"{where}: each evidence needs a 'timestamp'")
            evidence.append(
                Evidence(
                    str(e.get("file") or ""), when, str(e.get("speaker") or ""), str(e.get("text") or "")
                )
            )
        category = str(raw.get("category") or "unknown")
        head = category.split("-", 1)[0]
        out.append(
            SetQuestion(
                qid=str(raw.get("id") or f"q{n}"),
                question=str(raw["question"]).strip(),
                answer=str(raw.get("answer") or ""),
                category=category,
                now=_when(raw.get("now"), f"{where}, now"),
                abstain=bool(raw.get("abstain")),
                evidence=evidence,
                unresolved=[str(x) for x in raw.get("unresolved_evidence") or []],
                category_id=int(head) if scoring == "locomo" and head.isdigit() else None,
                file=str(raw.get("file") or (evidence[0].file if evidence else "")),
            )
        )
    if len({q.qid for q in out}) != len(out):
        raise ConfigError(f"{path}: question ids repeat; each question needs its own id")
    return ExportSet(
        folder, str(data.get("language") or "en"), scoring, out, str(data.get("description") or "")
    )


def stratified(questions: list[SetQuestion], limit: int | None) -> list[SetQuestion]:
    """`limit` questions taken round-robin across categories, and within a category round-robin
    across the chats the questions are about (each chat's in file order), so a small or interrupted
    run covers every category and every chat; all of them without a limit."""
    if not limit or limit >= len(questions):
        return list(questions)
    chats: dict[str, dict[str, list[SetQuestion]]] = {}
    for q in questions:
        chats.setdefault(q.category, {}).setdefault(q.file, []).append(q)
    queues = {c: _interleave(list(by_file.values())) for c, by_file in chats.items()}
    picks: list[SetQuestion] = []
    while len(picks) < limit:
        for queue in queues.values():
            if queue and len(picks) < limit:
                picks.append(queue.pop(0))
    return picks


def _interleave(lists: list[list[SetQuestion]]) -> list[SetQuestion]:
    out: list[SetQuestion] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out += [x[i] for x in lists if i < len(x)]
    return out


TurnKey = tuple[str, int]
"""(session id, turn index) of an ingested turn."""


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split()).casefold()


def turn_table(svc: Any) -> dict[tuple[datetime, str], list[tuple[TurnKey, str]]]:
    """Every ingested turn by (naive UTC time, speaker) → [(key, normalized text)]."""
    table: dict[tuple[datetime, str], list[tuple[TurnKey, str]]] = {}
    for rec in svc.catalog.iter_sessions():
        for view in svc.index.session_turns(rec.ord):
            if view.timestamp is None:
                continue
            when = view.timestamp.astimezone(UTC).replace(tzinfo=None)
            table.setdefault((when, _norm(view.speaker)), []).append(
                ((view.session_id, view.turn), _norm(view.text))
            )
    return table


def resolve_evidence(
    questions: list[SetQuestion], table: dict[tuple[datetime, str], list[tuple[TurnKey, str]]]
) -> dict[str, tuple[list[TurnKey], int]]:
    """Question id → (the evidence turns found, how many evidence messages found no turn).

    A message matches the turn with its time and sender whose text is its text (or holds it: a reader
    may add a marker such as `[photo]`)."""
    out: dict[str, tuple[list[TurnKey], int]] = {}
    for q in questions:
        found: list[TurnKey] = []
        missing = 0
        for e in q.evidence:
            want = _norm(e.text)
            match = next(
                (
                    key
                    for key, text in table.get((e.timestamp, _norm(e.speaker)), [])
                    if text == want or want in text
                ),
                None,
            )
            if match is None:
                missing += 1
            elif match not in found:
                found.append(match)
        out[q.qid] = (found, missing)
    return out
