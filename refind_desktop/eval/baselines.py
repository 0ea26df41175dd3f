"""References the answer stage is measured against in the same run (`refind eval qa --mode NAME`).

- `one-search+1call`: one model-written search, then ONE answer call over what it found;
- `refind+1call`: the ReFind search loop, then ONE answer call over its notes (the answer stage before
  the per-passage reading);
- `oracle`: the product's answer stage given the gold evidence (the benchmark's answer turns, or the
  gold answer sessions), which bounds what reading can do with this model.

None of them is a product mode: they need nothing but a question's gold labels (`QuestionServices.gold`)
and exist to be compared with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..agent import Agent, AgentConfig
from ..agent.answer import Answer, deliver, evidence_notes, not_found
from ..agent.events import Note
from ..agent.evidence import passages
from ..agent.reading import excerpt
from ..agent.render import neutralise
from ..agent.run import Run

CONTEXT_CHARS = 7000
"""Characters of passages the one answer call reads (about 2,000 tokens: the old answer stage's budget)."""
ORACLE_WINDOW = 2
"""Turns of context on each side of a gold evidence turn."""


def one_call_prompt(run: Run, text: str) -> str:
    """The one answer call: the question, the passages inside the data section, the task."""
    return (
        f"Question: {neutralise(run.asked.text, 600, one_line=True)}\n\n"
        f"Excerpts of the person's chats:\n<<<DATA\n{text}\nDATA>>>\n\n"
        "Answer the question from these excerpts only, in a few words, and give the label of the excerpt "
        "turn that says it. If they do not say it, found is false.\n"
        'Reply as JSON: {"found": true or false, "answer": "...", "turn": "S1 T4"}.'
    )


def one_call(run: Run) -> Answer:
    """One answer call over the notes' passages (as many as fit `CONTEXT_CHARS`)."""
    q = run.asked
    evidence = passages(evidence_notes(run), q.subject, first_search_first=not q.aggregates)
    if not evidence:
        return not_found(run, q.pack.say("no_notes"))
    chunks, labels, used = [], [], 0
    for p in evidence:
        tag = run.tags.session(p.session_id)
        body = excerpt(p, run.tz).replace("[T", f"[{tag} T")
        if used and used + len(body) > CONTEXT_CHARS:
            break
        chunks.append(body)
        labels += [run.tags.label(*ln.ref) for ln in p.lines]
        used += len(body)
    schema = {
        "type": "object",
        "properties": {
            "found": {"type": "boolean"},
            "answer": {"type": "string", "maxLength": 200},
            "turn": {"type": "string", "enum": [*labels, "none"]},
        },
        "required": ["found", "answer", "turn"],
        "additionalProperties": False,
    }
    data = run.ask("answer", one_call_prompt(run, "\n\n".join(chunks)), schema, 120, usage_stage="answer")
    text = " ".join(str((data or {}).get("answer") or "").split())
    if not data or not data.get("found") or not text:
        return not_found(run, q.pack.say("not_found", read=len(chunks)))
    ref = run.tags.lookup(str(data.get("turn"))) if data.get("turn") != "none" else None
    cites = [ref] if ref else []
    shown = neutralise(text, 200, one_line=True) + (f" {run.tags.tag(*ref)}" if ref else "")
    return deliver(run, Answer(shown, cites, draft=shown))


class OracleAgent(Agent):
    """The agent whose notes are the gold evidence: no search, the product's answer stage."""

    def __init__(self, *args: Any, gold: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gold = gold

    def _loop(self, run: Run) -> None:
        refs = list(getattr(self.gold, "evidence_refs", []) or [])
        if not refs:  # no answer-turn labels: the first turn of each gold answer session
            refs = [(sid, 0) for sid in getattr(self.gold, "answer_sessions", [])]
        blocks = self.engine.blocks_at(refs, ORACLE_WINDOW)
        run.notes.extend(Note(b, 1, "judged") for b in blocks)
        run.first_blocks = list(blocks)


def _runner(stage1: str | None) -> Callable[..., Any]:
    def run(svc, backend, mode, question, now, on_event):
        config = AgentConfig.from_settings(svc.settings)
        if stage1 is None:
            agent: Agent = OracleAgent(
                svc.engine,
                backend,
                options=svc.search_options(),
                config=config,
                gold=getattr(svc, "gold", None),
            )
        else:
            agent = Agent(
                svc.engine, backend, mode=stage1, options=svc.search_options(), config=config, answer=one_call
            )
        result = agent.run(question, now=now, on_event=on_event)
        result.mode = mode
        return result

    return run


RUNNERS = {
    "one-search+1call": _runner("one-search"),
    "refind+1call": _runner("refind"),
    "oracle": _runner(None),
}
"""Baseline name -> the eval harness's runner(svc, backend, mode, question, now, on_event)."""
