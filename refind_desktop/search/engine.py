"""The ReFind search engine: turn BM25, time filter, seen-session exclusion, two-level RRF, context."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone, tzinfo

import numpy as np
import tantivy

from ..index.catalog import Catalog, SessionRecord
from ..index.schema import TS_MAX, TS_MIN
from ..index.store import TurnIndex, clean_query
from ..lang import detect_many
from ..types import Block, TurnView
from .hosts import Machines
from .querywords import about_person, content_words


@dataclass(frozen=True)
class SearchOptions:
    """Engine parameters; every ablation of the method is a switch here."""

    top_k: int = 5
    context_window: int = 2
    rrf: bool = True
    session_dedup: bool = True
    temporal: bool = True
    rrf_k: int = 60
    pool: int = 1000
    """Turns scored for the session sums (0 = every matching turn)."""
    session_top: int = 3
    """Session score for the second RRF level: the sum of the session's `session_top` best pooled
    turns (0 = the sum over every pooled turn, the score before the archive setting). Capped so
    that a long session full of common words cannot win on its length: the same top-3 aggregation
    as the dense backend's session rank."""
    own_words: bool = True
    """Score each word on the turn text and again on the person's own words (index/said.py)."""
    speaker_weight: float = 2.0
    """Score each word also on the turn's author (the `who` field: the speaker of a WhatsApp, Telegram,
    Discord or Slack message), that score times this weight (0 = off). A person is findable by what
    they said: "Emi travel" ranks Emi's own messages about travel above others' messages about travel,
    while the topic words still decide among Emi's messages. At 2 the author's name counts as much as
    the same word would in the message: a multi-party message's words are scored twice, on `text` and
    on `said` (the whole message is the person's own words), its author's name once on `who`. Much
    more would make a name a filter, and "what did I tell Emi" would lose my own messages."""
    question_words: bool = True
    """Drop the question's generic words (pronouns, interrogatives, auxiliaries: search/querywords.py)
    from the query, unless nothing would be left."""
    session_scale: int = 60
    """When more than `session_scale` sessions are pooled, the second RRF level uses each session's
    rank scaled onto `session_scale` places (rank × session_scale / pooled sessions: its percentile
    among the competing sessions); 0 = plain ranks. The default is `rrf_k`: the session level then
    adds between 1/(2k) and 1/k to a turn however many sessions compete, as in a haystack of k
    sessions, where nothing changes. In an archive hundreds of sessions talk about the question's
    topic, and a session's rank among them by its turn sum says less than its best turn's rank:
    unscaled, a session whose one turn states the fact ranks far down by its sum and loses that
    turn to the lesser turns of long sessions on the topic."""
    session_damp: float = 0.5
    """When more than `session_scale` sessions are pooled, the second RRF level's term is also weighted
    by (session_scale / pooled sessions) ** session_damp (0 = full weight). The same reasoning as the
    scaled rank, carried to the weight: the more sessions compete on the question's words, the less
    a session's standing among them says, and the more the turn that states the fact should decide.
    With no more sessions than `session_scale` (a haystack of 50) nothing changes."""
    self_boost: float = 12.0
    """BM25 points added to a pooled turn in which the person speaks of themselves ("I", "my", "me" in
    their own words, the `said` field) when the search is about the person (`person`) and more
    sessions are pooled than `session_scale` (0 = off). A question about yourself is answered by a
    turn where you spoke of yourself; in a large archive the turns that share its topic words include
    many impersonal ones (a general question, a pasted text) that outrank it on those words alone.
    In a haystack-sized pool nothing changes."""
    person: bool | None = None
    """Whether the search is about the person: None decides from the keywords (a first-person word
    among them, `querywords.about_person`); the agent sets it from its question, as its search words
    leave those words out."""
    host: str = ""
    """Keep only the sessions of this machine: a host key (`me@box:2222`), a host name (`box`) or
    `local` (this machine's own); "" keeps every machine (`search/hosts.py`)."""

    @classmethod
    def generic(cls, **kw: object) -> SearchOptions:
        """Generic agentic BM25: context, dedup, RRF, the time filter, the query weighting and the
        first-person prior all off."""
        return cls(
            context_window=0,
            rrf=False,
            session_dedup=False,
            temporal=False,
            own_words=False,
            speaker_weight=0.0,
            question_words=False,
            self_boost=0.0,
        ).with_(**kw)

    def with_(self, **kw: object) -> SearchOptions:
        """A copy with some options changed (None values ignored)."""
        return replace(self, **{k: v for k, v in kw.items() if v is not None})


