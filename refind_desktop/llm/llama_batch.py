"""Several greedy, grammar-constrained calls decoded side by side in one llama.cpp context, one sequence
each: the prompts' shared prefix is evaluated once and copied, and every step decodes the next token of
all the replies still being written in one batch.

One step of a token for each of six sequences costs less than six steps of one token (on a 2-core CPU
228 ms against 6 x 84 ms: `benchmarks/step_cost.py`), so several replies take far less time than one
after another, though more than the longest alone. Each sequence picks its
tokens the way `grammar_first` does (the best token, checked against its grammar first), from the same
prompt tokens and grammar llama-cpp-python's chat handler builds for `Llama.create_chat_completion`.
The arithmetic of a batch is not bit-for-bit that of one sequence alone, so a near tie between two
tokens can go the other way.

Guessed tokens: once one reply is left to write (the others are done), each step also feeds, after its
next token, the tokens that followed its last `RUN` tokens where those last appeared in its prompt or
reply (a reading copies its words from its excerpt; a list repeats its keys), each with its logits. The
model's choice after each is then read in order: a guess it would have written itself is kept, and at
the first it would not, its own choice is taken and the cells of the guesses from there on are dropped.
A step costs more the more tokens it feeds (`benchmarks/step_cost.py`), so guesses go only into the
steps of a lone reply, which cost the most a token. The other replies are done by then, so the guesses
change no other reply's steps, and the lone reply's dropped guesses leave free cells only after its own:
its replies came out the same to the letter as without guesses (`benchmarks/batched_calls.py`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SEQUENCES = 8
"""Sequences one batch context holds (the most calls decoded together)."""
MAX_DRAFT = 4
"""Guessed tokens a step carries at most (only when one reply is left to write)."""
RUN = 3
"""The last tokens a guess is looked up by (fewer guess wrong too often to pay for their place)."""


@dataclass
class Request:
    """One call: its prompt tokens, the grammar its reply must follow, its stop strings, its room."""

    tokens: list[int]
    grammar: Any
    """A `llama_cpp.LlamaGrammar` (its GBNF text and root rule)."""
    stop: list[str]
    max_tokens: int


@dataclass
class Reply:
    """What one call wrote: its tokens and text, why it ended, and the prompt tokens it evaluated."""

    tokens: list[int] = field(default_factory=list)
    text: str = ""
    finish: str = "stop"
    """"stop" (end of the reply or a stop string) or "length" (max_tokens reached)."""
    evaluated: int = 0
    """Prompt tokens this call evaluated (the shared prefix counts for the first call of a batch)."""


@dataclass
class _Seq:
    """One sequence of a wave: its call, its grammar's sampler, the reply so far and what it is fed."""

    request: Request
    grammar: Any
    reply: Reply
    lookup: Lookup
    room: int
    """Tokens its reply may have."""
    position: int
    """The cell its next fed token goes to (the cells from there on hold nothing it keeps)."""
    guesses: list[int] = field(default_factory=list)
    """The guessed tokens fed after its last token, in the cells after it."""


