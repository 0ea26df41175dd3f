"""Result-block layout for the terminal: word-boundary snippets, a window near the searched word,
speaker names of group chats, escaped chat text."""

from __future__ import annotations

from refind_desktop.cli.render import block_lines, clip, snippet, speaker_label, turn_lines
from refind_desktop.types import Block, TurnView


def turn(n: int, text: str, speaker: str = "user+assistant") -> TurnView:
    return TurnView("whatsapp:1", n, speaker, None, text)


def test_clip_cuts_at_the_last_space_before_the_limit() -> None:
    assert clip("short text", 40) == "short text"
    assert clip("Assistant: Alfama and Baixa are walkable", 14) == "Assistant:…"
    assert clip("one two three four", 12) == "one two…"
    url = "see https://example.org/" + "a" * 80
    assert clip(url, 40) == url[:40] + "…"  # one long word: cut inside it rather than show nothing


def test_snippet_drops_blank_lines_and_opens_near_the_searched_word() -> None:
    assert snippet("User: hi\n\n\nAssistant: hello  \n", 100) == "User: hi\nAssistant: hello"
    text = (
        " ".join(f"w{i}" for i in range(200))
        + " the Quokka was here "
        + " ".join(f"v{i}" for i in range(200))
    )
    near = snippet(text, 120, ["quokka"])
    assert near.startswith("…w") and "the Quokka was here" in near and near.endswith("…")
    assert len(near) <= 122
    assert snippet(text, 120, ["absent"]) == clip(text, 120)  # no match: the start of the turn
    assert snippet(text, 120, []).startswith("w0 w1")


def test_named_speakers_are_shown_and_assistant_roles_are_not_repeated() -> None:
    assert speaker_label(turn(0, "hi", "Jonas")) == "Jonas: "
    assert speaker_label(turn(0, "User: hi\n\nAssistant: hello", "user+assistant")) == ""
    assert speaker_label(turn(0, "User: hi", "user")) == ""
    assert speaker_label(turn(0, "hi", "")) == ""


def test_turn_lines_indent_continuations_and_escape_controls() -> None:
    lines, cut = turn_lines(turn(7, "first\n\nsecond \x1b[2J", "Ann\nB"), hit=True)
    assert lines == ["  >    7  Ann\\nB: first", "          second \\x1b[2J"]
    assert not cut
    lines, cut = turn_lines(turn(12, "word " * 100), hit=False)
    assert len(lines) == 1 and lines[0].startswith("      12  word word") and lines[0].endswith("word…")
    assert cut


def test_block_lines_header_and_turns() -> None:
    block = Block(
        rank=1,
        session_id="whatsapp:1",
        session_title="Ladder\x07",
        session_date=None,
        turn=1,
        score=0.5,
        hit_turns=(1,),
        turns=(turn(0, "where is it", "Ann"), turn(1, "in the shed", "Bo")),
    )
    lines, cut = block_lines(block)
    assert lines == [
        "[1] Ladder\\x07 (unknown date) turn 1  score 0.5000  id whatsapp:1",
        "       0  Ann: where is it",
        "  >    1  Bo: in the shed",
    ]
    assert not cut