@dataclass(frozen=True, slots=True)
class RankedTurn:
    """One candidate turn after fusion (internal to search/ and eval/)."""

    sord: int
    """Session ordinal (`SessionRecord.ord`)."""
    turn: int
    bm25: float
    fused: float
    """Reciprocal rank fusion score: the sum of 1/(k + rank) over the fused rankings."""


def day_bounds(
    date_from: date | None, date_to: date | None, tz: tzinfo
) -> tuple[datetime | None, datetime | None]:
    """Inclusive calendar days in the user's zone → naive UTC bounds for the date field.

    A day beyond the span the index can store (TS_MIN..TS_MAX) gives a bound just outside that span,
    so 0001-01-01 and 9999-12-31 are ordinary arguments (every dated turn is inside; undated turns
    stay outside any date range, as always), never an overflow.
    """
    first, last = TS_MIN.date(), TS_MAX.date()

    def start_of(day: date) -> datetime:
        if day < first:
            return TS_MIN - _TICK
        if day > last:
            return TS_MAX + _TICK
        return datetime.combine(day, time.min, tz)

    lo = hi = None
    if date_from:
        lo = utc_naive(start_of(date_from), tz)
    if date_to:
        end = TS_MAX + _TICK if date_to >= last else start_of(date_to + timedelta(days=1)) - _TICK
        hi = utc_naive(end, tz)
    return lo, hi


_TICK = timedelta(microseconds=1)


def session_scores(bm25: np.ndarray, inverse: np.ndarray, n_sessions: int, top: int) -> np.ndarray:
    """Per-session score: the sum of its turns' BM25, or of its `top` best turns when `top` > 0."""
    if top <= 0:
        return np.bincount(inverse, weights=bm25, minlength=n_sessions)
    order = np.lexsort((-bm25, inverse))  # by session, best turn first
    grouped = inverse[order]
    starts = np.searchsorted(grouped, np.arange(n_sessions))
    rank_in_session = np.arange(len(order)) - starts[grouped]
    keep = order[rank_in_session < top]
    return np.bincount(inverse[keep], weights=bm25[keep], minlength=n_sessions)


def fuse(
    scored: list[tuple[float, int, int]],
    k: int,
    rrf: bool,
    limit: int | None = None,
    session_top: int = 0,
    session_scale: int = 0,
    session_damp: float = 0.0,
) -> list[RankedTurn]:
    """Two-level RRF over (bm25, sord, turn) candidates, best first (at most `limit`).

    r1 = rank of the turn by BM25; r2 = rank of its session by the sum of its turns' BM25 (of its
    `session_top` best turns when that is > 0); fused = 1/(k + r1) + 1/(k + r2). Ties break on BM25,
    then session ordinal, then turn. With `rrf` off the order is plain BM25 and `fused` is the BM25
    score. `session_scale` > 0: with more sessions than that, r2 is scaled by session_scale / sessions
    and its term weighted by (session_scale / sessions) ** session_damp.
    """
    if not scored:
        return []
    arr = np.asarray(scored, dtype=np.float64)
    bm25, sord, turn = arr[:, 0], arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64)
    by_bm25 = np.lexsort((turn, sord, -bm25))
    if not rrf:
        order, fused = by_bm25, bm25
    else:
        r1 = np.empty(len(bm25), dtype=np.float64)
        r1[by_bm25] = np.arange(1, len(bm25) + 1)
        sessions, inverse = np.unique(sord, return_inverse=True)
        sums = session_scores(bm25, inverse, len(sessions), session_top)
        r2 = np.empty(len(sessions), dtype=np.float64)
        r2[np.lexsort((sessions, -sums))] = np.arange(1, len(sessions) + 1)
        weight = 1.0
        if 0 < session_scale < len(sessions):
            share = session_scale / len(sessions)
            r2 *= share
            weight = share**session_damp
        fused = 1.0 / (k + r1) + weight / (k + r2[inverse])
        order = np.lexsort((turn, sord, -bm25, -fused))
    if limit is not None:
        order = order[:limit]
    return [RankedTurn(int(sord[i]), int(turn[i]), float(bm25[i]), float(fused[i])) for i in order]


