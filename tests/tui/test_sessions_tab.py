"""Pilot test of the Sessions tab: a messenger chat's conversations sit together under their chat."""

from __future__ import annotations

from helpers.tui import wait_for, wait_indexed
from textual.widgets import DataTable, Input

CHAT = [
    "01/09/2025, 09:00 - Ann: Morning, is the sourdough starter alive?",
    "01/09/2025, 09:04 - Bertold: Bubbling away",
    "01/09/2025, 20:00 - Bertold: Bake on Sunday?",
    "05/09/2025, 18:00 - Ann: The loaf came out flat",
]


class TestSessionsTab:
    async def test_a_chats_conversations_are_listed_together_and_filtered_by_chat(self, make_app, chats):
        (chats / "whatsapp" / "WhatsApp Chat with Bertold.txt").write_text("\n".join(CHAT) + "\n")
        app = make_app()
        async with app.run_test(size=(160, 40)) as pilot:
            await wait_indexed(pilot)
            await pilot.press("f4")
            table = app.query_one("#sessions-table", DataTable)
            await wait_for(pilot, lambda: table.row_count > 3)
            chat_column = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
            ours = [i for i, c in enumerate(chat_column) if c == "Bertold"]
            assert len(ours) == 3 and ours == list(range(ours[0], ours[0] + 3))  # together, in one run
            app.query_one("#sessions-filter", Input).value = "bertold"
            await wait_for(pilot, lambda: table.row_count == 3)
            assert [str(table.get_row_at(i)[4]) for i in range(3)] == [
                "Bertold (2025-09-05)",
                "Bertold (2025-09-01)",
                "Bertold (2025-09-01)",
            ]
