"""The shape of a language pack: every word list or cue the pipeline needs for one language."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

CURRENCIES = "$€£¥"
"""Signs an amount of money is written with (the same in every language; a pack's `money_units` maps its
currency words to them)."""


@dataclass(frozen=True)
class Pack:
    """One language's words. The pipeline asks the pack; it never holds a word list of its own."""

    code: str
    """ISO 639-1 code ("en", "de")."""
    name: str
    """The language's English name ("English")."""
    stemmer: str
    """The name tantivy's Snowball stemmer and stop-word filter know it by ("english", "german")."""
    function_words: frozenset[str]
    """Generic function words (pronouns, articles, auxiliaries): a search never ranks by them."""
    filler_words: frozenset[str]
    """Words of asking rather than of the thing asked about ("remind", "conversation", "tell")."""
    first_person: frozenset[str]
    """The words that make a question about the person who asks it ("I", "my")."""
    second_person: frozenset[str]
    """The words that address the assistant ("you", "your"): a question about what it said."""
    habit_words: frozenset[str]
    """Words of a habit or present state ("usually", "currently") a person also writes when stating it."""
    numbers: Mapping[str, int]
    """Number words and their values ("two": 2)."""
    units: Mapping[str, str]
    """Calendar unit words and the unit they name ("weeks": "weeks")."""
    months: Mapping[str, int]
    """Month names (and unambiguous abbreviations) and their numbers."""
    weekdays: Mapping[str, int]
    """Weekday names and their numbers (Monday = 0)."""
    kind_cues: tuple[tuple[str, re.Pattern[str]], ...]
    """(kind, pattern) in order: the first pattern found in a question decides its kind."""
    since_now: re.Pattern[str]
    """A span question measured from one event to the question's time ("how long ago")."""
    between: re.Pattern[str]
    """A span question between two events ("between", "before"): never measured to now."""
    occurrences: frozenset[str] = frozenset()
    """Words a count of occurrences counts ("how many times"): no thing a turn would name."""
    counted: re.Pattern[str] | None = None
    """What a "how many" question counts, as its group "thing" ("how many ramen bars have I ...")."""
    time_rules: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """Relative time expressions of a question (search/timewords.py reads them; named groups n, unit,
    weekday, month, day, year, lead)."""
    time_distance: re.Pattern[str] | None = None
    """A question about a distance in time itself ("how many days ago"): not a date range."""
    phrases: Mapping[str, str] = field(default_factory=dict)
    """Answer sentences the program writes, with {placeholders} (see en.py for the keys)."""
    abstain: re.Pattern[str] | None = None
    """An answer that says the information is not there."""
    alternative: re.Pattern[str] | None = None
    """The word that sets two things against each other ("or"): an order question's two options."""
    joins: re.Pattern[str] | None = None
    """The word that joins the two events a span is measured between ("and" of "between … and …", "when"
    of "since … when …"): a span question's two events."""
    span_from: re.Pattern[str] | None = None
    """The word after which a span question names its first event ("between", "since")."""
    money_words: frozenset[str] = frozenset()
    """Words of a question that asks for an amount of money ("spend", "cost"): only amounts written as
    money answer it."""
    money_units: Mapping[str, str] = field(default_factory=dict)
    """Currency words and the sign they stand for ("euros": "€")."""
    adds: re.Pattern[str] | None = None
    """The words that ask to add several amounts up ("in total", "altogether"): one amount read does not
    settle such a total."""
    plural_endings: tuple[str, ...] = ()
    """Endings of a plural noun ("s"): a "what"/"which" question whose noun ends so and that the index's
    stemmer shortens asks for several things ("Which books …?")."""
    answer_types: tuple[tuple[str, re.Pattern[str]], ...] = ()
    """(type, pattern) in order, the first found in a question decides the type of thing its answer must
    be: "number", "date", "person", "place", or "kind" (a thing of the kind the pattern's group "noun"
    names: "which bike"); a question that matches none may be answered by anything."""

    @cached_property
    def plain_words(self) -> frozenset[str]:
        """The function words and the words of asking: what says nothing of the thing asked about."""
        return self.function_words | self.filler_words

    def number(self, word: str) -> int | None:
        """The value of a number word or of digits, else None."""
        w = word.lower()
        if w.isdigit():
            return int(w)
        return self.numbers.get(w)

    def say(self, key: str, **values: object) -> str:
        """One of the pack's answer phrases with its placeholders filled."""
        return self.phrases[key].format(**values)

    def month_name(self, month: int) -> str:
        """The full name of a month (1-12) as this language writes it."""
        names = [n for n, m in self.months.items() if m == month]
        return max(names, key=len).capitalize() if names else str(month)