def merge_windows(
    hits: list[RankedTurn], w: int, n_turns: dict[int, int]
) -> list[tuple[int, int, int, list[RankedTurn]]]:
    """Context windows [turn-w, turn+w] cut at session bounds; overlapping ones of a session merge.

    Returns (sord, lo, hi, hits) in order of each block's best hit.
    """
    blocks: list[list] = []
    for h in hits:
        last = max(n_turns.get(h.sord, h.turn + 1) - 1, h.turn)
        lo, hi = max(0, h.turn - w), min(last, h.turn + w)
        for b in blocks:
            if b[0] == h.sord and lo <= b[2] and hi >= b[1]:
                b[1], b[2] = min(b[1], lo), max(b[2], hi)
                b[3].append(h)
                break
        else:
            blocks.append([h.sord, lo, hi, [h]])
    # a widened block may now overlap another block of the same session
    merged = True
    while merged:
        merged = False
        for i in range(len(blocks)):
            for j in range(i + 1, len(blocks)):
                a, b = blocks[i], blocks[j]
                if a[0] == b[0] and b[1] <= a[2] and b[2] >= a[1]:
                    a[1], a[2] = min(a[1], b[1]), max(a[2], b[2])
                    a[3] += b[3]
                    del blocks[j]
                    merged = True
                    break
            if merged:
                break
    return [(b[0], b[1], b[2], b[3]) for b in blocks]


def _filter(schema: tantivy.Schema, lo: datetime | None, hi: datetime | None) -> tantivy.Query:
    """A date-range filter that adds nothing to the score (tantivy scores a bare range clause 1.0 per
    matching turn, which would inflate every session sum by its number of pooled turns)."""
    rng = tantivy.Query.range_query(schema, "ts", tantivy.FieldType.Date, lo, hi)
    return tantivy.Query.const_score_query(rng, 0.0)


