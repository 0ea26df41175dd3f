"""Chat text never reaches the terminal as control sequences or as Rich/Textual markup."""

from __future__ import annotations

import asyncio
import json

from textual.widgets import DataTable
from textual.widgets._data_table import default_cell_formatter

from refind_desktop.services import build_services
from refind_desktop.terminal import printable

from .helpers import chatgpt_export, conversation, refind

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;ZWNobyBoaQ==\x07\x9b31m\r\u202eevil"
MARKUP = "[bold red]loud[/bold red] [link=https://attacker.example]click[/link]"
BAD = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


def test_printable_escapes_every_control_but_keeps_text():
    out = printable("ok\x1b[2J\tnext\nline\x9b\u202e\udc80")
    assert out == "ok\\x1b[2J\tnext\nline\\x9b\\u202e\\x80"
    assert printable("a\nb", one_line=True) == "a\\nb"
    assert printable("plain text, ünïcödé 日本") == "plain text, ünïcödé 日本"


def _hostile_home(tmp_path):
    chats = tmp_path / "chats"
    conv = conversation("c1", f"Title {HOSTILE}", [(f"garlic planting {HOSTILE}", f"deep {HOSTILE}")])
    chatgpt_export(chats / "conversations.json", [conv])
    (chats / f"bad{chr(27)}]0;x{chr(7)}.json").write_text("{not json")
    return chats


def test_cli_outputs_escape_control_sequences(tmp_path, refind_home):
    chats = _hostile_home(tmp_path)
    runs = [refind(refind_home, "ingest", str(chats))]
    sid = json.loads(refind(refind_home, "sessions", "--json").stdout)["sessions"][0]["session_id"]
    runs += [
        refind(refind_home, "search", "garlic"),
        refind(refind_home, "show", sid),
        refind(refind_home, "sessions"),
        refind(refind_home, "stats"),
        refind(refind_home, "search", "garlic", "--json"),
        refind(refind_home, "show", f"nope{HOSTILE}"),
    ]
    for r in runs:
        for ch in BAD:
            assert ch not in r.stdout and ch not in r.stderr, (r.args, repr(ch), r.stdout, r.stderr)
    assert "\\x1b[2J" in runs[1].stdout  # shown, escaped, not dropped silently
    assert "\\u001b" in runs[5].stdout and "\\u009b" in runs[5].stdout  # JSON stays decodable
    assert json.loads(runs[5].stdout)["results"][0]["block"][0]["text"].count("\x1b") == 6


def test_tui_renders_chat_text_as_text_not_markup(tmp_path, refind_home):
    from refind_desktop.tui import RefindApp
    from refind_desktop.tui.screens import SessionsPane, TranscriptScreen

    chats = tmp_path / "chats"
    chatgpt_export(chats / "conversations.json", [conversation("c1", MARKUP, [(f"garlic {MARKUP}", "ok")])])
    svc = build_services()
    svc.ingestor.ingest([chats])
    sid = next(svc.catalog.session_infos()).session_id

    async def run() -> None:
        app = RefindApp(svc, folder=None, backend_factory=lambda *a, **k: None)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("f4")
            table = app.query_one(SessionsPane).query_one(DataTable)
            for _ in range(200):
                if table.row_count:
                    break
                await pilot.pause(0.05)
            cells = [default_cell_formatter(c).plain for c in table.get_row_at(0)]
            assert MARKUP in cells, cells
            app.push_screen(TranscriptScreen(sid))
            for _ in range(200):
                if isinstance(app.screen, TranscriptScreen) and app.screen.loaded:
                    break
                await pilot.pause(0.05)
            title = str(app.screen.query_one("#transcript-title").render())
            assert "[link=https://attacker.example]click[/link]" in title
            body = str(app.screen.query(".turn").first().render())
            assert "[bold red]loud[/bold red]" in body

    try:
        asyncio.run(run())
    finally:
        svc.close()


def test_ask_step_lines_and_streamed_answer_escape_control_sequences(capsys):
    from refind_desktop.agent import AnswerTokenEvent, RetryEvent, SearchEvent
    from refind_desktop.cli.ask import StepPrinter

    show = StepPrinter(stream_answer=True)
    show(SearchEvent(1, [f"garlic{HOSTILE}"], None, None, 5, []))
    show(RetryEvent(1, "judge", f"bad {HOSTILE}", "raw", 1))
    show(AnswerTokenEvent("\x1b]52;c;ZXZpbA=="))
    show(AnswerTokenEvent("\x07 done"))
    out, err = capsys.readouterr()
    for ch in BAD:
        assert ch not in out and ch not in err, repr(ch)
    assert "garlic\\x1b[2J" in err and "\\x1b]52;c;" in out