def common_start(a: list[int], b: list[int]) -> int:
    """How many tokens `a` and `b` start with alike."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def shared_prefix(prompts: list[list[int]]) -> int:
    """Tokens every prompt starts with, less one so that each prompt has a token of its own to end on."""
    n = min(common_start(prompts[0], p) for p in prompts)
    return min(n, min(len(p) for p in prompts) - 1) if n else 0


def waves(requests: list[Request], n_ctx: int, size: int = SEQUENCES) -> list[list[int]]:
    """The requests' indices in groups decoded together: at most `size` a group, and all of a group's
    prompts and replies fit in `n_ctx` cells (the shared prefix counted once)."""
    groups: list[list[int]] = []
    for i in range(len(requests)):
        if groups and len(groups[-1]) < size:
            trial = groups[-1] + [i]
            prompts = [requests[j].tokens for j in trial]
            shared = shared_prefix(prompts)
            need = shared + sum(
                len(p) - shared + requests[j].max_tokens for p, j in zip(prompts, trial, strict=True)
            )
            if need <= n_ctx:
                groups[-1] = trial
                continue
        groups.append([i])
    return groups


class Lookup:
    """Where each run of `RUN` tokens last ended in a sequence's prompt and reply, so the tokens that
    followed it there can be guessed to follow it again."""

    def __init__(self, tokens: list[int]) -> None:
        self.tokens: list[int] = []
        self.after: dict[tuple[int, ...], int] = {}
        """A run of tokens -> the position just after its latest place (never the sequence's end)."""
        for tok in tokens:
            self.add(tok)

    def add(self, tok: int) -> None:
        """Append `tok`; the run ending just before it becomes known."""
        toks = self.tokens
        if len(toks) >= RUN:
            self.after[tuple(toks[-RUN:])] = len(toks)
        toks.append(tok)

    def guess(self, last: int, most: int) -> list[int]:
        """Up to `most` tokens to follow the sequence and `last` (its next token, not added yet): those
        after the latest earlier place of its last `RUN` tokens, none when they were not seen before."""
        if most <= 0 or len(self.tokens) < RUN - 1:
            return []
        at = self.after.get((*self.tokens[len(self.tokens) - RUN + 1 :], last))
        return [] if at is None else self.tokens[at : at + most]


class BatchDecoder:
    """A second llama.cpp context of the same model (the first keeps its own cache for single calls),
    with room for `SEQUENCES` sequences in one unified cache; made on first use."""

    def __init__(self, llm: Any, llama_cpp: Any) -> None:
        import numpy as np

        self.llm = llm
        self.lib = llama_cpp
        self.np = np
        self.vocab = llm._model.vocab
        self.n_vocab = int(llm._n_vocab)
        self.n_ctx = int(llm.context_params.n_ctx)
        self.n_batch = int(llm.context_params.n_batch)
        self._ctx: Any = None
        self._batch: Any = None
        self.feeds = 0
        """Feeds so far: one for a wave's shared prefix, one for its prompts' tails, then one a decoding
        step."""
        self.steps = 0
        """Decoding steps so far, in every wave (one feed each): benchmarks and tests count them."""
        self._kept: list[int] = []
        """The tokens whose cells sequence 0 keeps from the last wave (its shared prefix)."""
        self.max_draft = MAX_DRAFT
        """Guessed tokens a lone reply's step carries at most (0: no guesses)."""
        self.guessed = 0
        """Guessed tokens fed so far, and those the model chose itself (kept): benchmarks count them."""
        self.kept = 0
        self._data = np.zeros(self.n_vocab, dtype=[("id", np.intc), ("logit", np.single), ("p", np.single)])
        self._data["id"] = np.arange(self.n_vocab, dtype=np.intc)
        self._one = (llama_cpp.llama_token_data * 1)()

    def close(self) -> None:
        """Free the context and its batch."""
        if self._batch is not None:
            self.lib.llama_batch_free(self._batch)
            self._batch = None
        if self._ctx is not None:
            self.lib.llama_free(self._ctx)
            self._ctx = None

    def _context(self) -> Any:
        if self._ctx is None:
            lib = self.lib
            params = lib.llama_context_params()
            ctypes.memmove(ctypes.byref(params), ctypes.byref(self.llm.context_params), ctypes.sizeof(params))
            params.n_seq_max = SEQUENCES
            params.kv_unified = True
            ctx = lib.llama_init_from_model(self.llm._model.model, params)
            if not ctx:
                raise RuntimeError("llama.cpp could not make a context for batched calls")
            self._ctx = ctx
            self._batch = lib.llama_batch_init(self.n_batch, 0, 1)
            self.llm._stack.callback(self.close)  # freed when the model is, before it
        return self._ctx

    # -- decoding ------------------------------------------------------------------------------------

    def _feed(self, entries: list[tuple[int, int, int, bool]]) -> dict[int, list[Any]]:
        """Decode (token, position, sequence, wants logits) entries in batches of n_batch; the logits of
        each flagged entry, by sequence and in order (copied: the next decode overwrites them)."""
        self.feeds += 1
        lib, ctx, batch = self.lib, self._ctx, self._batch
        out: dict[int, list[Any]] = {}
        for start in range(0, len(entries), self.n_batch):
            chunk = entries[start : start + self.n_batch]
            for k, (tok, pos, seq, wants) in enumerate(chunk):
                batch.token[k] = tok
                batch.pos[k] = pos
                batch.n_seq_id[k] = 1
                batch.seq_id[k][0] = seq
                batch.logits[k] = wants
            batch.n_tokens = len(chunk)
            rc = lib.llama_decode(ctx, batch)
            if rc != 0:
                raise RuntimeError(f"llama_decode returned {rc}")
            for k, (_tok, _pos, seq, wants) in enumerate(chunk):
                if wants:
                    row = lib.llama_get_logits_ith(ctx, k)
                    out.setdefault(seq, []).append(
                        self.np.ctypeslib.as_array(row, shape=(self.n_vocab,)).copy()
                    )
        return out

    def _choose(self, grammar: Any, logits: Any) -> int:
        """The best token the grammar allows: the best of all when it allows that (most steps), else the
        best after the grammar has ruled out every token it does not allow."""
        lib, np = self.lib, self.np
        best = int(np.argmax(logits))
        one = self._one
        one[0].id, one[0].logit, one[0].p = best, float(logits[best]), 0.0
        probe = lib.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
        lib.llama_sampler_apply(grammar, ctypes.byref(probe))
        if one[0].logit != float("-inf"):
            return best
        data = self._data
        data["logit"] = logits
        data["p"] = 0.0
        arr = lib.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(lib.llama_token_data)),
            size=self.n_vocab,
            selected=-1,
            sorted=False,
        )
        lib.llama_sampler_apply(grammar, ctypes.byref(arr))
        return int(np.argmax(data["logit"]))

    def run(self, requests: list[Request], step: Callable[[], None] | None = None) -> list[Reply]:
        """Decode every request (in waves that fit the context); `step` is called before each batch
        (it may raise to stop the work: the context is cleared either way)."""
        replies: list[Reply] = [Reply() for _ in requests]
        for group in waves(requests, self.n_ctx):
            for i, reply in zip(group, self._wave([requests[i] for i in group], step), strict=True):
                replies[i] = reply
        return replies

    def _wave(self, requests: list[Request], step: Callable[[], None] | None) -> list[Reply]:
        lib = self.lib
        ctx = self._context()
        memory = lib.llama_get_memory(ctx)
        vocab = self.vocab
        grammars = [
            lib.llama_sampler_init_grammar(
                vocab, r.grammar._grammar.encode("utf-8"), r.grammar._root.encode("utf-8")
            )
            for r in requests
        ]
        replies = [Reply() for _ in requests]
        try:
            prompts = [r.tokens for r in requests]
            shared = shared_prefix(prompts)
            if step:
                step()
            cached = self._prefix(memory, prompts[0][:shared])
            self._feed([(tok, pos, 0, False) for pos, tok in enumerate(prompts[0][:shared]) if pos >= cached])
            for seq in range(1, len(requests)):
                lib.llama_memory_seq_cp(memory, 0, seq, -1, -1)
            tails = [
                (tok, pos, seq, pos == len(p) - 1)
                for seq, p in enumerate(prompts)
                for pos, tok in enumerate(p)
                if pos >= shared
            ]
            logits = self._feed(tails)
            for seq, p in enumerate(prompts):
                replies[seq].evaluated = len(p) - shared + (shared - cached if seq == 0 else 0)
            seqs = [
                _Seq(
                    r,
                    g,
                    reply,
                    Lookup(r.tokens),
                    min(r.max_tokens, self.n_ctx - len(r.tokens)),
                    len(r.tokens),
                )
                for r, g, reply in zip(requests, grammars, replies, strict=True)
            ]
            active = list(range(len(requests)))
            while active:
                entries = []
                spare = self.max_draft if len(active) == 1 else 0  # see the module docstring
                for seq in list(active):
                    it = seqs[seq]
                    tok = self._next(it, logits[seq], seq, memory)
                    if tok is None:
                        active.remove(seq)
                        continue
                    it.guesses = it.lookup.guess(tok, min(spare, it.room - len(it.reply.tokens)))
                    it.lookup.add(tok)
                    entries.append((tok, it.position, seq, True))
                    entries.extend((g, it.position + 1 + i, seq, True) for i, g in enumerate(it.guesses))
                    it.position += 1
                    self.guessed += len(it.guesses)
                if entries:
                    if step:
                        step()
                    logits = self._feed(entries)
                    self.steps += 1
        except BaseException:
            lib.llama_memory_clear(memory, True)
            self._kept = []
            raise
        else:  # the shared prefix stays in sequence 0 for the next wave; the rest goes
            for seq in range(1, len(requests)):
                lib.llama_memory_seq_rm(memory, seq, -1, -1)
            lib.llama_memory_seq_rm(memory, 0, shared, -1)
            self._kept = prompts[0][:shared]
        finally:
            for g in grammars:
                lib.llama_sampler_free(g)
        return replies

    def _next(self, it: _Seq, rows: list[Any], seq: int, memory: Any) -> int | None:
        """Read the model's choices off `rows` (the logits after the token fed last, then after each of
        its guesses): each guess it chose itself is kept, and its first other choice is the next token to
        feed (returned), the cells of the guesses from there on dropped. None when the reply ended (an
        end token, a stop string or its room)."""
        lib, reply = self.lib, it.reply
        for i, row in enumerate(rows):
            tok = self._choose(it.grammar, row)
            lib.llama_sampler_accept(it.grammar, tok)
            if lib.llama_vocab_is_eog(self.vocab, tok):
                return None
            reply.tokens.append(tok)
            reply.text = self.llm.detokenize(reply.tokens).decode("utf-8", errors="ignore")
            cut = min((at for s in it.request.stop if (at := reply.text.find(s)) >= 0), default=-1)
            if cut >= 0:
                reply.text = reply.text[:cut]
                return None
            if len(reply.tokens) >= it.room:
                reply.finish = "length"
                return None
            if i == len(it.guesses):
                break
            if tok != it.guesses[i]:  # the guesses from this one on are not the reply's: drop their cells
                lib.llama_memory_seq_rm(memory, seq, it.position, -1)
                break
            it.lookup.add(tok)  # already in its cell: the next row follows it
            it.position += 1
            self.kept += 1
        return tok

    def _prefix(self, memory: Any, tokens: list[int]) -> int:
        """Put the longest start of `tokens` already computed in sequence 0 and return its length: this
        context's prefix from its last wave, or the single calls' context's cache (its state copied)."""
        lib, llm = self.lib, self.llm
        own = common_start(self._kept, tokens)
        theirs = common_start(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        if theirs > own:
            lib.llama_memory_clear(memory, True)
            self._kept = []
            main = llm._ctx.ctx
            size = lib.llama_state_seq_get_size(main, 0)
            buf = (ctypes.c_uint8 * size)()
            got = lib.llama_state_seq_get_data(main, buf, size, 0)
            if got and lib.llama_state_seq_set_data(self._ctx, buf, got, 0):
                lib.llama_memory_seq_rm(memory, 0, theirs, -1)
                return theirs
            lib.llama_memory_clear(memory, True)
            return 0
        lib.llama_memory_seq_rm(memory, 0, own, -1)
        return own
