"""A messenger chat put back together from its conversations, for reader tests that check the whole chat."""

from __future__ import annotations

from refind_desktop.ingest.conversations import conversation_id
from refind_desktop.types import Session


def whole_chat(conversations: list[Session]) -> Session:
    """The chat the conversations were cut from: id and title of the chat, every turn in order.

    Checks what every reader promises: one chat id, conversation ids made of it and the first turn's
    time, turns numbered from 0 in each conversation.
    """
    assert conversations, "the reader yielded no conversation"
    chat = conversations[0].chat_id
    assert chat and all(c.chat_id == chat for c in conversations)
    assert len({c.chat_title for c in conversations}) == 1
    for c in conversations:
        assert c.session_id == conversation_id(chat, c.started_at)
        assert [t.index for t in c.turns] == list(range(len(c.turns)))
    turns = [t for c in conversations for t in c.turns]
    return Session(
        session_id=chat,
        title=conversations[0].chat_title,
        started_at=conversations[0].started_at,
        participants=list(dict.fromkeys(p for c in conversations for p in c.participants)),
        turns=turns,
    )


def chats(sessions: list[Session]) -> list[Session]:
    """`whole_chat` of each chat among `sessions`, in the order the chats first appear."""
    order = list(dict.fromkeys(s.chat_id for s in sessions))
    return [whole_chat([s for s in sessions if s.chat_id == c]) for c in order]
