"""Privacy: everything refind writes is private to the user, and `forget` removes text from disk."""

from __future__ import annotations

import stat
from pathlib import Path

from helpers.ops import jsonl, refind

from refind_desktop.services import build_services

SECRET = "zqxvorpalmunch"


def grep(root: Path, word: str) -> list[Path]:
    """Files under root whose bytes contain word."""
    return [p for p in root.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


def test_data_config_and_logs_are_private(refind_home, chats):
    from refind_desktop.config import Settings, save_settings

    save_settings(Settings(chat_folder=str(chats)))
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    refind(refind_home, "forget", str(chats / "bikes.jsonl"))
    svc = build_services()
    svc.close()
    (refind_home / "logs").mkdir(exist_ok=True)
    from refind_desktop.cli.watch import setup_logging

    _, handlers = setup_logging()
    for h in handlers:
        h.close()
    seen = 0
    for sub in ("data", "config", "logs"):
        for p in [refind_home / sub, *(refind_home / sub).rglob("*")]:
            mode = stat.S_IMODE(p.stat().st_mode)
            assert mode == (0o700 if p.is_dir() else 0o600), f"{p} is {oct(mode)}"
            seen += 1
    assert seen > 15  # index segments, tantivy locks, catalog, writer lock, config, log


def test_forget_physically_removes_the_text(refind_home, tmp_path):
    chats = tmp_path / "chats"
    jsonl(chats / "secret.jsonl", [(f"My locker code word is {SECRET}", "Noted."), ("Anything else?", "No.")])
    for i in range(5):
        jsonl(chats / f"other{i}.jsonl", [(f"Plain chat number {i} about bikes", "Fine.")])
    assert refind(refind_home, "ingest", str(chats)).returncode == 0
    data = refind_home / "data"
    assert grep(data / "index", SECRET), "sanity: the word is on disk before forget"
    out = refind(refind_home, "forget", str(chats / "secret.jsonl"))
    assert out.returncode == 0 and "removed 2 turns" in out.stdout
    assert grep(data, SECRET) == [], "forget leaves no copy in the index, catalog or WAL"
    svc = build_services()
    assert not svc.engine.search(SECRET)
    assert len(svc.engine.search("plain chat bikes", options=svc.search_options(top_k=10))) == 5
    assert svc.index.num_turns() == 5 == svc.catalog.totals()["turns"]
    svc.close()
