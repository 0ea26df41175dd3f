"""Vectors stay in step with ingest: append embeds only new windows; change and forget drop vectors."""

from __future__ import annotations

import shutil
import threading

import numpy as np
from helpers.rag import day, session, words

from refind_desktop.rag.rawrag import dense_for
from refind_desktop.rag.windows import session_windows


def expected(svc, fake) -> set[tuple[int, str]]:
    """(sord, window key) of every window the current index content should have."""
    out = set()
    for rec in svc.catalog.iter_sessions():
        for w in session_windows(svc.index.session_turns(rec.ord), fake.tokenize):
            out.add((rec.ord, w.key))
    return out


def stored(dense) -> set[tuple[int, str]]:
    return set(dense.store.table.db.execute("SELECT sord, key FROM windows WHERE dead=0"))


def check_vectors_match_texts(dense, fake) -> None:
    """Every live vector is the embedding of its window's (rebuilt) text."""
    data = dense.store.load(force=True)
    hits = [type("H", (), {"wid": int(w)}) for w in data.wid]
    texts = dense.texts(hits)
    again = fake.encode(texts)
    assert np.allclose(data.matrix, again, atol=2e-3)


def test_append_change_and_forget_keep_vectors_consistent(svc, fake, tmp_path):
    dense = dense_for(svc)
    a = session("s:a", day(1, 1), *(words(f"a{i}x", 120) for i in range(5)))
    b = session("s:b", day(1, 2), "the lighthouse keeper painted the door red", words("b", 50))
    svc.ingestor.apply_sessions([a, b], "src", "generic")

    r1 = dense.catch_up()
    assert r1.windows_added == len(expected(svc, fake)) and stored(dense) == expected(svc, fake)
    check_vectors_match_texts(dense, fake)

    # append: only the new windows (plus the old partial tail) are embedded
    fake.encoded.clear()
    a2 = session("s:a", day(1, 1), *(words(f"a{i}x", 120) for i in range(6)))
    svc.ingestor.apply_sessions([a2], "src", "generic")
    r2 = dense.catch_up()
    assert 1 <= r2.windows_added <= 3 and r2.windows_kept >= 2
    assert len(fake.encoded) == r2.windows_added
    assert stored(dense) == expected(svc, fake)
    check_vectors_match_texts(dense, fake)

    # change a turn: the ingest hook tombstones its windows at once, before any re-embedding
    b2 = session("s:b", day(1, 2), "the lighthouse keeper painted the door blue", words("b", 50))
    svc.ingestor.apply_sessions([b2], "src", "generic")
    sord_b = svc.catalog.get_session("s:b").ord
    assert not any(h.sord == sord_b for h in dense.windows("lighthouse keeper door", 10))
    assert dense.pending_sessions() == 1
    r3 = dense.catch_up()
    assert r3.windows_added >= 1 and stored(dense) == expected(svc, fake)
    assert dense.windows("lighthouse keeper door blue", 1)[0].sord == sord_b
    check_vectors_match_texts(dense, fake)

    # forget a source file: its windows vanish at once, and the catch-up records nothing new
    src = tmp_path / "chats"
    shutil.copytree("refind_desktop/samples/whatsapp", src)
    svc.ingestor.ingest([src])
    dense.catch_up()
    maya = {
        r.ord for r in svc.catalog.sessions_of_source(str((src / "WhatsApp Chat with Maya.txt").resolve()))
    }
    assert maya and {s for s, _ in stored(dense)} & maya
    svc.ingestor.forget(src)
    assert not {s for s, _ in stored(dense)} & maya
    r4 = dense.catch_up()
    assert r4.windows_added == 0 and stored(dense) == expected(svc, fake)


def test_windows_of_changed_turns_are_never_returned_even_without_the_hook(svc, fake):
    dense = dense_for(svc)
    svc.ingestor.listeners.clear()  # e.g. another process changed the index
    svc.ingestor.apply_sessions([session("s:c", day(2, 1), "alpha beta gamma", "delta epsilon")], "src", "g")
    dense.catch_up()
    assert len(dense.windows("alpha beta", 5)) == 1
    svc.ingestor.apply_sessions([session("s:c", day(2, 1), "zeta eta", "delta epsilon")], "src", "g")
    assert dense.windows("alpha beta", 5) == []  # the catalog's turn hashes no longer match


def test_cancel_keeps_finished_shards_and_resumes(svc, fake):
    dense = dense_for(svc)
    sessions = [
        session(f"s:{i}", day(3, 1 + i % 20), *(words(f"q{i}y", 200) for _ in range(3))) for i in range(6)
    ]
    svc.ingestor.apply_sessions(sessions, "src", "generic")
    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append(p.done)
        if p.done >= 4:
            cancel.set()

    from refind_desktop.rag.indexer import catch_up

    r1 = catch_up(svc.index, svc.catalog, dense.store, fake, progress, cancel, batch=2, flush_every=2)
    assert r1.cancelled and 0 < r1.windows_added < len(expected(svc, fake))
    r2 = dense.catch_up()
    assert not r2.cancelled and stored(dense) == expected(svc, fake)
    assert r1.windows_added + r2.windows_added == len(expected(svc, fake))


def test_rebuild_and_model_mismatch(svc, fake):
    import pytest

    from refind_desktop.errors import ConfigError

    dense = dense_for(svc)
    svc.ingestor.apply_sessions([session("s:d", day(4, 1), "one two three")], "src", "generic")
    dense.catch_up()
    fake.name = "another-model"
    with pytest.raises(ConfigError, match="embed --rebuild"):
        dense.catch_up()
    report = dense.catch_up(rebuild=True)
    assert report.windows_added == 1 and dense.store.model == "another-model"
