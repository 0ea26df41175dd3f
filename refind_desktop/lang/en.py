"""The English pack."""

from __future__ import annotations

import calendar
import re

from .base import Pack
from .words import alternation, cues

FUNCTION_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
    her hers herself it its itself they them their theirs themselves what which who whom this that
    these those am is are was were be been being have has had having do does did doing a an the and
    but if or because as until while of at by for with about against between into through during
    before after above below to from up down in out on off over under again further then once here
    there when where why how all any both each few more most other some such no nor not only own
    same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn
    doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn many much
    """.split()
)
"""NLTK's English stop words (apostrophes split off, as the index's query cleaner does) plus the
quantifiers "many" and "much" of "how many" / "how much"."""

FILLER_WORDS = frozenset(
    """
    tell remind remember recall know think wondering wanted want wonder looking look back mentioned
    mention said say says told ask asked previous conversation conversations chat chats talked talk
    discussed discuss earlier please could kind sort thing things something anything one ones lot lots
    long often total number times time recently currently current previously usually last first since
    passed ago take took taken go went going get getting got make made would also ever let's like
    """.split()
)
"""Words of asking ("remind me", "our previous conversation", "how long") rather than of the thing."""

NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
NUMBERS |= {"hundred": 100, "a": 1, "an": 1, "once": 1, "twice": 2, "dozen": 12, "couple": 2, "few": 3}

UNITS = {
    "day": "days",
    "days": "days",
    "week": "weeks",
    "weeks": "weeks",
    "month": "months",
    "months": "months",
    "year": "years",
    "years": "years",
}
MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m and m.lower() != "may"}
WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}

_N = (
    r"(?P<n>\d{1,3}|a couple of|couple of|a few|few|couple|an|a|"
    + alternation(w for w in NUMBERS if w not in ("a", "an", "few", "couple", "once", "twice"))
    + ")"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_MONTH = r"(?P<month>" + alternation(MONTHS) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + alternation(WEEKDAYS) + r")"

TIME_RULES = cues(
    ("before_yesterday", r"\bthe day before yesterday\b"),
    ("yesterday", r"\byesterday\b"),
    ("today", r"\btoday\b|\bthis (morning|afternoon|evening)\b|\btonight\b"),
    ("ago", rf"\b{_N} {_UNIT} ago\b"),
    ("rolling", rf"\b(in|over|during|within|for) the (last|past) (?:{_N} )?{_UNIT}\b"),
    ("last_weekend", r"\blast weekend\b"),
    ("last_unit", r"\b(?<!the )(?:last|previous) (?P<unit>week|month|year)\b"),
    ("last_unit", r"\bthe previous (?P<unit>week|month|year)\b"),
    ("this_unit", r"\bthis (?P<unit>week|month|year)\b"),
    ("weekday", rf"\b(last|on|this past|past) {_WEEKDAY}\b(?! (mornings|afternoons|evenings|nights)\b)"),
    ("month_day", rf"\b{_MONTH} (?P<day>\d{{1,2}})(st|nd|rd|th)?\b(?!,? ?\d{{4}})"),
    (
        "month",
        rf"\b(?P<lead>in|during|since|early|late|mid|last|of|through) (early |late |mid-?)?{_MONTH}"
        r"(?: (?P<year>(19|20)\d\d))?\b",
    ),
    ("month", rf"\b(?P<lead>and|or) (?!may\b){_MONTH}(?: (?P<year>(19|20)\d\d))?\b"),
    ("month_year", rf"\b{_MONTH},? (?P<year>(19|20)\d\d)\b"),
    ("year", r"\b(?P<lead>in|during|since) (?P<year>(19|20)\d\d)\b"),
)
"""Relative time expressions (search/timewords.py gives each rule its range)."""

_SPAN_UNITS = r"(days?|weeks?|months?|years?|time)"
_ADDS = r"total|altogether|combined|in all|so far|overall"
"""The words that ask to add several amounts up: a "how much" question cue, and the pack's `adds`."""
_RECALLS = (
    r"did|gave|told|suggested|recommended|mentioned|shared|remind|remember|recall|last time|you said|"
    r"previous|previously|looking back|we (talked|discussed|chatted)"
)
"""Words of a question that recalls a suggestion made before (a past tense, a memory verb, an earlier
conversation), not one that asks for a new one: "What tips did you give me?" asks for the tips said then.
Not "earlier": "Any tips for getting up earlier?" asks for new ones."""

