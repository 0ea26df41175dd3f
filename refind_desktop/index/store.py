"""TurnIndex: the tantivy index on disk, one document per turn, with typed read and write helpers."""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import tantivy

from ..errors import DiskFullError, IndexDamagedError, IndexLockedError, IndexSchemaError
from ..lang import detect
from ..types import Turn, TurnView
from .cjk import cjk_field_text, cjk_terms
from .integrity import DAMAGED_HINT, check_index
from .journal import JOURNAL_NAME, WriteJournal
from .lock import DEFAULT_WAIT, LOCK_NAME, writer_lock
from .said import ASSISTANT_STYLE, own_words
from .schema import (
    ANALYZER,
    LANGUAGES,
    SCHEMA_VERSION,
    analyzer,
    analyzer_name,
    build_schema,
    said_field,
    text_field,
)

META_FILE = "refind_schema.json"
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_umask_guard = threading.Lock()
_umask_depth = 0
_umask_saved = 0


@contextmanager
def private_files() -> Iterator[None]:
    """Files created in the block (tantivy's segments, locks, meta) are readable by the user only."""
    global _umask_depth, _umask_saved
    with _umask_guard:
        if _umask_depth == 0:
            _umask_saved = os.umask(0o077)
        _umask_depth += 1
    try:
        yield
    finally:
        with _umask_guard:
            _umask_depth -= 1
            if _umask_depth == 0:
                os.umask(_umask_saved)


def turn_key(session_id: str, turn: int) -> str:
    """Unique key of a turn document (used to make appends idempotent)."""
    return f"{session_id}#{turn}"


def clean_query(keywords: str) -> str:
    """Reduce free text to plain lower-case words so no query-language syntax is ever parsed."""
    return " ".join(_NON_WORD.sub(" ", keywords.lower()).split())


LANGUAGE_SAMPLE = 600
"""Characters of a session's text its language is told by (about half a millisecond)."""


def session_language(turns: list[Turn]) -> str | None:
    """The language of a session's turns (from their first `LANGUAGE_SAMPLE` characters), or None."""
    sample, size = [], 0
    for t in turns:
        sample.append(t.text[: LANGUAGE_SAMPLE - size])
        size += len(sample[-1])
        if size >= LANGUAGE_SAMPLE:
            break
    return detect(" ".join(sample)) if sample else None


class TurnWriter:
    """Batch of index changes, committed atomically by `TurnIndex.writer()`."""

    def __init__(self, index: TurnIndex, writer: tantivy.IndexWriter) -> None:
        self._index = index
        self._w = writer
        self.added = 0
        self.pending = False
        """Whether changes await a commit (a writer with none is closed without committing)."""

    def add_turns(self, session_id: str, source: str, sord: int, turns: Iterable[Turn]) -> int:
        """Add turns of one session; returns how many were added. A session written in a language with
        its own fields (`schema.LANGUAGES`, told by `lang.detect` over a sample of these turns) is also
        indexed there, stemmed with its own stemmer."""
        turns = list(turns)
        lang = session_language(turns)
        n = 0
        for t in turns:
            doc = tantivy.Document()
            doc.add_text("key", turn_key(session_id, t.index))
            doc.add_text("session", session_id)
            doc.add_text("source", source)
            doc.add_unsigned("sord", sord)
            doc.add_unsigned("turn", t.index)
            doc.add_text("text", t.text)
            said = own_words(t.text, t.speaker or "")
            if said:
                doc.add_text("said", said)
            if lang in LANGUAGES:
                doc.add_text(text_field(lang), t.text)
                if said:
                    doc.add_text(said_field(lang), said)
            grams = cjk_field_text(t.text)
            if grams:
                doc.add_text("cjk", grams)
            doc.add_text("speaker", t.speaker or "")
            if t.speaker and t.speaker not in ASSISTANT_STYLE:
                doc.add_text("who", t.speaker)
            if t.timestamp is not None:
                doc.add_date("ts", t.timestamp.astimezone(timezone.utc).replace(tzinfo=None))
            self._w.add_document(doc)
            n += 1
        self.added += n
        self.pending = self.pending or n > 0
        return n

    def commit(self) -> None:
        """Make everything written so far durable and visible."""
        self._w.commit()
        self.pending = False

    def rollback(self) -> None:
        """Discard changes since the last commit."""
        self._w.rollback()
        self.pending = False

    def delete_session(self, session_id: str) -> None:
        """Remove every turn of a session."""
        self._w.delete_documents_by_term("session", session_id)
        self.pending = True

    def delete_turn(self, session_id: str, turn: int) -> None:
        """Remove one turn (before re-adding it)."""
        self._w.delete_documents_by_term("key", turn_key(session_id, turn))
        self.pending = True

    def delete_source(self, source: str) -> None:
        """Remove every turn that came from one source file."""
        self._w.delete_documents_by_term("source", source)
        self.pending = True

    def readd(self, view: TurnView, sord: int, source: str) -> None:
        """Replace a stored turn by an identical copy (moves it out of a segment being purged)."""
        self._w.delete_documents_by_term("key", turn_key(view.session_id, view.turn))
        self.add_turns(
            view.session_id,
            source,
            sord,
            [Turn(index=view.turn, speaker=view.speaker, text=view.text, timestamp=view.timestamp)],
        )
        self.added -= 1

    def delete_everything(self) -> None:
        """Remove every turn (an interrupted rebuild starts over)."""
        self._w.delete_all_documents()
        self.pending = True

    def garbage_collect(self) -> None:
        """Delete files of segments that no longer hold live turns."""
        self._w.garbage_collect_files()


