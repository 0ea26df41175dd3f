"""A resumed or forked agent session is indexed once: the new file contributes only its new turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.claude import claude_lines, claude_session

from refind_desktop.cli import main
from refind_desktop.services import build_services

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
C = "cccccccc-0000-4000-8000-000000000003"
FIRST = [("x1", "how deep to plant garlic", "five centimetres"), ("x2", "and tulips", "fifteen")]
MORE = [("x3", "when to water the zqxfig tree", "weekly"), ("x4", "prune it", "in winter")]


@pytest.fixture
def svc(refind_home):
    s = build_services()
    yield s
    s.close()


def texts(svc, sid: str) -> list[str]:
    rec = svc.catalog.get_session(f"claude-code:{sid}")
    return [] if rec is None else [t.text for t in svc.index.session_turns(rec.ord)]


def write_pair(root: Path) -> tuple[Path, Path]:
    """A session and its resumed copy: the copy replays FIRST (same uuids and times), then adds MORE."""
    return claude_session(root, A, FIRST), claude_session(root, B, FIRST + MORE)


def check_once(svc) -> None:
    assert [t.split("\n")[0] for t in texts(svc, A)] == ["User: how deep to plant garlic", "User: and tulips"]
    assert [t.split("\n")[0] for t in texts(svc, B)] == [
        "User: when to water the zqxfig tree",
        "User: prune it",
    ]
    assert svc.index.num_turns() == 4 == svc.catalog.totals()["turns"]
    assert svc.catalog.get_session(f"claude-code:{B}").continues == f"claude-code:{A}"
    assert svc.catalog.get_session(f"claude-code:{A}").continues == ""
    hits = svc.engine.search("plant garlic", options=svc.search_options(context_window=0))
    assert [b.session_id for b in hits].count(f"claude-code:{A}") == 1
    assert f"claude-code:{B}" not in [b.session_id for b in hits], "the replayed turn is kept once"


def test_a_resumed_session_keeps_only_its_new_turns_and_links_the_first(svc, tmp_path):
    write_pair(tmp_path / "chats")
    svc.ingestor.ingest([tmp_path / "chats"])
    check_once(svc)
    info = {i.session_id: i for i in svc.catalog.session_infos()}
    assert info[f"claude-code:{B}"].continues == f"claude-code:{A}"


@pytest.mark.parametrize("order", ["resumed first", "resumed alone, then the first"])
def test_ingest_order_does_not_change_the_result(svc, tmp_path, order):
    a, b = write_pair(tmp_path / "chats")
    if order == "resumed first":
        b_only = tmp_path / "b"
        b_only.mkdir()
        svc.ingestor.ingest([b])
        assert len(texts(svc, B)) == 4
        svc.ingestor.ingest([a])
    else:
        svc.ingestor.ingest([b])
        svc.ingestor.ingest([tmp_path / "chats"])
    check_once(svc)


def test_a_resumed_file_whose_file_is_gone_gives_up_the_replayed_turns_from_the_archive(svc, tmp_path):
    a, b = write_pair(tmp_path / "chats")
    svc.ingestor.ingest([b])
    b.unlink()  # the resumed transcript was cleaned up; its turns live on in the archive
    report = svc.ingestor.ingest([a])
    assert not report.skipped
    check_once(svc)


def test_forgetting_the_first_file_keeps_the_replayed_turns_from_the_resumed_one(svc, tmp_path):
    a, b = write_pair(tmp_path / "chats")
    svc.ingestor.ingest([tmp_path / "chats"])
    svc.ingestor.forget(a)
    got = texts(svc, B)
    assert len(got) == 4 and got[0].startswith("User: how deep to plant garlic")
    assert texts(svc, A) == []
    assert svc.catalog.get_session(f"claude-code:{B}").continues == ""
    assert svc.index.num_turns() == 4 == svc.catalog.totals()["turns"]


def test_a_chain_of_resumes_and_a_growing_resumed_file(svc, tmp_path):
    chats = tmp_path / "chats"
    claude_session(chats, A, FIRST)
    claude_session(chats, B, FIRST + MORE[:1])
    c = claude_session(chats, C, FIRST + MORE)
    svc.ingestor.ingest([chats])
    assert (len(texts(svc, A)), len(texts(svc, B)), len(texts(svc, C))) == (2, 1, 1)
    assert svc.catalog.get_session(f"claude-code:{C}").continues == f"claude-code:{B}"
    c.write_text(c.read_text() + "\n".join(claude_lines(C, [("x5", "zqxplum too?", "yes")], 10)) + "\n")
    report = svc.ingestor.ingest([chats])
    assert (report.added_turns, report.removed_turns) == (1, 0), "an append stays an append"
    assert len(texts(svc, C)) == 2 and svc.index.num_turns() == 5


def test_show_says_where_a_resumed_session_continues_from(tmp_path, capsys, refind_home):
    write_pair(tmp_path / "chats")
    assert main(["ingest", str(tmp_path / "chats")]) == 0
    capsys.readouterr()
    assert main(["show", f"claude-code:{B}"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"continues claude-code:{A} (how deep to plant garlic, 2 turns")
    assert main(["show", f"claude-code:{B}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["continues"] == f"claude-code:{A}"


def codex_rollout(path: Path, sid: str, lines: list[dict], forked_from: str = "") -> Path:
    meta = {"id": sid, "timestamp": "2025-11-02T08:00:00.000Z"}
    if forked_from:
        meta["forked_from_id"] = forked_from
    rows = [{"timestamp": "2025-11-02T08:00:00.000Z", "type": "session_meta", "payload": meta}, *lines]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def codex_turn(minute: int, prompt: str, reply: str) -> list[dict]:
    def ev(second: int, payload: dict) -> dict:
        return {
            "timestamp": f"2025-11-02T08:{minute:02d}:{second:02d}.000Z",
            "type": "event_msg",
            "payload": payload,
        }

    return [
        ev(1, {"type": "user_message", "message": prompt, "kind": "plain"}),
        ev(5, {"type": "agent_message", "message": reply}),
    ]


def test_a_forked_codex_session_keeps_only_its_new_turns(svc, tmp_path):
    parent_id, fork_id = "019a4000-0000-7000-8000-0000000000aa", "019a4000-0000-7000-8000-0000000000ff"
    day = tmp_path / "codex" / "sessions" / "2025" / "11" / "02"
    parent_lines = codex_turn(1, "set up the zqxkiln build", "done") + codex_turn(2, "add tests", "added")
    codex_rollout(day / f"rollout-2025-11-02T08-00-00-{parent_id}.jsonl", parent_id, parent_lines)
    replay = [
        {"timestamp": "2025-11-02T09:00:00.000Z", "type": "session_meta", "payload": {"id": parent_id}},
        *parent_lines,
    ]
    codex_rollout(
        day / f"rollout-2025-11-02T09-00-00-{fork_id}.jsonl",
        fork_id,
        replay + codex_turn(30, "now try the other approach", "tried"),
        forked_from=parent_id,
    )
    svc.ingestor.ingest([tmp_path / "codex"])
    fork = svc.catalog.get_session(f"codex:{fork_id}")
    assert fork.n_turns == 1 and fork.continues == f"codex:{parent_id}"
    assert svc.catalog.get_session(f"codex:{parent_id}").n_turns == 2
    assert svc.index.num_turns() == 3


def test_a_catalog_from_before_gets_the_link_and_the_transcript_table(tmp_path):
    import sqlite3

    from refind_desktop.index.catalog import MIGRATIONS, Catalog
    from refind_desktop.index.migrations import migrate

    path = tmp_path / "catalog.sqlite"
    db = sqlite3.connect(path)
    migrate(db, MIGRATIONS[:2])  # the catalog as the previous release left it
    db.execute(
        "INSERT INTO sessions VALUES ('claude-code:x', 1, '/c/x.jsonl', 'claude_code', 't', NULL, '[]', 1, 'h')"
    )
    db.commit()
    db.close()
    cat = Catalog(path)
    rec = cat.get_session("claude-code:x")
    assert (rec.n_turns, rec.continues) == (1, "")
    cat.put_transcript("claude_code", "claude-code:x", "/c/x.jsonl", [("u1", 0, None)])
    assert cat.positions("claude-code:x") == {0: "u1"}
    cat.close()