KIND_CUES = cues(
    (
        "span",
        rf"\bhow (many|much) {_SPAN_UNITS}\b.*\b(ago|since|passed|between|before|after|elapsed|went by|"
        r"had it been|apart|until|till|earlier|later)\b",
    ),
    ("span", r"\bhow long (ago|since|before|after|had it been|has it been|was it between)\b"),
    (
        "order",
        r"\b(which|what|who)\b.*\b(first|earlier|before|later|sooner|more recently|most recently)\b.*\bor\b",
    ),
    ("order", r"\bin what order\b|\bwhat (was|is) the order\b"),
    (
        "difference",
        r"\bhow (much|many)(\s+\w+)?\s+(more|less|fewer|longer|shorter|older|younger|bigger|higher|"
        r"lower|cheaper|faster|slower|further|farther)\b|\bdifference (between|in)\b",
    ),
    (
        "total",
        rf"\bhow much\b.*\b({_ADDS}|spend|spent|pay|paid|"
        r"raise|raised|earn|earned|save|saved|donate|donated)\b",
    ),
    ("total", r"\bhow many (hours|minutes|miles|kilometers|km|pages|calories)\b"),
    ("span", r"\bhow many (days|weeks|months|years)\b"),
    ("count", r"\bhow many\b|\bhow often\b|\b(the )?(total )?number of \w+s\b|\bcount of\b"),
    ("total", r"\b(total|altogether|combined)\b"),
    ("when", r"^\s*when\b|\b(what|which) (date|day|year|month)\b|\bon what (date|day)\b"),
    (
        "latest",
        r"\b(current|currently|now|still|these days|nowadays|most recent|most recently|latest|"
        r"at the moment|right now|anymore|usually)\b",
    ),
    (
        "recommend",
        rf"^(?!.*\b({_RECALLS})\b).*"
        r"\b(recommend|recommendations?|suggest|suggestions?|tips?|ideas?|advice|any good|what should i|"
        r"should i try)\b",
    ),
    ("list", r"^\s*(list|name)\b"),
    (
        "lookup",
        r"^\s*(can|could|would|will|do|did)\s+you\s+(please\s+)?(remind|tell|recall|remember|say|show|"
        r"know)\b.*\b(what|which|who|whom|whose|where|how|why)\b",
    ),
    ("yesno", r"^\s*(did|do|does|have|has|had|is|are|was|were|am|can|could|will)\b"),
)
"""Question cues, first match wins: a span between events or to now, an order, a difference, a total
(a sum: "in total", "the total cost of"), a count (also one that may have changed, "how many do I have
now": its answerer takes the newest count written), a date, a present state, a request for a suggestion
(not one that recalls a suggestion made before, `_RECALLS`: "which book did you recommend", "the tips you gave me" ask for a thing said), a request to list things, a request to tell or recall a thing ("can you remind me what …" asks for the thing, not for yes or no), a yes/no question."""

ANSWER_TYPES = cues(
    ("number", r"\bhow (many|much|long|old|far|often|tall|big|heavy|fast)\b|\b(the )?(number|amount) of\b"),
    ("date", r"^\s*when\b|\b(what|which) (date|day|year|month)\b|\bon what (date|day)\b"),
    ("person", r"^\s*(who|whom|whose)\b|\b(with|to|from|for|by) whom\b"),
    ("place", r"^\s*where\b|\bfrom where\b"),
    (
        "kind",
        r"^\s*(?:what|which)\s+(?P<noun>(?!(?:is|was|are|were|do|does|did|have|has|had|can|could|will|would|should|kind|sort|type)\b)[a-z][a-z-]+)\b",
    ),
)
"""The type of thing an answer must be, by the question's asking words (first match wins)."""