def utc_naive(when: datetime, tz: tzinfo) -> datetime:
    """A moment as the naive UTC value of the index's date field (naive input is read in `tz`)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=tz)
    return when.astimezone(timezone.utc).replace(tzinfo=None)


def _turn_keys(searcher: tantivy.Searcher, hits: list) -> list[tuple[int, int]]:
    """(session ordinal, turn) of each search hit, in order (from the fast fields)."""
    if not hits:
        return []
    addrs = [a for _, a in hits]
    sords = searcher.fast_field_values("sord", addrs)
    turns = searcher.fast_field_values("turn", addrs)
    return [(int(o), int(t)) for o, t in zip(sords, turns, strict=True)]


class SearchEngine:
    """Stateless engine over the index; `SearchSession` adds per-question seen-session state.

    `as_of` bounds what the engine can see: only turns dated at or before it exist for every search
    (applied as a filter before scoring; undated turns are hidden too, as nothing proves they existed
    then). It is how the eval harness asks each question against the archive as it stood that day;
    controllers and front ends never see or set it (`bounded` makes a bounded copy).
    """

    def __init__(
        self,
        index: TurnIndex,
        catalog: Catalog,
        tz: tzinfo = timezone.utc,
        as_of: datetime | None = None,
        machines: Machines | None = None,
    ) -> None:
        self.index = index
        self.catalog = catalog
        self.tz = tz
        self.as_of = as_of
        self.machines = machines
        """Names each result's host and serves `SearchOptions.host` (None: every session is local)."""
        self._language: tuple[int, str | None] = (-1, None)

    def language(self) -> str | None:
        """The archive's main language (ISO 639-1, by `lang.detect_many` over a sample of turns), or None
        when it cannot tell; read again once the archive has doubled."""
        turns = self.index.num_turns()
        seen, lang = self._language
        if seen < 0 or turns > 2 * seen:
            lang = detect_many(self.index.sample_texts(40))
            self._language = (turns, lang)
        return lang

    def bounded(self, as_of: datetime | None) -> SearchEngine:
        """The same engine seeing only the turns dated at or before `as_of` (None: no bound)."""
        bounded = SearchEngine(self.index, self.catalog, self.tz, as_of, self.machines)
        bounded._language = self._language
        return bounded

    def visible(self, when: datetime | None) -> bool:
        """Whether a turn dated `when` exists under the engine's `as_of` bound."""
        if self.as_of is None:
            return True
        return when is not None and utc_naive(when, self.tz) <= utc_naive(self.as_of, self.tz)

    def query_text(self, keywords: str, options: SearchOptions) -> str:
        """The keywords as searched: cleaned, and without the question's generic words when asked."""
        if not options.question_words:
            return keywords
        return " ".join(content_words(clean_query(keywords).split()))

    def candidates(
        self,
        keywords: str,
        date_from: date | None = None,
        date_to: date | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
        options: SearchOptions = SearchOptions(),
        limit: int | None = None,
    ) -> list[RankedTurn]:
        """Fused candidates from the pool (or every match when pool is 0), best first."""
        q = self.index.text_query(
            self.query_text(keywords, options),
            own_words=options.own_words,
            speaker_weight=options.speaker_weight,
        )
        if q is None:
            return []
        schema = self.index.schema
        clauses = [(tantivy.Occur.Must, q)]
        if self.as_of is not None:
            clauses.append((tantivy.Occur.Must, _filter(schema, None, utc_naive(self.as_of, self.tz))))
        if options.temporal and (date_from or date_to):
            clauses.append((tantivy.Occur.Must, _filter(schema, *day_bounds(date_from, date_to, self.tz))))
        if options.session_dedup and exclude:
            clauses.append(
                (tantivy.Occur.MustNot, tantivy.Query.term_set_query(schema, "session", sorted(exclude)))
            )
        if options.host:
            chosen = self.machines.select(self.catalog, options.host) if self.machines else None
            if chosen is None or not (chosen.sids or chosen.outside):
                return []
            if chosen.sids:
                occur = tantivy.Occur.MustNot if chosen.outside else tantivy.Occur.Must
                clauses.append((occur, tantivy.Query.term_set_query(schema, "session", sorted(chosen.sids))))
        query = q if len(clauses) == 1 else tantivy.Query.boolean_query(clauses)
        searcher = self.index.searcher()
        pool = options.pool if options.pool > 0 else max(searcher.num_docs, 1)
        res = searcher.search(query, limit=pool, count=False)
        if not res.hits:
            return []
        keys = _turn_keys(searcher, res.hits)
        scored = [(float(s), o, t) for (s, _), (o, t) in zip(res.hits, keys, strict=True)]
        person = options.person if options.person is not None else about_person(keywords)
        if options.self_boost > 0 and person and len({o for o, _ in keys}) > options.session_scale:
            mine = self._first_person(searcher, query, len(res.hits))
            scored = [(s + options.self_boost if (o, t) in mine else s, o, t) for s, o, t in scored]
        return fuse(
            scored,
            options.rrf_k,
            options.rrf,
            limit,
            options.session_top,
            options.session_scale,
            options.session_damp,
        )

    def _first_person(
        self, searcher: tantivy.Searcher, query: tantivy.Query, pool: int
    ) -> set[tuple[int, int]]:
        """(session ordinal, turn) of the turns among `query`'s top `pool` whose person's own words hold a
        first-person word."""
        words = [tantivy.Query.term_query(self.index.schema, "said", w) for w in ("i", "my", "me")]
        mine = tantivy.Query.boolean_query([(tantivy.Occur.Should, w) for w in words])
        both = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, query), (tantivy.Occur.Must, tantivy.Query.const_score_query(mine, 0.0))]
        )
        res = searcher.search(both, limit=max(pool, 1), count=False)
        return set(_turn_keys(searcher, res.hits))

    def search(
        self,
        keywords: str,
        date_from: date | None = None,
        date_to: date | None = None,
        exclude: set[str] | frozenset[str] = frozenset(),
        options: SearchOptions = SearchOptions(),
    ) -> list[Block]:
        """Top-K turns with merged context blocks, numbered 1..n."""
        top = self.candidates(keywords, date_from, date_to, exclude, options, limit=options.top_k)
        if not top:
            return []
        recs = self.catalog.ords_to_sessions(sorted({h.sord for h in top}))
        n_turns = {o: r.n_turns for o, r in recs.items()}
        blocks: list[Block] = []
        for sord, lo, hi, hits in merge_windows(top, options.context_window, n_turns):
            rec = recs.get(sord)
            views = tuple(v for v in self.index.session_turns(sord, lo, hi) if self.visible(v.timestamp))
            if not views:
                continue
            best = hits[0]
            blocks.append(
                Block(
                    rank=len(blocks) + 1,
                    session_id=views[0].session_id,
                    session_title=rec.title if rec else "",
                    session_date=rec.started_at if rec else None,
                    turn=best.turn,
                    score=best.fused,
                    hit_turns=tuple(sorted(h.turn for h in hits)),
                    turns=views,
                    chat_id=rec.chat if rec else "",
                    chat_title=rec.chat_title if rec else "",
                    host=self.machines.host(rec.source) if rec and self.machines else "",
                )
            )
        return blocks

    def blocks_at(self, refs: list[tuple[str, int]], window: int) -> list[Block]:
        """A block around each (session id, turn), with `window` turns of context on each side; refs of
        sessions the catalog does not know are left out."""
        blocks: list[Block] = []
        for sid, turn in refs:
            rec = self.catalog.get_session(sid)
            if rec is None:
                continue
            views = self._visible_turns(rec, max(0, turn - window), turn + window)
            if not views:
                continue
            blocks.append(
                Block(
                    rank=len(blocks) + 1,
                    session_id=sid,
                    session_title=rec.title,
                    session_date=rec.started_at,
                    turn=turn,
                    score=0.0,
                    hit_turns=(turn,),
                    turns=views,
                    chat_id=rec.chat,
                    chat_title=rec.chat_title,
                )
            )
        return blocks

    def turns_of(self, session_id: str) -> tuple[TurnView, ...]:
        """Every turn of one session that is visible (in turn order); () for a session the catalog does
        not know."""
        rec = self.catalog.get_session(session_id)
        return () if rec is None else self._visible_turns(rec, 0, rec.n_turns - 1)

    def _visible_turns(self, rec: SessionRecord, lo: int, hi: int) -> tuple[TurnView, ...]:
        """The visible turns lo..hi of a catalog session (`hi` cut at its last turn)."""
        hi = min(rec.n_turns - 1, hi)
        if hi < lo:
            return ()
        return tuple(v for v in self.index.session_turns(rec.ord, lo, hi) if self.visible(v.timestamp))

    def rarest(self, words: list[str], n: int) -> list[str]:
        """The `n` words of `words` that the fewest turns hold (`TurnIndex.doc_freq`; a word no turn
        holds, such as a typo, is left out), in their order."""
        freq = {w: self.index.doc_freq(w) for w in dict.fromkeys(words)}
        keep = set(sorted((w for w in freq if freq[w]), key=freq.__getitem__)[:n])  # stable: ties by order
        return [w for w in freq if w in keep]

    def session_count(self) -> int:
        """How many sessions the archive holds."""
        return self.catalog.session_count()

    def session(self, options: SearchOptions = SearchOptions()) -> SearchSession:
        """A per-question search state (remembers the sessions already returned)."""
        return SearchSession(self, options)


