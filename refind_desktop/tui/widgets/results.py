"""ResultList: search hits as highlighted snippets (with the machine a hit came from); selecting one posts
`HitSelected`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import ListItem, ListView, Static

from ...terminal import printable
from ...types import Block
from .text import day, highlight, snippet


class HitItem(ListItem):
    """One search result: session, date, speaker and the hit turn's snippet."""

    def __init__(self, block: Block, keywords: str, tz: tzinfo | None = None) -> None:
        hit = next((t for t in block.turns if t.turn == block.turn), block.turns[0])
        head = Text.assemble(
            (f"{block.rank}. ", "bold"),
            (printable(block.session_title or block.session_id, one_line=True), "bold"),
            (
                f"  {day(block.date.astimezone(tz) if block.date else None)}  turn {block.turn}",
                "dim",
            ),
            (f"  on {printable(block.host, one_line=True)}" if block.host else "", "dim"),
        )
        body = Text.assemble(
            (printable(f"{hit.speaker}: ", one_line=True) if hit.speaker else "", "italic"),
            highlight(snippet(hit.text, keywords), keywords),
        )
        super().__init__(Static(head, classes="hit-head"), Static(body, classes="hit-body"))
        self.block = block


class ResultList(ListView):
    """The parent sets `results` (keywords, blocks); it renders them."""

    @dataclass
    class HitSelected(Message):
        """The user opened a search hit."""

        session_id: str
        turn: int

    results: reactive[tuple[str, tuple[Block, ...]]] = reactive(("", ()), init=False)

    def __init__(self, tz: tzinfo | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tz = tz

    def watch_results(self, value: tuple[str, tuple[Block, ...]]) -> None:
        keywords, blocks = value
        self.clear()
        self.extend(HitItem(b, keywords, self.tz) for b in blocks)
        self.index = 0 if blocks else None

    def on_list_view_selected(self, event: ListView.Selected) -> None:
        event.stop()
        if isinstance(event.item, HitItem):
            self.post_message(self.HitSelected(event.item.block.session_id, event.item.block.turn))
