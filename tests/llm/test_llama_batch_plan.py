"""How calls decoded together are grouped (no model): the prompts' shared start, and groups that fit the
batch context's sequences and cells."""

from __future__ import annotations

from refind_desktop.llm.llama_batch import SEQUENCES, Request, common_start, shared_prefix, waves


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
