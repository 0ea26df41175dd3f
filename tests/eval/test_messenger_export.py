"""LoCoMo-shaped conversations written as WhatsApp and Telegram exports, read back by the normal readers."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from helpers.scripts import benchmark

from refind_desktop.cli.evalcmd import eval_services
from refind_desktop.eval.exportset import load_set, resolve_evidence, turn_table

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "eval" / "locomo_messenger.json"
exporter = benchmark("messenger_export")

TEXTS = [
    "Morning Rafa! The pottery course starts next Tuesday, I signed up yesterday.",
    "Nice! I finally fixed the old blue bike, rode it to the market this morning.",
    "Here is my first bowl, a bit lopsided.",
    "Looks great.\nKeep the lopsided ones, they have character.",
    "Guess what, I got the job at the harbour office, I start on 2 May.",
    "Congratulations! We should celebrate at the tapas place on Friday.",
    "That view!",
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("exports")
    exporter.export(FIXTURE, out, side="a", seed=3)
    return out


def _ingest(folder: Path, home: Path):
    s = load_set(folder)
    svc = eval_services(None, home)
    report = svc.ingestor.ingest(s.files())
    return s, svc, report


@pytest.mark.parametrize(
    ("fmt", "chat_file", "prefix"),
    [
        ("whatsapp", "WhatsApp Chat - Rafael/_chat.txt", "whatsapp:"),
        ("telegram", "ChatExport_2024-04-18/result.json", "telegram:"),
    ],
)
def test_every_message_becomes_a_turn_with_its_own_time(exported, tmp_path, fmt, chat_file, prefix):
    assert (exported / fmt / chat_file).is_file()
    s, svc, report = _ingest(exported / fmt, tmp_path / "home")
    try:
        assert report.ingested_files == 1 and not report.skipped and not report.warnings
        # one chat, cut into conversations at its quiet gaps: the two LoCoMo sittings, weeks apart
        recs = sorted(svc.catalog.iter_sessions(), key=lambda r: r.started_at)
        assert len(recs) == 2 and {(r.chat, r.chat_title) for r in recs} == {(recs[0].chat, "Rafael")}
        assert recs[0].chat.startswith(prefix) and all(r.sid.startswith(recs[0].chat + ":") for r in recs)
        turns = [t for r in recs for t in svc.index.session_turns(r.ord)]
        # every message is one turn, in order, spoken by its sender; an image sent alone is a WhatsApp
        # attachment line (dropped by the reader) and a Telegram photo message (a `[photo]` turn)
        texts = [t.text.removesuffix("\n[photo]") for t in turns]
        speakers = ["Ines", "Rafael", "Ines", "Rafael", "Rafael", "Ines", "Ines"]
        if fmt == "telegram":
            assert texts == [*TEXTS[:6], "[photo]", TEXTS[6]]
            assert turns[2].text.endswith("\n[photo]")  # the image sent with the text
            turns = [t for t in turns if t.text != "[photo]"]
        else:
            assert texts == TEXTS
        assert [t.speaker for t in turns] == speakers
        stamps = [t.timestamp for t in turns]
        assert all(stamps) and len(set(stamps)) == len(stamps) and stamps == sorted(stamps)
        # a session's first message at its LoCoMo time, the next ones 20 s to a few minutes apart
        assert stamps[0].strftime("%Y-%m-%d %H:%M") == "2024-03-03 09:15"
        assert stamps[4].strftime("%Y-%m-%d %H:%M") == "2024-04-17 18:40"
        gaps = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:], strict=False)]
        assert all(20 <= g <= 300 + 9 for g in gaps[:3] + gaps[4:])
        # the caption the benchmark's model wrote is in no export
        raw = (exported / fmt / chat_file).read_text(encoding="utf-8")
        assert "clay bowl" not in raw and "office by the sea" not in raw
    finally:
        svc.close()


@pytest.mark.parametrize("fmt", ["whatsapp", "telegram"])
def test_evidence_maps_to_the_turn_of_its_message(exported, tmp_path, fmt):
    s, svc, _ = _ingest(exported / fmt, tmp_path / "home")
    try:
        turns = {
            (v.session_id, v.turn): v
            for r in svc.catalog.iter_sessions()
            for v in svc.index.session_turns(r.ord)
        }
        resolved = resolve_evidence(s.questions, turn_table(svc))
        by_id = {q.qid: q for q in s.questions}
        for qid, (found, missing) in resolved.items():
            assert missing == 0
            assert [turns[k].text.removesuffix("\n[photo]") for k in found] == [
                e.text for e in by_id[qid].evidence
            ]
        both = by_id["conv-syn-1:q2"]
        assert [turns[k].text for k in resolved[both.qid][0]][1] == TEXTS[5]
        # evidence on an image without text has no message to point at
        office = by_id["conv-syn-1:q3"]
        assert office.unresolved == ["D2:3"] and len(office.evidence) == 1
    finally:
        svc.close()


def test_questions_file_golds_categories_and_when_to_ask(exported):
    data = json.loads((exported / "whatsapp" / "questions.json").read_text(encoding="utf-8"))
    assert data["format"] == "refind-export-questions/1" and data["scoring"] == "locomo"
    qs = {q["id"]: q for q in data["questions"]}
    assert (
        qs["conv-syn-1:q0"]["category"] == "4-single-hop"
        and qs["conv-syn-1:q0"]["answer"] == "the old blue bike"
    )
    assert qs["conv-syn-1:q4"]["answer"] == "2024"  # numbers in the benchmark become text
    adversarial = qs["conv-syn-1:q5"]
    assert adversarial["abstain"] and adversarial["adversarial_answer"] == "the old blue bike"
    ev = qs["conv-syn-1:q1"]["evidence"][0]
    assert ev["file"] == "WhatsApp Chat - Rafael/_chat.txt" and ev["speaker"] == "Ines"
    last = max(datetime.fromisoformat(e["timestamp"]) for q in qs.values() for e in q["evidence"])
    assert datetime.fromisoformat(qs["conv-syn-1:q0"]["now"]) > last
    assert data["chats"][0]["exporter"] == "Ines" and data["chats"][0]["images"] == 2


def test_the_other_side_exports_under_the_other_name(tmp_path):
    exporter.export(FIXTURE, tmp_path, side="b", seed=3, formats=("whatsapp",))
    text = (tmp_path / "whatsapp" / "WhatsApp Chat - Ines" / "_chat.txt").read_text(encoding="utf-8")
    # iOS attributes the encryption notice to the contact, and writes U+202F before AM/PM
    assert text.startswith("\u200e[3/3/24, 9:") and " Ines: \u200eMessages and calls" in text.splitlines()[0]
    assert "\u202fAM] Ines: Morning Rafa!" in text
