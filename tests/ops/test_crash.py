"""Crash safety, deterministically: a writer that dies between the index commit and the catalog commit."""

from __future__ import annotations

import pytest
from helpers.ops import jsonl

from refind_desktop.services import build_services


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs, nothing is committed by the catalog."""


def die_at_catalog_commit(svc, n: int) -> None:
    calls = {"n": 0}
    real = svc.catalog.commit

    def commit():
        calls["n"] += 1
        if calls["n"] == n:
            raise Killed()
        real()

    svc.catalog.commit = commit


def all_turns(svc) -> dict[str, list[str]]:
    svc.index.reload()
    out: dict[str, list[str]] = {}
    for info in svc.catalog.session_infos():
        rec = svc.catalog.get_session(info.session_id)
        out[info.session_id] = [t.text for t in svc.index.session_turns(rec.ord)]
    return out


@pytest.mark.parametrize("change", ["grow", "rewrite", "revert"])
def test_kill_between_commits_is_repaired_at_next_start(tmp_path, change):
    chats = tmp_path / "chats"
    f = jsonl(chats / "a.jsonl", [("q1 garlic", "a1"), ("q2 garlic", "a2")])
    jsonl(chats / "b.jsonl", [("q bikes", "a bikes")])
    svc = build_services()
    svc.ingestor.ingest([chats])
    original = f.read_text()
    if change == "grow":
        jsonl(f, [("q1 garlic", "a1"), ("q2 garlic", "a2"), ("q3 garlic", "a3")])
    else:
        jsonl(f, [("tulips instead", "ok")])
    die_at_catalog_commit(svc, 2)  # 1st: skipped list; 2nd: after a.jsonl's index commit
    with pytest.raises(Killed):
        svc.ingestor.ingest([chats])
    svc.catalog.db.rollback()
    svc.close()
    assert svc.index.journal.pending()["ingest"] == [str(f.resolve())]
    if change == "revert":
        f.write_text(original)  # the index holds the interrupted version, the catalog the old one
    svc = build_services()
    svc.ingestor.ingest([tmp_path / "elsewhere"])  # any later write repairs, whatever its paths
    texts = all_turns(svc)
    n_docs = svc.index.num_turns()
    assert n_docs == sum(map(len, texts.values())) == svc.catalog.totals()["turns"]
    want = {"grow": 3, "rewrite": 1, "revert": 2}[change]
    assert sorted(len(v) for v in texts.values()) == sorted([want, 1])
    assert svc.index.journal.pending()["ingest"] == []
    svc.close()


def test_interrupted_forget_is_finished_by_the_next_writer(tmp_path):
    chats = tmp_path / "chats"
    jsonl(chats / "a.jsonl", [("q garlic", "a")])
    jsonl(chats / "b.jsonl", [("q bikes", "a")])
    svc = build_services()
    svc.ingestor.ingest([chats])
    die_at_catalog_commit(svc, 1)
    with pytest.raises(Killed):
        svc.ingestor.forget(chats / "a.jsonl")
    svc.catalog.db.rollback()
    svc.close()
    svc = build_services()
    assert svc.catalog.get_file(str((chats / "a.jsonl").resolve())) is not None  # not yet
    svc.ingestor.ingest([chats / "b.jsonl"])
    assert svc.catalog.get_file(str((chats / "a.jsonl").resolve())) is None
    assert svc.index.num_turns() == 1 == svc.catalog.totals()["turns"]
    svc.close()
