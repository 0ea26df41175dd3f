"""Transcript ids in the catalog: which sessions of a tool hold which turn ids, so a replayed turn is kept once.

A resumed Claude Code session (`claude --resume`) is a new file, with a new session id, that first
replays the turns of the session it resumes (same `uuid`s and times) and then goes on; a forked
Codex session replays its parent the same way. The table `transcript_ids` lists, per tool, every
turn id each session's transcript holds: `pos` is the turn's position in the session as indexed,
or -1 when the turn is kept in another session (a replay). Mixed into `Catalog`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime

MIGRATION = (
    "004_transcript_ids",
    """
    ALTER TABLE sessions ADD COLUMN continues TEXT;
    CREATE TABLE transcript_ids(tool TEXT NOT NULL, turn_id TEXT NOT NULL, sid TEXT NOT NULL,
                                source TEXT NOT NULL, pos INTEGER NOT NULL, ts REAL,
                                PRIMARY KEY(tool, turn_id, sid, source));
    CREATE INDEX transcript_ids_sid ON transcript_ids(sid, source);
    CREATE INDEX transcript_ids_source ON transcript_ids(source);
    """,
)

Rank = tuple[float, int, str]
"""Which of two transcripts holding the same turn came first: the one that ends first (a resumed or
forked copy goes on after the turns it replays), then the shorter, then the smaller session id."""

NO_TIME = float("inf")


def rank(ended: datetime | None, span: int, sid: str) -> Rank:
    """The rank of a transcript that ends at `ended` and holds `span` turn ids."""
    return (ended.timestamp() if ended is not None else NO_TIME, span, sid)


class TranscriptIds:
    """The `transcript_ids` half of the catalog (needs `self.db`)."""

    db: sqlite3.Connection

    def holders(self, tool: str, turn_ids: list[str], other_than: str) -> dict[str, list[tuple[str, int]]]:
        """turn id -> [(session id, pos)] of the other sessions of `tool` whose transcript holds it."""
        out: dict[str, list[tuple[str, int]]] = {}
        for i in range(0, len(turn_ids), 500):
            chunk = turn_ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT turn_id, sid, MAX(pos) FROM transcript_ids WHERE tool=? AND turn_id IN ({marks}) "
                "AND sid != ? GROUP BY turn_id, sid",
                [tool, *chunk, other_than],
            )
            for tid, sid, pos in rows:
                out.setdefault(tid, []).append((sid, pos))
        return out

    def ranks(self, sids: Iterable[str]) -> dict[str, Rank]:
        """The rank of each session's transcript, as recorded."""
        out: dict[str, Rank] = {}
        sids = sorted(set(sids))
        for i in range(0, len(sids), 500):
            chunk = sids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for sid, ended, span in self.db.execute(
                f"SELECT sid, MAX(ts), COUNT(DISTINCT turn_id) FROM transcript_ids WHERE sid IN ({marks}) "
                "GROUP BY sid",
                chunk,
            ):
                out[sid] = (ended if ended is not None else NO_TIME, span, sid)
        return out

    def put_transcript(
        self, tool: str, sid: str, source: str, rows: list[tuple[str, int, datetime | None]]
    ) -> None:
        """Record the turn ids (turn id, pos, time) one source holds for one session, replacing its old rows."""
        self.db.execute("DELETE FROM transcript_ids WHERE sid=? AND source=?", (sid, source))
        self.db.executemany(
            "INSERT OR REPLACE INTO transcript_ids VALUES (?,?,?,?,?,?)",
            [(tool, tid, sid, source, pos, ts.timestamp() if ts else None) for tid, pos, ts in rows],
        )

    def drop_transcripts(self, source: str, keep: Iterable[str] = ()) -> None:
        """Forget the turn ids a source holds, but for the sessions in `keep`."""
        keep = set(keep)
        for (sid,) in self.db.execute(
            "SELECT DISTINCT sid FROM transcript_ids WHERE source=?", (source,)
        ).fetchall():
            if sid not in keep:
                self.db.execute("DELETE FROM transcript_ids WHERE sid=? AND source=?", (sid, source))

    def positions(self, sid: str) -> dict[int, str]:
        """pos -> turn id of a session's own (indexed) turns."""
        rows = self.db.execute("SELECT pos, turn_id FROM transcript_ids WHERE sid=? AND pos >= 0", (sid,))
        return {pos: tid for pos, tid in rows}

    def replay_sources(self, sids: list[str]) -> list[str]:
        """Files whose sessions replay turns these sessions hold (they hold those turns too)."""
        out: set[str] = set()
        for i in range(0, len(sids), 500):
            chunk = sids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                "SELECT DISTINCT b.source FROM transcript_ids a JOIN transcript_ids b "
                "ON a.tool = b.tool AND a.turn_id = b.turn_id AND b.sid != a.sid "
                f"WHERE a.sid IN ({marks}) AND a.pos >= 0",
                chunk,
            )
            out |= {r[0] for r in rows}
        return sorted(out)

    def session_source(self, sid: str) -> str | None:
        """The source of a session's own turns (None when it holds none)."""
        row = self.db.execute(
            "SELECT source FROM transcript_ids WHERE sid=? AND pos >= 0 LIMIT 1", (sid,)
        ).fetchone()
        return row[0] if row else None
