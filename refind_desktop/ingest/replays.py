"""Replayed turns kept once: a resumed or forked agent session contributes only the turns it added.

`claude --resume` writes a new transcript (new session id) that first replays the turns of the
session it resumes, with their `uuid`s and times, then goes on; a forked Codex session replays its
parent's lines the same way, a Qwen Code `/branch` too, and a Pi `/fork` copies its parent's entries
with their ids and times. For the formats whose turn ids name a turn across files (`TOOLS`),
`drop_replayed` removes from a parsed session every turn that another session of the same tool
holds and that came first there (`transcripts.rank`: the transcript that ends first; a replay goes
on after what it replays), links the session to the one it continues, and records its turn ids.
When the new session is the earlier one (its file was read after the replay's), the sessions that
held its turns are listed in `Replay.redo`: the ingestor reads them again and they lose those turns.
The result does not depend on the order the files are read in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..index.catalog import Catalog
from ..index.transcripts import rank
from ..types import Session

TOOLS = {"claude_code": "claude_code", "codex": "codex", "pi": "pi"}
TOOLS["qwen_code"] = "qwen_code"  # `/branch` copies a chat's records, uuids kept, into a new session file
"""Formats whose turn ids are transcript ids (format -> tool); other formats are left alone."""


@dataclass
class Replay:
    """What `drop_replayed` did to one session."""

    dropped: int = 0
    kept: list[int] = field(default_factory=list)
    """Positions (in the parsed session) of the turns it keeps."""
    redo: set[str] = field(default_factory=set)
    """Sessions that hold, as their own, turns this session holds first: they are read again."""


def drop_replayed(s: Session, fmt: str, source: str, catalog: Catalog) -> Replay:
    """Keep in `s` only the turns no earlier session of its tool holds; record its turn ids (uncommitted)."""
    tool = TOOLS.get(fmt)
    out = Replay(kept=list(range(len(s.turns))))
    if tool is None:
        return out
    ids = [t.turn_id for t in s.turns if t.turn_id]
    if not ids:
        return out
    ended = max((t.timestamp for t in s.turns if t.turn_id and t.timestamp), default=None)
    mine = rank(ended, len(set(ids)), s.session_id)
    holders = catalog.holders(tool, ids, other_than=s.session_id)
    ranks = catalog.ranks({sid for hs in holders.values() for sid, _ in hs})
    kept, rows, continues = [], [], ""
    for i, t in enumerate(s.turns):
        held = holders.get(t.turn_id, []) if t.turn_id else []
        owner = min([(mine, s.session_id)] + [(ranks.get(sid, mine), sid) for sid, _ in held])[1]
        out.redo |= {sid for sid, pos in held if pos >= 0 and sid != owner}
        if owner != s.session_id:
            rows.append((t.turn_id, -1, t.timestamp))
            continues = owner
            continue
        if t.turn_id:
            rows.append((t.turn_id, len(kept), t.timestamp))
        kept.append(i)
    out.dropped = len(s.turns) - len(kept)
    out.kept = kept
    if out.dropped:
        s.turns = [s.turns[i] for i in kept]
        for n, t in enumerate(s.turns):
            t.index = n
        s.continues = s.continues or continues
    catalog.put_transcript(tool, s.session_id, source, rows)
    return out
