"""The archive setting: one index of every haystack, de-duplicated, each question asked as of its date."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_desktop.cli import main
from refind_desktop.cli.evalcmd import services_factory
from refind_desktop.eval.archive import archive_services, build_archive
from refind_desktop.eval.datasets import EvalQuestion
from refind_desktop.eval.modes import MODES
from refind_desktop.eval.retrieval import run_retrieval
from refind_desktop.eval.runner import QuestionServices


def _session(user: str, reply: str = "Noted.") -> list[dict]:
    return [{"role": "user", "content": user, "has_answer": True}, {"role": "assistant", "content": reply}]


SHARED = _session("I keep my bonsai on the balcony and water it every Sunday.")
EARLY_TEA = _session("My favourite tea is a smoky lapsang souchong from Fujian.")
# dated AFTER the first question, and a better match for it: must never be seen by it
LATE_TEA = _session("Tea tea tea: my new favourite tea is a jasmine green tea, tea every day.")
OTHER = _session("The car needs new winter tyres before December.")


def _item(qid: str, question: str, qdate: str, ids: list[str], dates: list[str], sessions, answers):
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": question,
        "answer": "x",
        "question_date": qdate,
        "haystack_session_ids": ids,
        "haystack_dates": dates,
        "haystack_sessions": sessions,
        "answer_session_ids": answers,
    }


@pytest.fixture
def data(tmp_path: Path) -> Path:
    items = [
        _item(
            "q_early",
            "What is my favourite tea?",
            "2023/03/01 (Wed) 10:00",
            ["shared", "early_tea"],
            ["2023/01/05 (Thu) 09:00", "2023/02/01 (Wed) 09:00"],
            [SHARED, EARLY_TEA],
            ["early_tea"],
        ),
        _item(
            "q_late",
            "What is my favourite tea now?",
            "2023/06/01 (Thu) 10:00",
            # the shared session again (same content) and a conflicting copy of "other"
            ["shared", "late_tea", "other"],
            ["2023/01/05 (Thu) 09:00", "2023/05/01 (Mon) 09:00", "2023/04/01 (Sat) 09:00"],
            [SHARED, LATE_TEA, OTHER],
            ["late_tea"],
        ),
        _item(
            "q_other",
            "When do the winter tyres go on?",
            "2023/06/02 (Fri) 10:00",
            ["other"],
            ["2023/04/01 (Sat) 09:00"],
            [_session("The car needs new winter tyres before November.")],
            ["other"],
        ),
    ]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(items))
    return path


def test_builder_keeps_each_session_once(data: Path):
    archive = build_archive("longmemeval", data)
    ids = [s.session_id for s in archive.sessions]
    assert ids == ["lme:shared", "lme:early_tea", "lme:late_tea", "lme:other"]
    # "shared" came twice with the same turns, "other" twice with different text: the first copy stays
    assert archive.duplicates == 2 and archive.conflicts == 1
    other = next(s for s in archive.sessions if s.session_id == "lme:other")
    assert "December" in other.turns[0].text
    assert [q.qid for q in archive.questions] == ["q_early", "q_late", "q_other"]
    assert archive.stats()["turns"] == 4


def test_builder_limit_chooses_questions_not_sessions(data: Path):
    archive = build_archive("longmemeval", data, limit=1)
    assert [q.qid for q in archive.questions] == ["q_early"]
    assert len(archive.sessions) == 4  # the archive always holds every haystack


def test_as_of_bound_never_leaks_a_later_session(data: Path, tmp_path: Path):
    archive = build_archive("longmemeval", data)
    early, late = archive.questions[0], archive.questions[1]
    with archive_services(archive, "longmemeval", data, services_factory(), tmp_path / "cache") as svc:
        unbounded = svc.engine.candidates("favourite tea")
        recs = svc.catalog.ords_to_sessions(sorted({r.sord for r in unbounded}))
        assert recs[unbounded[0].sord].sid == "lme:late_tea"  # the better match, when nothing bounds it
        view = QuestionServices(svc, early, bounded=True)
        for name in ("bm25", "refind", "no-rrf", "refind-dated", "bm25s"):
            hits = MODES[name].fn(view, early.question, 10)
            assert hits and hits[0][0] == "lme:early_tea", name
            assert "lme:late_tea" not in {sid for sid, _ in hits}, name
        blocks = view.engine.search("favourite tea jasmine")
        assert blocks and {b.session_id for b in blocks} == {"lme:early_tea"}
        assert view.engine.session().search("jasmine green") == []
        # the later question sees both, the bound is inclusive of its own minute
        seen = QuestionServices(svc, late, bounded=True)
        assert {sid for sid, _ in MODES["bm25"].fn(seen, "favourite tea", 10)} == {
            "lme:early_tea",
            "lme:late_tea",
        }
        at = EvalQuestion("t", "x", "tea", "", datetime(2023, 5, 1, 9, 0, tzinfo=UTC))
        exactly = QuestionServices(svc, at, bounded=True)
        assert "lme:late_tea" in {sid for sid, _ in MODES["bm25s"].fn(exactly, "jasmine", 5)}
        assert "lme:late_tea" in {sid for sid, _ in MODES["bm25"].fn(exactly, "jasmine", 5)}
        before = EvalQuestion("t", "x", "tea", "", datetime(2023, 5, 1, 8, 59, tzinfo=UTC))
        assert MODES["bm25"].fn(QuestionServices(svc, before, bounded=True), "jasmine", 5) == []
        assert MODES["bm25s"].fn(QuestionServices(svc, before, bounded=True), "jasmine", 5) == []
        # a question without a date is not bounded (counted in the archive's stats)
        undated = EvalQuestion("u", "x", "tea", "", None)
        assert MODES["bm25"].fn(QuestionServices(svc, undated, bounded=True), "jasmine", 5)


def test_archive_index_is_built_once_and_reused(data: Path, tmp_path: Path):
    archive = build_archive("longmemeval", data)
    cache = tmp_path / "cache"
    with archive_services(archive, "longmemeval", data, services_factory(), cache) as svc:
        assert svc.index.num_turns() == 4
    marker = (cache / "archive-longmemeval" / "archive.json").stat().st_mtime_ns
    with archive_services(archive, "longmemeval", data, services_factory(), cache) as svc:
        assert svc.index.num_turns() == 4  # not ingested a second time
    assert (cache / "archive-longmemeval" / "archive.json").stat().st_mtime_ns == marker


def test_eval_retrieval_archive_setting_cli(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    out = tmp_path / "out"
    argv = ["eval", "retrieval", "--dataset", "longmemeval", "--data", str(data), "--setting", "archive"]
    argv += ["--mode", "bm25", "--mode", "refind", "--k", "1,3", "--out", str(out), "--json", "--quiet"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["setting"] == "archive" and summary["archive"]["sessions"] == 4
    assert summary["archive"]["conflicting_duplicates"] == 1
    for name in ("bm25", "refind", "bm25s"):
        assert summary["modes"][name]["overall"]["recall_any@1"] == 1.0, name
    assert (out / "retrieval-longmemeval-archive.md").exists()
    assert "Archive setting" in (out / "retrieval-longmemeval-archive.md").read_text()


def test_modes_without_the_bound_are_refused_in_the_archive(data: Path):
    from refind_desktop.errors import ConfigError
    from refind_desktop.eval.modes import register_mode

    register_mode("test-unbounded", lambda services, question, k: [])
    try:
        with pytest.raises(ConfigError, match="archive setting"):
            run_retrieval(
                "longmemeval",
                data,
                ["test-unbounded"],
                (1,),
                quiet=True,
                factory=services_factory(),
                setting="archive",
            )
    finally:
        MODES.pop("test-unbounded")


def test_eval_qa_archive_setting_scripted(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    argv = ["eval", "qa", "--dataset", "longmemeval", "--data", str(data), "--setting", "archive"]
    argv += [
        "--backend",
        "scripted",
        "--mode",
        "one-search",
        "--out",
        str(tmp_path / "qa"),
        "--json",
        "--quiet",
    ]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["setting"] == "archive" and summary["questions"] == 3
    records = [
        json.loads(x) for x in next((tmp_path / "qa").glob("qa-*-archive.jsonl")).read_text().splitlines()
    ]
    early = next(r for r in records if r["qid"] == "q_early")
    assert "lme:late_tea" not in early["noted_sessions"]  # the agent's searches are bounded too
    assert early["evidence_recall"] == 1.0


def test_own_history_is_visible_when_dated_after_the_question(tmp_path: Path):
    # LongMemEval dates a question and its sessions to the minute independently: here the answer
    # session of q_same_day is stamped 8 hours after the question, the same day. The benchmark gives
    # it as the question's history, so the bound runs to the end of that history (18:00), and a
    # session of another haystack dated after that (19:00) stays invisible.
    items = [
        _item(
            "q_same_day",
            "Which tea did I buy in Kyoto?",
            "2023/05/20 (Sat) 10:00",
            ["kyoto"],
            ["2023/05/20 (Sat) 18:00"],
            [_session("In Kyoto I bought a tin of gyokuro tea for my sister.")],
            ["kyoto"],
        ),
        _item(
            "q_other_day",
            "Which tea did I buy?",
            "2023/06/01 (Thu) 10:00",
            ["kyoto_late"],
            ["2023/05/20 (Sat) 19:00"],
            [_session("Another gyokuro tea from Kyoto, bought at the station.")],
            ["kyoto_late"],
        ),
    ]
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(items))
    archive = build_archive("longmemeval", data)
    q = archive.questions[0]
    assert q.date == datetime(2023, 5, 20, 10, 0, tzinfo=UTC)
    assert q.history_end == datetime(2023, 5, 20, 18, 0, tzinfo=UTC)
    assert q.as_of == q.history_end
    later = archive.questions[1]
    assert later.as_of == later.date  # its history ended before it was asked
    with archive_services(archive, "longmemeval", data, services_factory(), tmp_path / "cache") as svc:
        view = QuestionServices(svc, q, bounded=True)
        assert view.question_date == q.date  # relative time words still read the question's own date
        for name in ("bm25", "refind", "bm25s"):
            found = {sid for sid, _ in MODES[name].fn(view, "gyokuro tea Kyoto", 5)}
            assert found == {"lme:kyoto"}, name


def test_history_end_of_undated_and_locomo_questions():
    from refind_desktop.eval.datasets import history_end

    assert history_end([]) is None
    undated = EvalQuestion("u", "x", "tea", "", None, history_end=datetime(2023, 1, 1, tzinfo=UTC))
    assert undated.as_of is None  # an undated question is not bounded at all
    dated = EvalQuestion("d", "x", "tea", "", datetime(2023, 2, 1, tzinfo=UTC))
    assert dated.as_of == dated.date  # no history end known: the question's date