@dataclass
class SearchSession:
    """Per-question wrapper: later searches never return a session an earlier one returned."""

    engine: SearchEngine
    options: SearchOptions = field(default_factory=SearchOptions)
    seen: set[str] = field(default_factory=set)

    def rarest(self, words: list[str], n: int) -> list[str]:
        """`SearchEngine.rarest`."""
        return self.engine.rarest(words, n)

    def turns_of(self, session_id: str) -> tuple[TurnView, ...]:
        """`SearchEngine.turns_of`."""
        return self.engine.turns_of(session_id)

    @property
    def large(self) -> bool:
        """Whether the archive holds more sessions than the options' `session_scale`: a person's
        archive, where many sessions share a question's topic, not a benchmark haystack of ~50."""
        return 0 < self.options.session_scale < self.engine.session_count()

    def search(
        self,
        keywords: str,
        date_from: date | None = None,
        date_to: date | None = None,
        top_k: int | None = None,
        rrf: bool | None = None,
    ) -> list[Block]:
        """One `search_chatrecord` call (`top_k` and `rrf` override the session's options)."""
        opts = self.options.with_(top_k=top_k, rrf=rrf)
        blocks = self.engine.search(keywords, date_from, date_to, self.seen, opts)
        if opts.session_dedup:
            self.seen.update(b.session_id for b in blocks)
        return blocks


def block_to_json(b: Block) -> dict:
    """The stable JSON shape of one search result. `date` is when the hit turn was written (its own
    time, else the session's); `chat_id`/`chat_title` name the chat a conversation belongs to ("" for
    a session that stands alone); `host` the machine it came from (`USER@HOST[:PORT]`), None for
    this one."""
    return {
        "rank": b.rank,
        "session_id": b.session_id,
        "session_title": b.session_title,
        "session_date": b.session_date.isoformat() if b.session_date else None,
        "date": b.date.isoformat() if b.date else None,
        "chat_id": b.chat_id,
        "chat_title": b.chat_title,
        "host": b.host or None,
        "turn": b.turn,
        "hit_turns": list(b.hit_turns),
        "score": round(b.score, 6),
        "block": [
            {
                "turn": t.turn,
                "speaker": t.speaker,
                "timestamp": t.timestamp.isoformat() if t.timestamp else None,
                "text": t.text,
            }
            for t in b.turns
        ],
    }
