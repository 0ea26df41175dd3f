"""Read stored turns back from an index folder, whatever its schema version (a reindex keeps them).

`TurnIndex` refuses an index of another schema version; a rebuild still has to read the turns of
files that are gone from it. This opens the folder with the schema tantivy stored there and reads
only the stored fields every version has had: session, turn, text, speaker and ts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

import tantivy

from ..types import TurnView
from .store import private_files


def read_sessions(index_dir: Path, sessions: Iterable[str]) -> dict[str, list[TurnView]]:
    """Stored turns of the given sessions (session id -> turns in order); raises when unreadable."""
    sids = sorted(set(sessions))
    out: dict[str, list[TurnView]] = {sid: [] for sid in sids}
    if not sids:
        return out
    with private_files():
        index = tantivy.Index.open(str(index_dir))
    searcher = index.searcher()
    for i in range(0, len(sids), 500):
        query = tantivy.Query.term_set_query(index.schema, "session", sids[i : i + 500])
        hits = searcher.search(query, limit=max(searcher.num_docs, 1), count=False).hits
        for _, addr in hits:
            view = _view(searcher.doc(addr).to_dict())
            if view is not None and view.session_id in out:
                out[view.session_id].append(view)
    for views in out.values():
        views.sort(key=lambda v: v.turn)
    return out


def _view(d: dict) -> TurnView | None:
    try:
        sid, turn, text = d["session"][0], int(d["turn"][0]), d["text"][0]
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    stamp = (d.get("ts") or [None])[0]
    if isinstance(stamp, datetime) and stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    speaker = (d.get("speaker") or [""])[0]
    return TurnView(sid, turn, str(speaker), stamp if isinstance(stamp, datetime) else None, str(text))
