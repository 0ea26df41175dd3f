"""The small-model controller: a deterministic first search and a second look with the turn ranking, for a
question that adds things up one relevance call per search (the first searches' calls made together) and
follow-up searches, model-written keywords only for a follow-up search, never the same search twice, at
most a few rounds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ...search.timewords import mention_range
from ...types import Block
from .. import prompts
from ..evidence import focus
from ..keywords import content_words, feedback_keywords, habit_words, search_words
from ..run import Run
from ..schemas import relevant_room, relevant_schema
from .base import model_query


class Look(NamedTuple):
    """One search of stage 1: its round, its results, and whether all of them are kept as notes."""

    round: int
    blocks: list[Block]
    keep: bool


@dataclass
class SmallController:
    """Stepwise control a 0.5B-1.5B model can follow (see the module docstring).

    Round 1 searches the question's words less the generic function words (`keywords.search_words`;
    no model call, so its hits can be shown at once), applying the run's date hint when there is one;
    round 2 takes a second look with the same words ranked by turn BM25 alone (`second_look`). When the
    question aggregates (count, sum, dates, order, the latest value, a list: the items may sit in several
    sessions), each search gets one relevance call over all its results and follow-up rounds run; a
    question about one fact has its results read unjudged (`judge_single`). A follow-up round runs
    when nothing relevant was found, or when the question aggregates. Such a question's first searches
    and its first follow-up run before any relevance call, and their calls are made together (`ahead`,
    `take`): the same prompts and the same notes, in the same order, as one at a time."""

    name: str = "small"
    max_rounds: int = 3
    line_chars: int = 240
    dates: bool = True
    fallback: int = 3
    keep_first: bool = True
    """Keep every result of the first search as a note (the relevant ones first): a small model's
    relevance call ranks well but drops answers, and the answer stage reads them anyway."""
    first_k: int = 0
    """Turns the first search returns (0: the run's top_k). Every first result is kept as a note."""
    second_look: bool = True
    """After the first search, the same words once more ranked by turn BM25 alone (no session
    fusion), the sessions already returned excluded; its results are judged and all kept as notes.
    The two rankings fail differently: session fusion finds the session that talks about the topic
    at length (it wins inside a small archive), the turn ranking the one turn that states the fact
    (it wins in a whole archive, where many sessions share the topic)."""
    wide_look: int = 10
    """Turns the second look returns in a large archive (more sessions than the engine's
    `session_scale`, `SearchSession.large`; 0, or a smaller archive: as many as the first search).
    There many sessions share the question's topic, and the turn that states the fact often ranks
    just past the first few."""
    time_words: bool = True
    """When the question names a time ("last Friday", "two weeks ago", "in March"), one more search
    with the same words within the dates of the conversations that can tell of it (from the first day
    its time words name to the question's day, `search/timewords.py`), seen sessions excluded; judged
    and kept as notes. It does not count as a round."""
    habit_words: bool = True
    """The second look adds the question's habit and present-state words (`Pack.habit_words`) that
    the first search's words lack ("now", a generic word the first search drops)."""
    rare_words: int = 3
    """In a large archive (`SearchSession.large`), the first follow-up search is the question's
    `rare_words` rarest words (`SearchEngine.rarest`: the fewest turns hold them; 0 = off), the words a
    person would type: a long question's common words add up and outrank the turn that holds its one
    distinctive word. A follow-up runs when nothing relevant was found or the question aggregates, so
    this adds no model call."""
    judge_results: bool = True
    """One relevance call per search (off: the first search, the second look and the time-word search
    run, every result is kept unjudged, in the order the searches ran, and the answer stage's reading,
    which reads each passage anyway, decides; a follow-up search runs only when those found nothing, its
    top results then kept by `Run.finish`: reading every follow-up's results was measured, and gave no
    more right answers)."""
    judge_single: bool = False
    """Judge the results of a question about one fact too (off: such a question's searches run as
    `reader`'s do, their results read unjudged in the searches' order, since stage 2's reading judges
    each passage anyway; a question that adds things up still has its results judged and its follow-up
    searches). Off was measured on every check half: the same right, wrong and unsure answers, its
    lookups about 40 % faster (docs/answers.md, section 2)."""
    model_keywords: bool = False
    """Ask the model for follow-up keywords (off: a small model copies the question's words back; the
    follow-up then adds the words that recur in what was found relevant)."""

    def collect(self, run: Run) -> None:
        """Stage 1 (see the class docstring)."""
        words = search_words(run.question, run.asked.pack)
        blocks: list[Block] | None = None
        hint = run.date_hint
        first = self.first_k or None
        span: tuple = (None, None)
        if hint is not None and (hint.date_from or hint.date_to):
            span = (hint.date_from, hint.date_to)
            blocks = run.search(words, *span, first)
            if not blocks:
                span = (None, None)
                blocks = run.search(words, top_k=first)
        else:
            blocks = run.search(words, top_k=first)
        looks: list[Look] = []  # searches whose relevance calls are made together, once they all ran

        def add(look: Look) -> None:  # a search whose results need no relevance call is noted at once
            if self.judging(run):
                looks.append(look)
            else:
                self.take(run, [look])

        add(Look(run.round, blocks or [], self.keep_first))
        rounds, reason = 1, ""
        if self.second_look and blocks and rounds < self.max_rounds:
            habit = (
                [w for w in habit_words(run.question, run.asked.pack) if w not in words]
                if self.habit_words
                else []
            )
            depth = (self.wide_look if run.session.large else 0) or first
            run.round += 1
            add(Look(run.round, run.search(words + habit, *span, depth, rrf=False) or [], True))
            rounds += 1
        window = mention_range(run.question, run.now, run.tz, run.asked.pack) if self.time_words else None
        if window is not None and span == (None, None):
            run.round += 1
            add(Look(run.round, run.search(words, window[0], window[1], first) or [], True))
        before = len(looks)
        if self.ahead(run) and rounds < self.max_rounds:
            blocks, reason = self.follow(run, [b for look in looks for b in look.blocks])
            rounds += 1
            if not reason:
                looks.append(Look(run.round, blocks, False))
        counts = self.take(run, looks)
        found = sum(counts[:before])
        if len(looks) > before:
            if found and not counts[-1]:
                reason = "nothing new"
            found += counts[-1]
        while not reason and rounds < self.max_rounds:
            if not self.judging(run) and run.notes:  # a follow-up's results count when judged relevant
                reason = "unjudged"
                break
            if found and not run.asked.aggregates:
                reason = "found"
                break
            blocks, reason = self.follow(run)
            rounds += 1
            if reason:
                break
            new = self.take(run, [Look(run.round, blocks, False)])[0]
            if run.asked.aggregates and found and not new:
                reason = "nothing new"
                break
            found += new
        run.finish(reason or "rounds", self.fallback)

    @classmethod
    def reader(cls, **kw) -> SmallController:
        """The searches that need no judgement, with no relevance call: the answer stage's reading judges
        the results."""
        return cls(name="reader", judge_results=False, **kw)

    def judging(self, run: Run) -> bool:
        """Whether this question's results get a relevance call (`judge_results`, `judge_single`)."""
        return self.judge_results and (self.judge_single or run.asked.aggregates)

    def ahead(self, run: Run) -> bool:
        """Whether the first follow-up search runs before the relevance calls, and its results are judged
        with those of the searches before it: it does when the question adds things up (its follow-up
        runs whatever the calls find) and every result before it is kept as a note (`keep_first`), so
        its words (`next_search`) do not depend on what the calls find."""
        return self.judging(run) and run.asked.aggregates and self.keep_first

    def take(self, run: Run, looks: list[Look]) -> list[int]:
        """The relevance calls of every search in `looks`, made together (`relevant`), then each search's
        notes in the searches' order: its relevant results, then all of them when it keeps them. How
        many each found relevant."""
        counts = []
        for look, chosen in zip(looks, self.relevant(run, [k.blocks for k in looks]), strict=True):
            if chosen:
                run.note(chosen, look.blocks, "judged", step=look.round)
            if look.keep and look.blocks:
                run.note(list(range(1, len(look.blocks) + 1)), look.blocks, "kept", step=look.round)
            counts.append(len(chosen))
        return counts

    def follow(self, run: Run, pending: list[Block] | None = None) -> tuple[list[Block], str]:
        """One follow-up search in a new round (`next_search`; `pending` as there): its results, or why
        none ran ("no new keywords", "repeat")."""
        run.round += 1
        nxt = self.next_search(run, pending)
        if nxt is None:
            return [], "no new keywords"
        blocks = run.search(*nxt)
        if blocks is None:
            return [], "repeat"
        return blocks, ""

    def relevant(self, run: Run, groups: list[list[Block]]) -> list[list[int]]:
        """The relevant result numbers of each search's results: one relevance call for each (none when
        this question is not judged, `judging`), the calls made together when the back end decodes
        several at once (`Run.ask_many`: the prompts are the same as one by one)."""
        todo = [g for g in groups if g] if self.judging(run) else []
        if not todo:
            return [[] for _ in groups]
        words = content_words(run.question, run.asked.pack)
        steps = []
        for blocks in todo:
            lines = []
            for i, b in enumerate(blocks, 1):
                hit = next((t for t in b.turns if t.turn == b.turn), b.turns[0])
                lines.append(
                    prompts.result_line(b, i, self.line_chars, focus(hit.text, words, self.line_chars))
                )
            steps.append(
                (
                    prompts.relevance_prompt(run.head, lines),
                    relevant_schema(len(blocks)),
                    relevant_room(len(blocks)),
                )
            )

        def check(data: dict) -> tuple[list[int] | None, str | None]:
            return sorted(set(data["relevant"])), None

        replies = iter(run.ask_many("relevance", steps, check=check))
        return [(next(replies) or []) if g else [] for g in groups]

    def next_search(self, run: Run, pending: list[Block] | None = None) -> tuple | None:
        """Keywords for a follow-up search (see `model_keywords`), never a search that already ran; None
        when there is nothing new to search. `pending`: results about to be kept as notes, counted as
        notes already."""
        if self.model_keywords:
            action = model_query(run, 48, self.dates)
            if action is not None and not run.repeats(*action):
                return action
        words = search_words(run.question, run.asked.pack)
        if self.rare_words and len(words) > self.rare_words and run.session.large:
            rare = run.session.rarest(words, self.rare_words)
            if rare and not run.repeats(rare):
                return (rare, None, None)
        noted: dict[tuple[str, int], Block] = {}
        for b in [n.block for n in run.notes] + (pending or []):
            noted.setdefault((b.session_id, b.turn), b)
        texts = [t.text for b in noted.values() for t in b.turns if t.turn in b.hit_turns]
        if not texts:
            texts = [t.text for b in run.first_blocks[:3] for t in b.turns if t.turn in b.hit_turns]
        fed = feedback_keywords(run.question, texts, pack=run.asked.pack)
        if fed and not run.repeats(fed):
            return (fed, None, None)
        used = {w.lower() for k in run.used for w in k}
        rest = [w for w in content_words(run.question, run.asked.pack) if w.lower() not in used]
        if rest and not run.repeats(rest):
            return (rest, None, None)
        return None
