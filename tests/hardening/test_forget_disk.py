"""`forget` leaves no byte of any version of a source's text under the data dir."""

from __future__ import annotations

from .helpers import grep, jsonl_chat, refind

OLD, NEW, APPENDED = "zqxoldvorpal", "zqxnewmunch", "zqxappendfrab"


def test_forget_removes_every_version_of_a_reingested_file(tmp_path, refind_home):
    chats = tmp_path / "chats"
    secret = chats / "secret.jsonl"
    jsonl_chat(secret, [(f"locker code {OLD}", "noted"), ("anything else?", "no")])
    for i in range(5):
        jsonl_chat(chats / f"other{i}.jsonl", [(f"plain chat number {i} about bikes", "fine")])
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    # unrelated commits in between: more segments, yet fewer than the 8 at which tantivy's merge policy
    # merges small segments (a merge drops deleted turns itself, and the forget would have less to do)
    for i in range(2):
        jsonl_chat(chats / f"later{i}.jsonl", [(f"later chat {i} about tea", "ok")])
        assert refind(refind_home, "ingest", str(chats)).returncode == 0
    jsonl_chat(secret, [(f"locker code {NEW}", "noted"), ("anything else?", "no")])  # rewritten
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    jsonl_chat(secret, [(f"locker code {NEW}", "noted"), ("anything else?", "no"), (APPENDED, "ok")])  # grown
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    data = refind_home / "data"
    assert grep(data, OLD) and grep(data, NEW), "sanity: versions on disk before forget"
    out = refind(refind_home, "forget", str(secret))
    assert out.returncode == 0, out.stderr
    for word in (OLD, NEW, APPENDED):
        assert grep(data, word) == [], f"{word} survives forget"
    out = refind(refind_home, "search", "plain", "chat", "bikes", "--top-k", "20")
    assert out.stdout.count("plain chat number") == 5
    assert "later chat 1" in refind(refind_home, "search", "later", "tea").stdout
