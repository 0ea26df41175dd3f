"""Batched ingest: many sources per index commit, each source whole or not at all, unchanged files unread."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
from helpers.claude import PROJECT, claude_lines, claude_session
from helpers.ops import jsonl

from refind_desktop.index.store import TurnWriter
from refind_desktop.ingest import claude_code
from refind_desktop.services import build_services

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

_opened: list[str] | None = None


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


class Opens:
    """Paths this process opens inside `folder` while the block runs (Python's `open` audit event)."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder.resolve())
        self.paths: list[str] = []

    def __enter__(self) -> Opens:
        global _opened
        _opened = []
        return self

    def __exit__(self, *exc) -> None:
        global _opened
        self.paths = [p for p in _opened if os.path.abspath(p).startswith(self.folder + "/")]
        _opened = None


@pytest.fixture
def svc(refind_home):
    s = build_services()
    yield s
    s.close()


def sessions(folder: Path, n: int, word: str = "garlic") -> list[Path]:
    """`n` Claude Code session files of two exchanges each."""
    return [
        claude_session(
            folder,
            f"0000{i:04d}-0000-4000-8000-000000000000",
            [(f"s{i}x1", f"{word} question {i}", "an answer"), (f"s{i}x2", "and then?", "more")],
        )
        for i in range(n)
    ]


def count_commits(monkeypatch) -> list[int]:
    calls = [0]
    real = TurnWriter.commit

    def commit(self):
        calls[0] += 1
        real(self)

    monkeypatch.setattr(TurnWriter, "commit", commit)
    return calls


def test_many_small_files_are_a_few_index_commits(svc, tmp_path, monkeypatch):
    sessions(tmp_path / "chats", 120)
    commits = count_commits(monkeypatch)
    report = svc.ingestor.ingest([tmp_path / "chats"])
    assert (report.ingested_files, report.added_turns) == (120, 240)
    assert commits[0] <= 2 and report.commits == commits[0], "one commit per file is what was slow"
    assert svc.index.num_turns() == 240 == svc.catalog.totals()["turns"]
    assert len(svc.engine.search("garlic question 77")) > 0
    again = svc.ingestor.ingest([tmp_path / "chats"])
    assert (again.unchanged_files, again.commits) == (120, 0), "nothing changed: no index commit at all"


def test_commit_policy_commits_by_turn_count(refind_home, tmp_path, monkeypatch):
    from refind_desktop.ingest.batch import CommitPolicy

    sessions(tmp_path / "chats", 30)
    svc = build_services()
    svc.ingestor.policy = CommitPolicy(turns=10, seconds=3600)
    report = svc.ingestor.ingest([tmp_path / "chats"])
    svc.close()
    assert report.added_turns == 60 and report.commits == 6  # 10 changed turns, then a commit


def test_a_file_failing_half_way_is_undone_alone_and_the_batch_goes_on(svc, tmp_path, monkeypatch):
    chats = tmp_path / "chats"
    files = sessions(chats, 3)
    bad = files[1]
    second = claude_lines("1111aaaa-0000-4000-8000-000000000000", [("b1", "second session", "ok")])
    bad.write_text(bad.read_text() + "\n".join(second) + "\n")
    real = claude_code.parse

    def parse(path, ctx):
        for n, session in enumerate(real(path, ctx)):
            if path == bad and n == 1:
                raise RuntimeError("reader bug in the second session")
            yield session

    monkeypatch.setattr(claude_code, "parse", parse)
    report = svc.ingestor.ingest([chats])
    assert [s.path for s in report.skipped] == [str(bad.resolve())]
    assert report.ingested_files == 2 and report.added_turns == 4, "the bad file's first session is undone"
    assert svc.index.num_turns() == 4 == svc.catalog.totals()["turns"]
    assert svc.catalog.get_file(str(bad.resolve())) is None
    assert svc.catalog.session_count() == 2


def test_a_large_source_is_applied_on_its_own_commit(refind_home, tmp_path):
    from refind_desktop.ingest.batch import CommitPolicy

    chats = tmp_path / "chats"
    sessions(chats, 4)
    big = jsonl(chats / "big.jsonl", [(f"long talk {i} " + "lorem " * 50, "ok") for i in range(40)])
    svc = build_services()
    svc.ingestor.policy = CommitPolicy(stage_bytes=2_000)
    report = svc.ingestor.ingest([chats])
    assert report.added_turns == 8 + 40 and not report.skipped
    assert report.commits >= 2  # the sources before it, then the big file alone
    assert svc.index.num_turns() == 48 == svc.catalog.totals()["turns"]
    assert str(big.resolve()) in {f.path for f in svc.catalog.files()}
    svc.close()


class Killed(BaseException):
    """Stands in for SIGKILL between the index commit and the catalog commit."""


def test_a_kill_between_the_commits_of_a_batch_replays_that_batch_only(refind_home, tmp_path, monkeypatch):
    from refind_desktop.ingest.batch import CommitPolicy

    chats = tmp_path / "chats"
    files = sessions(chats, 6)
    svc = build_services()
    svc.ingestor.policy = CommitPolicy(turns=6, seconds=3600)  # three files per batch
    real, calls = svc.catalog.commit, [0]

    def commit():
        calls[0] += 1
        if calls[0] == 3:  # 1: skip list; 2: first batch; 3: second batch, after its index commit
            raise Killed()
        real()

    svc.catalog.commit = commit
    with pytest.raises(Killed):
        svc.ingestor.ingest([chats])
    svc.catalog.db.rollback()
    svc.close()
    pending = build_services()
    assert pending.index.journal.pending()["ingest"] == [str(p.resolve()) for p in files[3:6]]
    assert {f.path for f in pending.catalog.files()} == {str(p.resolve()) for p in files[:3]}
    assert pending.index.num_turns() == 12, "the index is one batch ahead of the catalog"
    report = pending.ingestor.ingest([tmp_path / "elsewhere"])  # any later writer repairs
    assert report.ingested_files == 3
    assert pending.index.num_turns() == 12 == pending.catalog.totals()["turns"]
    assert pending.index.journal.pending()["ingest"] == []
    pending.close()


def test_unchanged_files_are_not_opened_again(svc, tmp_path):
    chats = tmp_path / "src" / "chats"
    files = sessions(chats, 20)
    slack = tmp_path / "src" / "slack"
    shutil.copytree(FIXTURES / "slack", slack)
    svc.ingestor.ingest([chats, slack])
    with Opens(tmp_path / "src") as opened:
        report = svc.ingestor.ingest([chats, slack])
    assert report.ingested_files == 0 and opened.paths == [], opened.paths[:5]
    sources = report.unchanged_files
    assert sources > 20  # the chats and the Slack export folder(s)
    os.utime(files[3], ns=(1, 1))  # touched: same bytes, new mtime
    with Opens(tmp_path / "src") as opened:
        report = svc.ingestor.ingest([chats, slack])
    assert report.ingested_files == 1 and report.added_turns == 0  # read once (it was never hashed)
    assert set(opened.paths) == {str(files[3].resolve())}
    os.utime(files[3], ns=(2, 2))
    with Opens(tmp_path / "src") as opened:
        report = svc.ingestor.ingest([chats, slack])
    assert report.unchanged_files == sources and report.ingested_files == 0  # hashed, found equal, not parsed
    assert opened.paths == [str(files[3].resolve())]


def test_readers_keep_searching_while_batches_are_written(svc, tmp_path):
    from refind_desktop.ingest.batch import CommitPolicy

    sessions(tmp_path / "chats", 300)
    reader = build_services()
    errors: list[BaseException] = []
    seen: list[int] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            try:
                reader.index.reload()
                seen.append(reader.index.num_turns())
                reader.engine.search("garlic question")
            except BaseException as exc:  # noqa: BLE001 - the test reports any failure
                errors.append(exc)
                return

    t = threading.Thread(target=read)
    t.start()
    svc.ingestor.policy = CommitPolicy(turns=100, seconds=3600)
    svc.ingestor.ingest([tmp_path / "chats"])
    done.set()
    t.join()
    reader.index.reload()
    seen.append(reader.index.num_turns())
    reader.close()
    assert not errors
    assert seen == sorted(seen) and seen[-1] == 600
    assert set(seen) <= {0, 100, 200, 300, 400, 500, 600}, "a reader sees whole batches only"


def test_discover_within_finds_what_a_full_walk_finds(tmp_path):
    from refind_desktop.ingest.walker import discover, discover_within

    root = FIXTURES.resolve()
    full, full_skipped = discover([root])
    want = {str(s.path): s.format for s in full}
    skipped = {s.path for s in full_skipped}
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        found, skips = discover_within(root, [f])
        got = {str(s.path): s.format for s in found}
        owner = next((k for k in want if str(f) == k or str(f).startswith(k + "/")), None)
        if owner is not None:
            assert got == {owner: want[owner]}, f
        else:
            assert got == {}, f
            assert {s.path for s in skips} == ({str(f)} & skipped), f


def test_a_targeted_read_keeps_to_the_allowed_folders(svc, tmp_path):
    from refind_desktop.ingest.walker import OUTSIDE_REASON, discover_within

    chats, outside = tmp_path / "chats", tmp_path / "outside"
    jsonl(chats / "inside.jsonl", [("the zqxinside note", "noted")])
    jsonl(outside / "secret.jsonl", [("the zqxoutside note", "noted")])
    (chats / "link.jsonl").symlink_to(outside / "secret.jsonl")
    (chats / "linked").symlink_to(outside)
    targets = [chats / "inside.jsonl", chats / "link.jsonl", chats / "linked" / "secret.jsonl"]
    with Opens(outside) as opens:
        found, skipped = discover_within(chats, targets, within=[chats])
        report = svc.ingestor.ingest(targets, within=[chats], walk_root=chats)
    assert [s.path.name for s in found] == ["inside.jsonl"]
    assert {s.reason for s in skipped} == {OUTSIDE_REASON} and len(skipped) == 2
    assert opens.paths == [], "nothing outside was opened"
    assert report.added_turns == 1 and svc.index.num_turns() == 1
    outside_skips = {s.path for s in report.skipped if s.reason == OUTSIDE_REASON}
    assert outside_skips == {str((outside / "secret.jsonl").resolve())}  # both links lead to one file
    assert discover_within(chats, targets)[0] != found, "without `within` the links are read"


def test_watcher_reads_a_new_file_alone_and_a_burst_in_one_batch(svc, tmp_path):
    from refind_desktop.ingest.watcher import FolderWatcher

    chats = tmp_path / "chats"
    sessions(chats, 200)
    reports = []

    def added() -> int:
        return sum(e.report.added_turns for e in list(reports) if e.kind == "ingested" and e.report)

    w = FolderWatcher(svc, chats, on_report=lambda ev: reports.append(ev), debounce=0.2)
    w.start()
    try:
        assert w.wait_idle(60)
        with Opens(chats) as opened:
            new = claude_session(
                tmp_path / "new", "0000aaaa-0000-4000-8000-000000000000", [("n1", "zqxnew", "ok")]
            )
            os.replace(new, chats / PROJECT / new.name)
            assert _wait(lambda: svc.engine.search("zqxnew"), 5)
            assert w.wait_idle(10)
        assert set(opened.paths) == {str((chats / PROJECT / new.name).resolve())}, "no other file was read"
        burst = sessions(tmp_path / "burst", 40, word="tulip")
        for p in burst:
            os.replace(p, chats / PROJECT / p.name)
        # the initial sessions hold "question 39" too: wait for the burst's own turns, not any hit (on a
        # loaded machine the observer may not have queued the moves yet when a first search answers)
        assert _wait(lambda: added() >= 400 + 1 + 80, 30), added()
        assert w.wait_idle(15)
    finally:
        w.stop()
    ingested = [e.report for e in reports if e.kind == "ingested" and e.report.added_turns]
    assert sum(r.added_turns for r in ingested) == 400 + 1 + 80
    assert all(r.commits <= 2 for r in ingested), [r.commits for r in ingested]


def _wait(pred, timeout: float) -> bool:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_rows_only_in_a_databases_log_count_as_a_change(tmp_path):
    from refind_desktop.ingest.pipeline import digest, fingerprint

    db = tmp_path / "state.vscdb"
    db.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    os.utime(db, ns=(10**18, 10**18))
    before = (fingerprint(db), digest(db))
    wal = Path(f"{db}-wal")
    wal.write_bytes(b"a committed row still in the log")
    os.utime(wal, ns=(2 * 10**18, 2 * 10**18))
    after = (fingerprint(db), digest(db))
    assert after[0] == (db.stat().st_size, 2 * 10**18) and after[1] != before[1]
