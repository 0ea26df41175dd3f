"""Plain data types that cross module boundaries: sessions, turns, search hits and blocks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(slots=True)
class Turn:
    """One turn: a user message with the assistant reply, or one multi-party message.

    `text` is the verbatim content (for assistant-style sources the user and assistant parts
    joined with role labels). `timestamp` is timezone-aware UTC or None when unknown.
    """

    index: int
    text: str
    speaker: str = ""
    timestamp: datetime | None = None
    turn_id: str = ""


@dataclass(slots=True)
class Session:
    """One conversation as parsed from a source file."""

    session_id: str
    title: str = ""
    started_at: datetime | None = None
    participants: list[str] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    chat_id: str = ""
    """The chat this conversation belongs to (a messenger chat cut into conversations); "" for a
    session that stands alone."""
    chat_title: str = ""
    """The chat's name (the conversation's `title` adds its date)."""
    continues: str = ""
    """Id of the session this one continues (a resumed or forked transcript), when known."""


@dataclass(frozen=True, slots=True)
class TurnView:
    """A stored turn as read back from the index."""

    session_id: str
    turn: int
    speaker: str
    timestamp: datetime | None
    text: str


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """Catalog row of an indexed session."""

    session_id: str
    title: str
    source: str
    format: str
    started_at: datetime | None
    turns: int
    chat_id: str = ""
    """The chat this session is a conversation of ("" for a session that stands alone)."""
    chat_title: str = ""
    continues: str = ""
    """Id of the session this one continues (a resumed or forked transcript), or ""."""


@dataclass(frozen=True, slots=True)
class Block:
    """One search result: a hit turn with its merged context window inside one session."""

    rank: int
    session_id: str
    session_title: str
    session_date: datetime | None
    turn: int
    score: float
    hit_turns: tuple[int, ...]
    turns: tuple[TurnView, ...]
    chat_id: str = ""
    """The chat the session is a conversation of ("" for a session that stands alone)."""
    chat_title: str = ""
    host: str = ""
    """The machine the session was pulled from (`USER@HOST[:PORT]`), "" for this machine's own."""

    @property
    def date(self) -> datetime | None:
        """When the hit turn was written: its own time, else the session's."""
        own = next((t.timestamp for t in self.turns if t.turn == self.turn), None)
        return own or self.session_date
