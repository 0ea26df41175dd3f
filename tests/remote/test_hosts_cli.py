"""`search`, `show` and `sessions` name each session's machine and filter by it (`--host`)."""

from __future__ import annotations

import json

import pytest
from helpers.mirrors import Archive, archive_fixture  # noqa: F401 - the `archive` fixture

from refind_desktop.cli import main
from refind_desktop.errors import NotFoundError
from refind_desktop.services import build_services

BOX, VM, LAPTOP = "aaaa", "bbbb", "cccc"  # the session ids' first letters, per machine


def run_json(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_session(rows: list[dict], key: str = "session_id") -> dict[str, str | None]:
    return {r[key].split(":")[-1][:4]: r["host"] for r in rows}


def test_search_json_names_each_results_host(archive: Archive, capsys) -> None:
    results = run_json(capsys, "search", "kiln")["results"]
    assert by_session(results) == {BOX: "dana@buildbox:2222", VM: "ci@cloud-vm", LAPTOP: None}


def test_search_text_shows_the_host_in_the_result_header(archive: Archive, capsys) -> None:
    assert main(["search", "flaky", "sensor"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("[1] ") and " on dana@buildbox:2222 turn 0 " in header
    assert main(["search", "glaze"]) == 0
    assert " on " not in capsys.readouterr().out.splitlines()[0]  # this machine's own: no host


@pytest.mark.parametrize(
    ("host", "kept"),
    [
        ("dana@buildbox:2222", {BOX}),
        ("buildbox", {BOX}),  # the host name alone
        ("dana@buildbox", {BOX}),  # any port
        ("CLOUD-VM", {VM}),  # host names are not case-sensitive
        ("local", {LAPTOP}),
    ],
)
def test_search_host_filter_keeps_that_machines_sessions(archive: Archive, capsys, host, kept) -> None:
    results = run_json(capsys, "search", "kiln", "--host", host)["results"]
    assert set(by_session(results)) == kept


def test_a_host_of_another_user_or_port_matches_nothing(archive: Archive, capsys) -> None:
    for host in ("root@buildbox", "buildbox:22", "nowhere"):
        assert main(["search", "kiln", "--host", host]) == NotFoundError.exit_code
        err = capsys.readouterr().err
        assert f"no host '{host}' has pulled sessions" in err
        assert "hosts: local, ci@cloud-vm, dana@buildbox:2222" in err


def test_sessions_show_and_filter_by_host(archive: Archive, capsys) -> None:
    rows = run_json(capsys, "sessions")["sessions"]
    assert by_session(rows) == {BOX: "dana@buildbox:2222", VM: "ci@cloud-vm", LAPTOP: None}
    assert set(by_session(run_json(capsys, "sessions", "--host", "ci@cloud-vm")["sessions"])) == {VM}
    assert set(by_session(run_json(capsys, "sessions", "--host", "local")["sessions"])) == {LAPTOP}
    assert main(["sessions", "--host", "buildbox"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "claude_code" in line and "[dana@buildbox:2222] " in line


def test_show_names_the_host(archive: Archive, capsys) -> None:
    sid = next(r["session_id"] for r in run_json(capsys, "sessions")["sessions"] if BOX in r["session_id"])
    shown = run_json(capsys, "show", sid)
    assert shown["host"] == "dana@buildbox:2222" and "/remotes/dana@buildbox_2222/~/" in shown["source"]
    assert main(["show", sid]) == 0
    assert "turns, on dana@buildbox:2222, from " in capsys.readouterr().out.splitlines()[0]
    local = next(
        r["session_id"] for r in run_json(capsys, "sessions")["sessions"] if LAPTOP in r["session_id"]
    )
    assert run_json(capsys, "show", local)["host"] is None


def test_hosts_of_a_result_page_cost_one_catalog_query(archive: Archive) -> None:
    """The host comes from the session rows the page reads anyway: one query however many turns."""
    svc = build_services()
    try:
        seen: list[str] = []
        svc.catalog.db.set_trace_callback(seen.append)
        blocks = svc.engine.search("kiln", options=svc.search_options(top_k=5, context_window=2))
        svc.catalog.db.set_trace_callback(None)
        assert len(blocks) == 3 and {b.host for b in blocks} == {"dana@buildbox:2222", "ci@cloud-vm", ""}
        assert sum("FROM sessions" in q for q in seen) == 1
    finally:
        svc.close()
