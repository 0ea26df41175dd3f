"""How calls decoded together are grouped (no model): the prompts' shared start, groups that fit the
batch context's sequences and cells, and the tokens guessed to come next."""

from __future__ import annotations

from refind_desktop.llm.llama_batch import RUN, SEQUENCES, Lookup, Request, common_start, shared_prefix, waves


def req(tokens: list[int], room: int = 10) -> Request:
    return Request(tokens, grammar=None, stop=[], max_tokens=room)


def test_the_shared_start_leaves_each_prompt_a_token_of_its_own():
    assert shared_prefix([[1, 2, 3, 4], [1, 2, 5, 6]]) == 2
    assert shared_prefix([[1, 2, 3], [1, 2, 3]]) == 2  # the same prompt twice: its last token is its own
    assert shared_prefix([[7], [8]]) == 0
    assert common_start([1, 2, 3], [1, 2, 4, 5]) == 2 and common_start([], [1]) == 0


def test_groups_hold_at_most_the_contexts_sequences_and_fit_its_cells():
    many = [req([1, 2, 3, i]) for i in range(SEQUENCES + 3)]
    groups = waves(many, n_ctx=4096)
    assert [len(g) for g in groups] == [SEQUENCES, 3]
    assert sorted(i for g in groups for i in g) == list(range(len(many)))
    # 100 shared tokens, then 50 of each prompt's own and 100 of reply: three fit in 600 cells, not four
    big = [req(list(range(100)) + [1000 + i] * 50, room=100) for i in range(5)]
    assert [len(g) for g in waves(big, n_ctx=600)] == [3, 2]
    assert waves([req([1] * 900, room=200)], n_ctx=600) == [[0]]  # alone, whatever its size


def test_the_guess_is_what_followed_the_last_tokens_where_they_last_appeared():
    # a reading copies "bought a blue bike" from its excerpt: once it has written "bought a blue", the
    # rest of the excerpt's words are guessed to follow
    excerpt = [10, 11, 12, 13, 14, 15, 16]  # ... bought a blue bike on Sunday .
    reply = Lookup(excerpt + [90, 91, 11, 12])  # the reply so far: '{"words": "' then "bought a"
    assert reply.guess(13, most=3) == [14, 15, 16]  # its next token "blue": then "bike on Sunday"
    assert reply.guess(13, most=1) == [14] and reply.guess(13, most=0) == []
    assert reply.guess(99, most=3) == []  # never seen before: no guess


def test_the_latest_place_wins_and_the_reply_itself_is_looked_up():
    # the second item of a list has the keys of the first: the reply's own tokens are guessed from
    seq = Lookup([1, 2, 3, 4, 5])
    for tok in (1, 2, 3, 7, 8, 1, 2):  # the reply writes 1 2 3 7 8, then 1 2 again
        seq.add(tok)
    assert seq.guess(3, most=2) == [7, 8]  # after the reply's own "1 2 3", not the prompt's
    assert len(seq.tokens) == 12


def test_fewer_tokens_than_a_run_give_no_guess():
    assert Lookup([]).guess(1, most=4) == []
    assert Lookup([5] * (RUN - 2)).guess(5, most=4) == []
