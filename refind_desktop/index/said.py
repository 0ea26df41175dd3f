"""The person's own words in a turn: the field that lets "what did I say about X" outrank long replies.

An assistant-style turn holds the user's message and the assistant's reply, joined with role labels
(ingest/base.py `join_pair`). The reply is usually longer and repeats the topic's words, so over a
whole archive, turns whose replies talk at length about a topic crowd out the turn where the person
stated the fact they now ask about. The `said` field indexes the user's part again (for multi-party
chats every message is a person's own words: the whole text); turn BM25 then sums over both fields,
as in BM25F with equal weights, each field with its own length normalisation.
"""

from __future__ import annotations

USER_LABEL = "User: "
REPLY_SEPARATOR = "\n\nAssistant: "
ASSISTANT_STYLE = ("user", "user+assistant", "assistant")


def own_words(text: str, speaker: str) -> str:
    """The user's part of an assistant-style turn; the whole text of a multi-party message."""
    if speaker not in ASSISTANT_STYLE:
        return text
    if speaker == "assistant" or not text.startswith(USER_LABEL):
        return ""
    return text[len(USER_LABEL) :].split(REPLY_SEPARATOR, 1)[0]


def person_words(text: str, speaker: str) -> str:
    """`own_words`, or the whole text of a bare user message (a turn with no role labels in it): all of a
    messenger message, the user's part of an assistant chat's turn, nothing of an assistant's."""
    return own_words(text, speaker) or (text if speaker == "user" else "")
