"""One migration runner for the catalog and the vector table: concurrent first opens apply each migration once."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import time
from pathlib import Path

import pytest

from refind_desktop.index.migrations import enable_wal, migrate, statements

COUNTING = [
    ("001_t", "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1);"),
    ("002_semicolon", "INSERT INTO t VALUES (length('a;b'));"),
]


def _open(kind: str, path: str, start: float, out) -> None:
    while time.time() < start:
        time.sleep(0.001)
    try:
        if kind == "windows":
            from refind_desktop.rag.state import WindowTable

            WindowTable(Path(path)).close()
        elif kind == "catalog":
            from refind_desktop.index.catalog import Catalog

            Catalog(Path(path)).close()
        else:
            db = sqlite3.connect(path, timeout=30)
            enable_wal(db)  # as the catalog and the vector state do (a bare PRAGMA can meet a lock)
            migrate(db, COUNTING)
            db.close()
        out.put("ok")
    except Exception as exc:  # reported to the parent, which fails the test
        out.put(f"{type(exc).__name__}: {exc}")


def _race(kind: str, path: Path, n: int = 4) -> list[str]:
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    start = time.time() + 0.3
    procs = [ctx.Process(target=_open, args=(kind, str(path), start, out)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    return [out.get(timeout=5) for _ in procs]


@pytest.mark.parametrize("kind", ["windows", "catalog", "counting"])
def test_processes_opening_a_new_database_together_apply_each_migration_once(tmp_path, kind):
    for round_ in range(4):
        path = tmp_path / f"{kind}{round_}.sqlite"
        results = _race(kind, path)
        assert results == ["ok"] * len(results), results
        db = sqlite3.connect(path)
        names = [r[0] for r in db.execute("SELECT name FROM migrations")]
        assert len(names) == len(set(names)) >= 1
        if kind == "counting":
            assert sorted(r[0] for r in db.execute("SELECT x FROM t")) == [1, 3]
        db.close()


def test_a_failing_migration_leaves_nothing_applied(tmp_path):
    db = sqlite3.connect(tmp_path / "x.sqlite")
    bad = [("001_ok", "CREATE TABLE a(x)"), ("002_bad", "CREATE TABLE b(x); INSERT INTO nope VALUES (1)")]
    with pytest.raises(sqlite3.OperationalError):
        migrate(db, bad)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == set(), "the whole run rolled back"
    assert migrate(db, bad[:1]) == ["001_ok"]
    assert migrate(db, bad[:1]) == []


def test_statement_splitter_keeps_semicolons_in_strings():
    assert statements("INSERT INTO t VALUES ('a;b'); SELECT 1;") == [
        "INSERT INTO t VALUES ('a;b');",
        "SELECT 1;",
    ]


@pytest.mark.parametrize("left", [2, 3], ids=["before-chats", "chats-only"])
def test_an_old_catalog_migrates_through_every_step_and_keeps_its_rows(tmp_path, left):
    from datetime import datetime, timezone

    from refind_desktop.index.catalog import MIGRATIONS, Catalog, SessionRecord

    path = tmp_path / "catalog.sqlite"
    db = sqlite3.connect(path)
    migrate(db, MIGRATIONS[:left])  # a catalog as an earlier release left it
    db.execute(
        "INSERT INTO sessions(sid, ord, source, format, title, started_at, participants, n_turns, hashes) "
        "VALUES ('whatsapp:bo', 1, '/c/bo.txt', 'whatsapp', 'Bo', 0, '[]', 2, 'a,b')"
    )
    db.commit()
    db.close()
    cat = Catalog(path)
    names = [r[0] for r in cat.db.execute("SELECT name FROM migrations ORDER BY rowid")]
    assert names == [n for n, _ in MIGRATIONS] and names[2:] == ["003_session_chat", "004_transcript_ids"]
    old = cat.get_session("whatsapp:bo")
    assert (old.hashes, old.chat, old.chat_title, old.continues) == (("a", "b"), "", "", "")
    when = datetime(2024, 3, 12, 9, 2, tzinfo=timezone.utc)
    rec = SessionRecord(
        "claude-code:b", 2, "/c/b.jsonl", "claude_code", "t", when, 1, ("h",), "chat:x", "X", "claude-code:a"
    )
    cat.put_session(rec, ["user"])
    cat.put_transcript("claude_code", rec.sid, rec.source, [("u1", 0, when)])
    cat.commit()
    cat.close()
    cat = Catalog(path)
    assert cat.get_session(rec.sid) == rec, "put_session writes every column, chat and continues alike"
    assert cat.positions(rec.sid) == {0: "u1"} and cat.participants(rec.sid) == ["user"]
    (info,) = [i for i in cat.session_infos() if i.session_id == rec.sid]
    assert (info.chat_id, info.chat_title, info.continues) == ("chat:x", "X", "claude-code:a")
    cat.close()
