"""Greedy grammar-constrained sampling the way llama.cpp's own sampler does it: the best token is checked
against the grammar first, and the whole vocabulary is constrained only when the grammar rejects it.

llama-cpp-python applies the grammar to every token of the vocabulary at every step (151,936 for Qwen
2.5), which made JSON replies generate about a third slower than free text (measured on this machine
with the 1.5B model: 17.9 against 27 tokens/s). llama.cpp's common sampler checks the chosen token
first and resamples under the grammar only when it is rejected; for greedy decoding that picks the
same token every time (the best allowed token is the best token whenever the best token is allowed),
so the output is unchanged.
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
        return sampler
