"""Messenger chats as conversations: the one rule that cuts a chat's timed turns into sessions at quiet gaps.

A WhatsApp, Telegram or Discord chat (or a long SillyTavern role-play file) is months of talks, not
one session. `split_chat` cuts it into conversations: a new conversation starts at a turn that
follows a pause of at least `SplitRule.gap` (4 hours by default) since the previous timed turn.
A pause is what separates two talks: replies within a talk come in minutes, a slow one in an hour or
two, while a morning and an evening talk of the same day lie many hours apart. The calendar day is
the weaker cut: it splits a talk that runs past midnight and merges the morning's talk with the
evening's (`benchmarks/messenger_recall.py --retime dense` scores each rule's cuts against known
sittings). It stays available: `SplitRule.night_gap` also cuts at a shorter pause that crosses
midnight in the user's zone (0: at every new day). Each conversation is a `Session` of its own,
grouped under its chat by `chat_id` / `chat_title`.

The rule is causal: whether a turn opens a conversation depends only on that turn and the turn
before it. So when an export grows, every earlier conversation keeps its turns, and its id, which
is the chat id plus the UTC time of its first turn (`conversation_id`); new messages extend the
last conversation or add new ones. Turns without a time never open a conversation.

The function takes turns, not a reader's raw records, so the same rule applies to turns read back
from the index (`split_stored`), e.g. when an archive is rebuilt from what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo

from ..index.said import ASSISTANT_STYLE
from ..types import Session, Turn

MESSENGER_FORMATS = ("whatsapp", "telegram", "discord", "sillytavern")
"""Readers whose files are chats cut into conversations by this module (Slack keeps its day files)."""

DEFAULT_GAP_HOURS = 4.0


@dataclass(frozen=True)
class SplitRule:
    """Where one conversation of a chat ends and the next begins."""

    gap: timedelta | None = timedelta(hours=DEFAULT_GAP_HOURS)
    """A pause at least this long always starts a new conversation (None: never on the pause alone)."""
    night_gap: timedelta | None = None
    """A pause at least this long that crosses midnight in `tz` starts one too (None, the default: the
    calendar day plays no part; timedelta(0): every new day starts one)."""
    tz: tzinfo = field(default=timezone.utc)
    """The user's zone: where midnight falls, and the date in a conversation's title."""

    @classmethod
    def from_hours(cls, gap_hours: float, night_gap_hours: float, tz: tzinfo) -> SplitRule:
        """From settings: a negative number switches that part of the rule off."""
        return cls(
            gap=timedelta(hours=gap_hours) if gap_hours >= 0 else None,
            night_gap=timedelta(hours=night_gap_hours) if night_gap_hours >= 0 else None,
            tz=tz,
        )

    @classmethod
    def whole(cls) -> SplitRule:
        """A rule that never cuts (one session per chat, the reading before conversations)."""
        return cls(gap=None, night_gap=None)

    def opens(self, prev: datetime, cur: datetime) -> bool:
        """Whether a turn at `cur`, after a timed turn at `prev`, starts a new conversation."""
        pause = cur - prev
        if self.gap is not None and pause >= self.gap:
            return True
        if self.night_gap is not None and pause >= self.night_gap:
            return cur.astimezone(self.tz).date() != prev.astimezone(self.tz).date()
        return False


def starts(turns: list[Turn], rule: SplitRule) -> list[int]:
    """Indices of the turns that open a conversation (always 0 for a non-empty list)."""
    out = [0] if turns else []
    prev: datetime | None = None
    for i, t in enumerate(turns):
        if t.timestamp is None:
            continue
        if prev is not None and i > 0 and rule.opens(prev, t.timestamp):
            out.append(i)
        prev = t.timestamp
    return out


def conversation_id(chat_id: str, first: datetime | None) -> str:
    """`<chat id>:<UTC time of the first turn, basic ISO>`; the chat id alone when no turn has a time."""
    if first is None:
        return chat_id
    return f"{chat_id}:{first.astimezone(timezone.utc):%Y%m%dT%H%M%SZ}"


def split_chat(chat: Session, rule: SplitRule) -> list[Session]:
    """The conversations of a whole chat, in order; each a session under the chat (`chat_id`).

    `chat.session_id` and `chat.title` become each conversation's `chat_id` and `chat_title`; a
    conversation's title is the chat's title with its first day in the user's zone. Turns are
    numbered from 0 in each conversation; a turn without a source id gets `<conversation id>:<n>`.
    """
    cuts = starts(chat.turns, rule) + [len(chat.turns)]
    out: list[Session] = []
    used: set[str] = set()
    for lo, hi in zip(cuts, cuts[1:], strict=False):
        turns = chat.turns[lo:hi]
        first = next((t.timestamp for t in turns if t.timestamp is not None), None)
        if first is None and lo == 0:
            first = chat.started_at
        sid = conversation_id(chat.session_id, first)
        n = 2
        base = sid
        while sid in used:  # a clock that went backwards: keep ids unique, in order
            sid = f"{base}~{n}"
            n += 1
        used.add(sid)
        for i, t in enumerate(turns):
            t.index = i
            if not t.turn_id:
                t.turn_id = f"{sid}:{i}"
        out.append(
            Session(
                session_id=sid,
                title=_title(chat.title, first, rule.tz),
                started_at=first,
                participants=_participants(chat, turns),
                turns=turns,
                chat_id=chat.session_id,
                chat_title=chat.title,
            )
        )
    return out


def split_stored(session: Session, fmt: str, rule: SplitRule) -> list[Session]:
    """A session read back from the index, as conversations: a messenger chat stored whole (by a
    version before conversations) is split; anything else comes back as it is."""
    if fmt not in MESSENGER_FORMATS or session.chat_id:
        return [session]
    return split_chat(session, rule)


def _title(chat_title: str, first: datetime | None, tz: tzinfo) -> str:
    if first is None:
        return chat_title
    day = first.astimezone(tz).date().isoformat()
    return f"{chat_title} ({day})" if chat_title else day


def _participants(chat: Session, turns: list[Turn]) -> list[str]:
    """Who speaks in these turns; the chat's participants for assistant-style (paired) turns."""
    speakers = [t.speaker for t in turns if t.speaker and t.speaker not in ASSISTANT_STYLE]
    if not speakers:
        return list(chat.participants)
    return list(dict.fromkeys(speakers))