PHRASES = {
    "not_found": "That is not in your history: I read {read} passages of your chats and none says it.",
    "closest": "None of the {read} passages I read states it plainly; the closest is: {quote} {tag}",
    "no_notes": "That is not in your history: I found nothing about it in your chats.",
    "count": "{n} in total: {items}.",
    "total": "{total} in total: {items}.",
    "difference": "{diff} ({a} and {b}).",
    "span": "{n} {unit}: {items}.",
    "span_now": "{n} {unit} ago: {item}.",
    "order": "First {items}.",
    "then": ", then ",
    "when": "{day}: {item}.",
    "latest": "{item} (the newest of {n} mentions).",
    "list": "{items}.",
    "day": "{d} {month} {y}",
    "week": "the week of Monday {day}",
    "days": "days",
    "weeks": "weeks",
    "months": "months",
    "years": "years",
    "said_on": "said on {day}",
    "unsure": "Unsure: {why} The passages that come closest:",
    "why_type": "what I read is not {expected}, which the question asks for.",
    "why_about": "the turn I would cite does not tell of what the question asks about.",
    "why_answers": "the turn I would cite does not plainly answer the question.",
    "why_part": "none of the turns I would list tells of what the question asks about.",
    "why_echo": "what I read only repeats the question's own words.",
    "why_compute": "I could not work the answer out from what I read.",
    "why_whole": "I counted {n} in what I read, but I cannot tell that this is all of them, nor that each one counts.",
    "why_time": "what I read is from another time than the one the question names.",
    "why_own": "only an assistant's reply says it, never your own words in that chat.",
    "why_pair": "what I read does not tell of both events the question names.",
    "why_unnamed": "I could not tell which two events the question measures between.",
    "why_one": "I found one amount in what I read, but the question adds several up, and I cannot tell that it is all of them.",
    "why_sum": "I added up {n} amounts I read, but I cannot tell that they are all of them, nor that each one counts.",
    "why_closest": "none of the {read} passages I read states it plainly.",
    "type_number": "a number",
    "type_date": "a date",
    "type_person": "a person",
    "type_place": "a place",
    "type_kind": "a {noun}",
}
"""The answer sentences the program writes."""

ABSTAIN = re.compile(
    r"\b(not (in|mentioned|found|stated)|no (information|mention|record)|unknown|i don't know|"
    r"cannot (find|tell|determine))\b",
    re.IGNORECASE,
)

PACK = Pack(
    code="en",
    name="English",
    stemmer="english",
    function_words=FUNCTION_WORDS,
    filler_words=FILLER_WORDS,
    first_person=frozenset("i me my mine myself".split()),
    second_person=frozenset("you your yours yourself".split()),
    habit_words=frozenset(
        "usually currently often always normally typically regularly nowadays now still time times".split()
    ),
    numbers=NUMBERS,
    units=UNITS,
    months=MONTHS,
    weekdays=WEEKDAYS,
    kind_cues=KIND_CUES,
    alternative=re.compile(r"\bor\b", re.IGNORECASE),
    joins=re.compile(r"\band\b|\bwhen\b", re.IGNORECASE),
    span_from=re.compile(r"\bbetween\b|\bsince\b", re.IGNORECASE),
    money_words=frozenset(
        """money spend spent spending cost costs costing pay paid pays paying price prices priced expensive
        cheaper pricier afford budget earn earned raise raised donate donated fee fees fare fares rent salary
        bill bills""".split()
    ),
    money_units={
        "dollar": "$",
        "dollars": "$",
        "bucks": "$",
        "usd": "$",
        "euro": "€",
        "euros": "€",
        "eur": "€",
    },
    adds=re.compile(rf"\b({_ADDS})\b", re.IGNORECASE),
    since_now=re.compile(r"\bago\b|\bhas it been\b|\bsince\b.*\?\s*$", re.IGNORECASE),
    between=re.compile(r"\bwhen\b|\bbetween\b|\bbefore\b|\bafter\b", re.IGNORECASE),
    occurrences=frozenset("times time occasions".split()),
    counted=re.compile(
        r"\b(?:how many|number of)\s+(?:different\s+|distinct\s+|kinds of\s+|types of\s+)?(?P<thing>[^?.,;]+?)"
        r"(?=\s+(?:did|do|does|have|has|had|are|is|was|were|will|would|can|could|i|we|you|he|she|they|in|on|at|"
        r"for|from|to|of|during|since|this|that|so far|in total)\b|\s*[?.,;]|\s*$)",
        re.IGNORECASE,
    ),
    time_rules=TIME_RULES,
    time_distance=re.compile(
        r"\bhow (many|much) (days?|weeks?|months?|years?|time)\b[^?.!]*\bago\b|\bhow long ago\b",
        re.IGNORECASE,
    ),
    phrases=PHRASES,
    abstain=ABSTAIN,
    answer_types=ANSWER_TYPES,
    plural_endings=("s",),
)
