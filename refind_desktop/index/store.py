"""TurnIndex: the tantivy index on disk, one document per turn, with typed read and write helpers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import tantivy

from ..errors import IndexLockedError, IndexSchemaError
from ..types import Turn, TurnView
from .schema import ANALYZER, SCHEMA_VERSION, analyzer, build_schema

META_FILE = "refind_schema.json"
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def turn_key(session_id: str, turn: int) -> str:
    """Unique key of a turn document (used to make appends idempotent)."""
    return f"{session_id}#{turn}"


def clean_query(keywords: str) -> str:
    """Reduce free text to plain lower-case words so no query-language syntax is ever parsed."""
    return " ".join(_NON_WORD.sub(" ", keywords.lower()).split())


class TurnWriter:
    """Batch of index changes, committed atomically by `TurnIndex.writer()`."""

    def __init__(self, index: TurnIndex, writer: tantivy.IndexWriter) -> None:
        self._index = index
        self._w = writer
        self.added = 0

    def add_turns(self, session_id: str, source: str, sord: int, turns: Iterable[Turn]) -> int:
        """Add turns of one session; returns how many were added."""
        n = 0
        for t in turns:
            doc = tantivy.Document()
            doc.add_text("key", turn_key(session_id, t.index))
            doc.add_text("session", session_id)
            doc.add_text("source", source)
            doc.add_unsigned("sord", sord)
            doc.add_unsigned("turn", t.index)
            doc.add_text("text", t.text)
            doc.add_text("speaker", t.speaker or "")
            if t.timestamp is not None:
                doc.add_date("ts", t.timestamp.astimezone(timezone.utc).replace(tzinfo=None))
            self._w.add_document(doc)
            n += 1
        self.added += n
        return n

    def commit(self) -> None:
        """Make everything written so far durable and visible."""
        self._w.commit()

    def rollback(self) -> None:
        """Discard changes since the last commit."""
        self._w.rollback()

    def delete_session(self, session_id: str) -> None:
        """Remove every turn of a session."""
        self._w.delete_documents_by_term("session", session_id)

    def delete_turn(self, session_id: str, turn: int) -> None:
        """Remove one turn (before re-adding it)."""
        self._w.delete_documents_by_term("key", turn_key(session_id, turn))

    def delete_source(self, source: str) -> None:
        """Remove every turn that came from one source file."""
        self._w.delete_documents_by_term("source", source)


class TurnIndex:
    """The on-disk turn index. Readers reload to see other processes' commits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        meta = path / META_FILE
        if meta.exists():
            try:
                version = json.loads(meta.read_text()).get("schema_version")
            except (ValueError, OSError):
                version = None
            if version != SCHEMA_VERSION:
                raise IndexSchemaError(
                    f"the index at {path} has schema version {version}, this program needs "
                    f"{SCHEMA_VERSION}; run `refind reindex` to rebuild it from your chat files"
                )
        elif any(path.iterdir()):
            raise IndexSchemaError(
                f"{path} holds files that are not a refind index; run `refind reindex` to rebuild it"
            )
        self.schema = build_schema()
        self._index = tantivy.Index(self.schema, path=str(path), reuse=True)
        self._index.register_tokenizer(ANALYZER, analyzer())
        if not meta.exists():
            meta.write_text(json.dumps({"schema_version": SCHEMA_VERSION}))

    # -- writing -------------------------------------------------------------
    @contextmanager
    def writer(self, heap: int = 128_000_000, threads: int = 0) -> Iterator[TurnWriter]:
        """Open the single tantivy writer; commit on success, roll back on error."""
        try:
            w = self._index.writer(heap, threads) if threads else self._index.writer(heap)
        except ValueError as exc:
            if "lock" in str(exc).lower():
                raise IndexLockedError(
                    f"another refind process is writing to {self.path}; wait for it or stop it"
                ) from exc
            raise
        tw = TurnWriter(self, w)
        try:
            yield tw
        except BaseException:
            w.rollback()
            raise
        else:
            w.commit()
        finally:
            w.wait_merging_threads()
        self._index.reload()

    # -- reading -------------------------------------------------------------
    def reload(self) -> None:
        """Pick up commits made by this or another process."""
        self._index.reload()

    def searcher(self) -> tantivy.Searcher:
        """A point-in-time searcher (internal to index/ and search/)."""
        return self._index.searcher()

    @property
    def raw(self) -> tantivy.Index:
        """The tantivy index (internal to index/ and search/)."""
        return self._index

    def num_turns(self) -> int:
        """Number of live turn documents."""
        return self.searcher().num_docs

    def text_query(self, keywords: str) -> tantivy.Query | None:
        """BM25 query over turn text; None when no searchable term remains."""
        text = clean_query(keywords)
        if not text:
            return None
        try:
            return self._index.parse_query(text, ["text"])
        except ValueError:  # every word was a stop-word
            return None

    def session_turns(self, sord: int, lo: int = 0, hi: int | None = None) -> list[TurnView]:
        """Turns lo..hi (inclusive) of a session, in order."""
        q = Query_and(
            tantivy.Query.term_query(self.schema, "sord", sord),
            tantivy.Query.range_query(self.schema, "turn", tantivy.FieldType.Unsigned, lo, hi),
        )
        searcher = self.searcher()
        limit = (hi - lo + 1) if hi is not None else max(searcher.num_docs, 1)
        res = searcher.search(q, limit=max(limit, 1), count=False, order_by_field="turn",
                              order=tantivy.Order.Asc)
        return [to_view(searcher.doc(addr)) for _, addr in res.hits]


def Query_and(*queries: tantivy.Query) -> tantivy.Query:  # noqa: N802 - reads like a constructor
    """Conjunction of queries."""
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in queries])


def to_view(doc: tantivy.Document) -> TurnView:
    """Convert a stored tantivy document to the project's TurnView."""
    d = doc.to_dict()
    ts = d.get("ts")
    stamp: datetime | None = None
    if ts:
        stamp = ts[0]
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=timezone.utc)
    return TurnView(
        session_id=d["session"][0],
        turn=int(d["turn"][0]),
        speaker=(d.get("speaker") or [""])[0],
        timestamp=stamp,
        text=d["text"][0],
    )
