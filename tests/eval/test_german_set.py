"""The German export set (benchmarks/sets/de): the chat reads through the WhatsApp reader, every question's
evidence is a message of it, and the arithmetic golds follow from their evidence."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from refind_desktop.cli.evalcmd import eval_services
from refind_desktop.eval.exportset import load_set, resolve_evidence, turn_table

SET = Path(__file__).resolve().parents[2] / "benchmarks" / "sets" / "de"


@pytest.fixture(scope="module")
def german(tmp_path_factory: pytest.TempPathFactory):
    s = load_set(SET)
    svc = eval_services(None, tmp_path_factory.mktemp("de-home"))
    report = svc.ingestor.ingest(s.files())
    yield s, svc, report
    svc.close()


def test_the_chat_is_one_whatsapp_export_of_three_people_over_half_a_year(german):
    s, svc, report = german
    assert s.language == "de" and [p.name for p in s.files()] == ["WhatsApp-Chat mit WG Lindenstraße.txt"]
    assert report.ingested_files == 1 and not report.skipped and not report.warnings
    turns = [v for r in svc.catalog.iter_sessions() for v in svc.index.session_turns(r.ord)]
    assert len(turns) >= 250
    assert set(Counter(t.speaker for t in turns)) == {"Jonas", "Lea", "Samir"}
    days = sorted({t.timestamp.date() for t in turns})
    assert days[0] == date(2024, 1, 8) and days[-1] == date(2024, 6, 28)
    # system lines (group created, members added, encryption notice) and media placeholders are no turns
    assert not any("hinzugefügt" in t.text or "Medien ausgeschlossen" in t.text for t in turns)


def test_every_evidence_message_is_a_turn_and_the_kinds_are_covered(german):
    s, svc, _ = german
    resolved = resolve_evidence(s.questions, turn_table(svc))
    for q in s.questions:
        found, missing = resolved[q.qid]
        assert missing == 0 and len(found) == len(q.evidence), q.qid
        assert q.now is not None and all(e.timestamp < q.now for e in q.evidence)
    kinds = Counter(q.category for q in s.questions)
    assert len(s.questions) == 20
    assert kinds["absent"] == 2 and kinds["lookup"] >= 3
    assert {"latest", "count", "sum", "days-between", "when", "order"} <= set(kinds)
    for q in s.questions:
        assert q.abstain == (q.category == "absent") and bool(q.evidence) != q.abstain


def _euros(text: str) -> list[float]:
    return [float(x.replace(",", ".")) for x in re.findall(r"(\d+(?:,\d\d)?) €", text)]


def test_sums_are_the_sums_of_their_evidence(german):
    s, _, _ = german
    for q in (q for q in s.questions if q.category == "sum"):
        amounts = [a for e in q.evidence for a in _euros(e.text)]
        assert len(amounts) == len(q.evidence)
        assert round(sum(amounts), 2) == _euros(q.answer)[0]


def test_counts_have_one_evidence_message_per_event(german):
    s, _, _ = german
    for q in (q for q in s.questions if q.category == "count"):
        assert int(q.answer) == len(q.evidence) == len({e.timestamp.date() for e in q.evidence})