class TurnIndex:
    """The on-disk turn index. Readers reload to see other processes' commits."""

    def __init__(self, path: Path, lock_wait: float = DEFAULT_WAIT) -> None:
        self.path = path
        self.lock = writer_lock(path.parent / LOCK_NAME)
        self.lock_wait = lock_wait
        self.journal = WriteJournal(path.parent / JOURNAL_NAME)
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
        elif any(p.name != "meta.json" and not p.name.startswith(".") for p in path.iterdir()):
            raise IndexSchemaError(
                f"{path} holds files that are not a refind index; run `refind reindex` to rebuild it"
            )
        else:  # a new index: the schema file first, so a kill right after never leaves an unmarked index
            with private_files():
                meta.write_text(json.dumps({"schema_version": SCHEMA_VERSION}))
        problem = check_index(path)
        if problem:
            raise IndexDamagedError(f"the index is damaged ({problem}): {DAMAGED_HINT}")
        self.schema = build_schema()
        self.readonly = meta.exists() and not writable(path)
        open_at = self._shadow_of(path) if self.readonly else path
        with private_files():
            try:
                self._index = tantivy.Index(self.schema, path=str(open_at), reuse=True)
            except Exception as exc:  # tantivy reports a damaged meta.json or segment as ValueError
                raise IndexDamagedError(f"the index is damaged ({_first_line(exc)}): {DAMAGED_HINT}") from exc
            except BaseException as exc:  # a Rust panic surfaces as pyo3's PanicException
                if type(exc).__name__ != "PanicException":
                    raise
                raise IndexDamagedError(f"the index is damaged ({_first_line(exc)}): {DAMAGED_HINT}") from exc
            if not meta.exists():
                meta.write_text(json.dumps({"schema_version": SCHEMA_VERSION}))
        self._analyzer = analyzer()
        self._index.register_tokenizer(ANALYZER, self._analyzer)
        for lang in LANGUAGES:
            self._index.register_tokenizer(analyzer_name(lang), analyzer(lang))
        _make_private(path)

    def _shadow_of(self, path: Path) -> Path:
        """A private temp folder of symlinks to a read-only index, where tantivy can put its lock files.

        tantivy takes a lock file even to read; on a read-only home that fails, so the index is
        opened through links (no text is copied) and searched read-only.
        """
        shadow = Path(tempfile.mkdtemp(prefix="refind-readonly-"))
        atexit.register(shutil.rmtree, shadow, True)
        for p in path.iterdir():
            if p.is_file() and not p.name.startswith(".tantivy"):
                os.symlink(p, shadow / p.name)
        return shadow

    # -- writing -------------------------------------------------------------
    @contextmanager
    def write_lock(self) -> Iterator[None]:
        """Hold the cross-process writer lock (waits `lock_wait` s, then IndexLockedError)."""
        if self.readonly:
            raise DiskFullError(
                f"the index at {self.path} is on a read-only disk or folder: `search`, `show`, "
                "`sessions` and `stats` work; to change the index, make it writable or point "
                "REFIND_HOME at a writable folder"
            )
        with self.lock.hold(self.lock_wait):
            yield

    @contextmanager
    def writer(self, heap: int = 128_000_000, threads: int = 0) -> Iterator[TurnWriter]:
        """Open the single tantivy writer under the writer lock; commit on success, roll back on error."""
        with self.write_lock(), private_files():
            try:
                w = self._index.writer(heap, threads) if threads else self._index.writer(heap)
            except ValueError as exc:
                if "lock" in str(exc).lower():
                    raise IndexLockedError(
                        f"another program holds tantivy's writer lock on {self.path}; stop it and retry"
                    ) from exc
                raise
            tw = TurnWriter(self, w)
            try:
                yield tw
            except BaseException:
                w.rollback()
                raise
            else:
                if tw.pending:
                    tw.commit()
            finally:
                w.wait_merging_threads()
        self._index.reload()

    def purge(self, sessions: Iterable[str], sources: Iterable[str], source_of: Callable[[int], str]) -> int:
        """Delete sessions and sources so their text is physically gone from disk; returns turns removed.

        tantivy deletes are tombstones until segments merge, and the bindings expose no merge.
        So every other live turn that shares a segment with a doomed turn, or with any deleted
        turn (an earlier version of a re-ingested file lies there), is re-added (moved to a new
        segment); the old segments then hold no live turn, are dropped at commit, and their files
        are garbage-collected. `source_of(sord)` gives the source of a re-added turn.
        """
        sessions, sources = sorted(set(sessions)), sorted(set(sources))
        if not sessions and not sources:
            return 0
        with self.writer() as w:  # takes the lock first, so the snapshot below is current
            self.reload()
            searcher = self.searcher()
            clauses = []
            if sessions:
                clauses.append(tantivy.Query.term_set_query(self.schema, "session", sessions))
            if sources:
                clauses.append(tantivy.Query.term_set_query(self.schema, "source", sources))
            doomed_q = tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])
            limit = max(searcher.num_docs, 1)
            doomed = {
                (a.segment_ord, a.doc) for _, a in searcher.search(doomed_q, limit=limit, count=False).hits
            }
            live = [a for _, a in searcher.search(tantivy.Query.all_query(), limit=limit, count=False).hits]
            segments = {seg for seg, _ in doomed} | self._segments_with_deletes(live, searcher.num_segments)
            keep = [a for a in live if a.segment_ord in segments and (a.segment_ord, a.doc) not in doomed]
            for sid in sessions:
                w.delete_session(sid)
            for src in sources:
                w.delete_source(src)
            moved: set[str] = set()
            for addr in keep:
                doc = searcher.doc(addr)
                view = to_view(doc)
                key = turn_key(view.session_id, view.turn)
                if key in moved:
                    continue
                moved.add(key)
                sord = int(doc.to_dict()["sord"][0])
                w.readd(view, sord, source_of(sord))
            w.commit()
            del searcher, keep, live
            self.reload()  # drop this process's hold on the emptied segments, then delete their files
            w.garbage_collect()
        return len(doomed)

    def _segments_with_deletes(self, live: list, num_segments: int) -> set[int]:
        """Ordinals of the segments that hold deleted turns (every segment when unsure).

        The searcher's segment ordinals follow the segment list of tantivy's meta.json; the
        mapping is checked against the live count of each segment before it is trusted.
        """
        everything = set(range(num_segments))
        try:
            metas = json.loads((self.path / "meta.json").read_text())["segments"]
        except (OSError, ValueError, KeyError):
            return everything
        if len(metas) != num_segments:
            return everything
        counts: dict[int, int] = {}
        top: dict[int, int] = {}
        for a in live:
            counts[a.segment_ord] = counts.get(a.segment_ord, 0) + 1
            top[a.segment_ord] = max(top.get(a.segment_ord, 0), a.doc)
        out: set[int] = set()
        for i, meta in enumerate(metas):
            deleted = (meta.get("deletes") or {}).get("num_deleted_docs", 0)
            if counts.get(i, 0) != meta["max_doc"] - deleted or top.get(i, 0) >= max(meta["max_doc"], 1):
                return everything
            if deleted:
                out.add(i)
        return out

    # -- reading -------------------------------------------------------------
    def reload(self) -> None:
        """Pick up commits made by this or another process."""
        self._index.reload()

    def searcher(self) -> tantivy.Searcher:
        """A point-in-time searcher (internal to index/ and search/)."""
        return self._index.searcher()

    def doc_freq(self, word: str) -> int:
        """How many turns hold `word` as the index reads it (the rarest reading of a word the analyzer
        splits; a stop word or an empty reading counts as every turn)."""
        searcher = self._index.searcher()
        terms = self._analyzer.analyze(word)
        if not terms:
            return searcher.num_docs
        return min(searcher.doc_freq("text", t) for t in terms)

    @property
    def raw(self) -> tantivy.Index:
        """The tantivy index (internal to index/ and search/)."""
        return self._index

    def num_turns(self) -> int:
        """Number of live turn documents."""
        return self.searcher().num_docs

    def sample_texts(self, n: int) -> list[str]:
        """The text of up to `n` turns, taken evenly across the index (a language sample)."""
        searcher = self.searcher()
        total = searcher.num_docs
        if not total:
            return []
        hits = searcher.search(tantivy.Query.all_query(), min(total, max(n * 4, n))).hits
        step = max(1, len(hits) // n)
        return [str(searcher.doc(addr).get_first("text") or "") for _, addr in hits[::step][:n]]

    def text_query(
        self, keywords: str, own_words: bool = False, speaker_weight: float = 0.0
    ) -> tantivy.Query | None:
        """BM25 query over turn text (and the CJK bigram field for the query's CJK runs); None when no
        searchable term remains. A query without CJK characters is exactly the word query.

        `own_words`: each word is scored on the turn text and on the person's own words (`said`),
        the two BM25 scores summed. `speaker_weight` > 0: each word is also scored on who wrote the
        turn (`who`, a multi-party message's author), that BM25 score times `speaker_weight`, so
        "Emi travel" ranks Emi's own messages about travel first."""
        text = clean_query(keywords)
        if not text:
            return None
        fields = ["text", "said"] if own_words else ["text"]
        for lang in LANGUAGES:  # a word of a session in another language, read with its stemmer
            fields += [text_field(lang), said_field(lang)] if own_words else [text_field(lang)]
        boosts: dict[str, float] = {}
        if speaker_weight > 0:
            fields.append("who")
            boosts["who"] = speaker_weight
        clauses: list[tantivy.Query] = []
        try:
            clauses.append(self._index.parse_query(text, fields, field_boosts=boosts or None))
        except ValueError:  # every word was a stop-word
            pass
        grams = cjk_terms(text)
        if grams:
            clauses += [tantivy.Query.term_query(self.schema, "cjk", g, "freq") for g in grams]
        if not clauses:
            return None
        if len(clauses) == 1:
            return clauses[0]
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, c) for c in clauses])

    def session_turns(self, sord: int, lo: int = 0, hi: int | None = None) -> list[TurnView]:
        """Turns lo..hi (inclusive) of a session, in order."""
        q = Query_and(
            tantivy.Query.term_query(self.schema, "sord", sord),
            tantivy.Query.range_query(self.schema, "turn", tantivy.FieldType.Unsigned, lo, hi),
        )
        searcher = self.searcher()
        limit = (hi - lo + 1) if hi is not None else max(searcher.num_docs, 1)
        res = searcher.search(
            q, limit=max(limit, 1), count=False, order_by_field="turn", order=tantivy.Order.Asc
        )
        return [to_view(searcher.doc(addr)) for _, addr in res.hits]

    def turns_in_time_range(
        self, session_ids: Iterable[str], lo: datetime | None, hi: datetime | None
    ) -> set[tuple[int, int]]:
        """(session ordinal, turn) of every turn of `session_ids` stamped within [lo, hi] (naive UTC
        bounds, one of them may be None = open; undated turns never match)."""
        if lo is None and hi is None:
            raise ValueError("turns_in_time_range needs at least one bound")
        sids = sorted(set(session_ids))
        if not sids:
            return set()
        query = Query_and(
            tantivy.Query.term_set_query(self.schema, "session", sids),
            tantivy.Query.range_query(self.schema, "ts", tantivy.FieldType.Date, lo, hi),
        )
        searcher = self.searcher()
        addrs = [a for _, a in searcher.search(query, limit=max(searcher.num_docs, 1), count=False).hits]
        if not addrs:
            return set()
        return set(
            zip(
                (int(s) for s in searcher.fast_field_values("sord", addrs)),
                (int(t) for t in searcher.fast_field_values("turn", addrs)),
                strict=True,
            )
        )


def writable(path: Path) -> bool:
    """Whether files can be created in `path` (false on a read-only mount, even for root)."""
    return os.access(path, os.W_OK)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def _make_private(path: Path) -> None:
    """Tighten files an older version created with the default umask."""
    for p in path.iterdir():
        try:
            if p.is_file() and p.stat().st_mode & 0o077:
                p.chmod(0o600)
        except OSError:
            pass


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
