"""Greedy grammar-constrained sampling the way llama.cpp's own sampler does it: the best token is checked
against the grammar first, and the whole vocabulary is constrained only when the grammar rejects it.

llama-cpp-python applies the grammar to every token of the vocabulary at every step (151,936 for Qwen
2.5), which made JSON replies generate about a third slower than free text (measured on this machine
with the 1.5B model: 17.9 against 27 tokens/s). llama.cpp's common sampler checks the chosen token
first and resamples under the grammar only when it is rejected; for greedy decoding that picks the
same token every time (the best allowed token is the best token whenever the best token is allowed),
so the output is unchanged.

The same chain can record, at each step, the likeliest tokens and their log-probabilities over the whole
vocabulary (`record`): llama-cpp-python gives log-probabilities only with `logits_all`, which keeps a
row of logits for every prompt token (n_ctx × 151,936 floats).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any


class GrammarFirst:
    """Installs itself on one `llama_cpp.Llama`: greedy, grammar-constrained generations get the fast
    chain; every other generation keeps llama-cpp-python's own sampler. Counts how often the first
    check held (`fast`) and how often the whole vocabulary had to be constrained (`full`)."""

    def __init__(self, llm: Any, llama_cpp: Any) -> None:
        self.llm = llm
        self.lib = llama_cpp
        self.fast = 0
        self.full = 0
        self.record: int = 0
        """Alternatives to record at each step of the next generations (0: none)."""
        self.steps: list[tuple[int, list[tuple[int, float]]]] = []
        """Recorded steps: the chosen token and the likeliest tokens with their log-probabilities."""
        self._original = llm._init_sampler
        llm._init_sampler = self._init_sampler

    def _init_sampler(self, **kw: Any) -> Any:
        grammar = kw.get("grammar")
        if grammar is None or kw.get("temp") != 0.0 or kw.get("logits_processor") is not None:
            return self._original(**kw)
        return self._chain(grammar, kw)

    def _chain(self, grammar: Any, kw: dict) -> Any:
        import numpy as np
        from llama_cpp import _internals

        token_data = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)])
        llm, lib = self.llm, self.lib
        sampler = _internals.LlamaSampler()
        sampler.add_penalties(
            n_vocab=llm._n_vocab,
            penalty_last_n=llm.last_n_tokens_size,
            penalty_repeat=kw.get("repeat_penalty", 1.0),
            penalty_freq=kw.get("frequency_penalty", 0.0),
            penalty_present=kw.get("presence_penalty", 0.0),
        )
        one = (lib.llama_token_data * 1)()
        probe = lib.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
        grammar_at: dict[str, Any] = {}

        def check_best_first(cur_p: Any) -> None:
            arr = cur_p.contents
            n = int(arr.size)
            buf = (lib.llama_token_data * n).from_address(ctypes.addressof(arr.data.contents))
            view = np.frombuffer(buf, dtype=token_data, count=n)
            best = int(np.argmax(view["logit"]))
            if self.record:
                self.steps.append((-1, likeliest(view["logit"], view["id"], self.record)))
            token, logit = int(view["id"][best]), float(view["logit"][best])
            one[0].id, one[0].logit, one[0].p = token, logit, 0.0
            probe.size, probe.selected, probe.sorted = 1, -1, False
            lib.llama_sampler_apply(grammar_at["sampler"], ctypes.byref(probe))
            if math.isinf(one[0].logit):  # rejected: the grammar sampler next constrains every token
                self.full += 1
                return
            self.fast += 1
            buf[0].id, buf[0].logit, buf[0].p = token, logit, 0.0
            arr.size = 1

        sampler.add_custom(check_best_first)
        sampler.add_grammar(llm._model, grammar)
        grammar_at["sampler"] = lib.llama_sampler_chain_get(sampler.sampler, 2)
        sampler.add_greedy()
        if self.record:

            def note_choice(cur_p: Any) -> None:
                arr = cur_p.contents
                if self.steps and self.steps[-1][0] == -1 and arr.selected >= 0:
                    chosen = int(arr.data[arr.selected].id)
                    self.steps[-1] = (chosen, self.steps[-1][1])

            sampler.add_custom(note_choice)
        return sampler


def likeliest(logits: Any, ids: Any, k: int) -> list[tuple[int, float]]:
    """The `k` likeliest token ids with their log-probabilities under a softmax over `logits`."""
    import numpy as np

    top = np.argpartition(logits, -k)[-k:]
    peak = float(logits.max())
    norm = peak + math.log(float(np.exp(logits - peak).sum()))
    ranked = sorted(top, key=lambda i: -float(logits[i]))
    return [(int(ids[i]), float(logits[i]) - norm) for i in ranked]
