"""Sessions rebuilt from what the archive holds: stored turns plus the catalog's session row.

The index stores every turn's text, speaker and time, and the catalog the session's title, date,
participants, chat and turn ids, so a session whose file is gone can be applied again through the normal
ingest path (a resumed session losing replayed turns, a reindex) without its file.
"""

from __future__ import annotations

from ..index.catalog import SessionRecord
from ..types import Session, Turn, TurnView


def stored_session(
    rec: SessionRecord, turns: list[TurnView], participants: list[str], turn_ids: dict[int, str]
) -> Session:
    """A `Session` equal to what was indexed for `rec` (turns in stored order, renumbered from 0)."""
    ordered = sorted(turns, key=lambda v: v.turn)
    return Session(
        session_id=rec.sid,
        title=rec.title,
        started_at=rec.started_at,
        participants=list(participants),
        turns=[
            Turn(
                index=i,
                text=v.text,
                speaker=v.speaker,
                timestamp=v.timestamp,
                turn_id=turn_ids.get(v.turn, ""),
            )
            for i, v in enumerate(ordered)
        ],
        chat_id=rec.chat,
        chat_title=rec.chat_title,
        continues=rec.continues,
    )
