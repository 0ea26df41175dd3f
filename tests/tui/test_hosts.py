"""Pilot tests: a hit from another machine names it, its transcript too, and the status bar shows each
host's last pull."""

from __future__ import annotations

from helpers.mirrors import Archive, archive_fixture  # noqa: F401 - the `archive` fixture
from helpers.tui import wait_for
from test_search import search
from textual.widgets import Label

from refind_desktop.ingest.remote import RemoteStore
from refind_desktop.ingest.remote_spec import parse_remote
from refind_desktop.ingest.remote_store import HostStatus
from refind_desktop.tui.screens import TranscriptScreen
from refind_desktop.tui.widgets import ResultList, StatusBar


class TestHosts:
    async def test_hits_transcript_and_status_bar_name_the_machine(self, make_app, archive: Archive):
        store = RemoteStore(archive.data)
        for url in (
            "ssh://dana@buildbox:2222/~/.claude/projects",
            "ssh://ci@cloud-vm/home/ci/.claude/projects",
        ):
            store.add(parse_remote(url))
        store.set_status(HostStatus("dana@buildbox:2222", True, "2026-01-02T03:04:05+00:00"))
        store.set_status(
            HostStatus("ci@cloud-vm", False, "2026-01-02T03:04:06+00:00", "connection timed out")
        )
        app = make_app(folder=archive.local)
        async with app.run_test(size=(140, 40)) as pilot:
            bar = app.query_one(StatusBar)
            await wait_for(
                pilot, lambda: bar.indexing is None and bar.stats.sessions == 3 and bar.stats.hosts
            )
            hosts = bar.query_one("#status-hosts", Label)
            assert str(hosts.render()) == "hosts: ci@cloud-vm FAILED · dana@buildbox:2222 ok"
            assert hosts.has_class("-failed") and hosts.display
            pane = await search(pilot, "flaky sensor")
            assert [b.host for b in pane.last.blocks] == ["dana@buildbox:2222"]
            head = pane.query_one(ResultList).children[0].query(".hit-head").first().content
            assert head.plain.endswith("turn 0  on dana@buildbox:2222")
            pane.query_one(ResultList).focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TranscriptScreen) and app.screen.loaded)
            meta = str(app.screen.query_one("#transcript-meta", Label).render())
            assert meta.startswith("1 turns · on dana@buildbox:2222 · ")

    async def test_no_other_machine_no_hosts_in_the_bar(self, make_app):
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            bar = app.query_one(StatusBar)
            await wait_for(pilot, lambda: bar.indexing is None and bar.stats.sessions > 0)
            hosts = bar.query_one("#status-hosts", Label)
            assert hosts.has_class("-none") and not hosts.display
