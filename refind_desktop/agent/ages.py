"""The age check: a question asks how old someone is, and no sentence that names them states an age.

"How old will Rachel be when I get married?" over notes where Rachel is only getting married has
no answer in the history: nothing says how old she is. A small model answers it anyway (measured:
"Rachel will be 30 years old", cited to the turn about her wedding). Counting, summing and date
arithmetic are the program's; an age is a fact the person wrote or did not. So before the answer
the program looks for an age where one could be: in a sentence of the person's own words that names
the person asked about (for "I", any of their sentences). An age is a number of years old, an age
or birthday number, "turned 30", "born in", "in her thirties", or a number right after "X is". None
found: the answer is "not in your history". The check makes no model call.
"""

from __future__ import annotations

import re

from .eventdays import sentences

_NUMBER = (
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|a hundred)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
)
_DECADE = r"(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties|\d0s|\d0's)"
AGE = re.compile(
    rf"\b{_NUMBER}[- ](?:years?|yrs?|months?)(?:[- ]old|\b)|\b(?:age|aged|ages)\s+(?:of\s+)?{_NUMBER}\b"
    rf"|\bturn(?:s|ed|ing)?\s+{_NUMBER}\b|\bborn\b|\bbirthday\b"
    rf"|\bin\s+(?:my|his|her|their|our|your)\s+(?:early\s+|mid\s+|mid-|late\s+)?{_DECADE}"
    rf"|\b(?:is|was|am|are|were|'s|'m|’s|’m)\s+(?:now\s+|just\s+|only\s+|almost\s+|nearly\s+|about\s+|"
    rf"around\s+|turning\s+)?{_NUMBER}\b(?!\s*(?:%|percent|miles?|km|kilometers?|minutes?|hours?|days?|"
    rf"weeks?|times?|pounds?|lbs?|kg|dollars?|euros?|feet|ft|inches|cm|am|pm|a\.m\.|p\.m\.))",
    re.IGNORECASE,
)
"""An age in a sentence: "30 years old", "a 5-year-old", "aged 12", "turned 40", "born in 1990", "her
21st birthday", "in her thirties", "she's 30" (a number of miles, minutes, dollars... is not one). It
leans towards letting the answer go on: any number of years or months counts ("for 5 years"), and so
does a bare "birthday"; a wrong "not in your history" costs the person an answer the notes hold."""
_ASKED = re.compile(
    r"(?i:\bhow\s+old\s+(?:is|was|will|would|am|are|were)\s+(?:my\s+|our\s+)?"
    r"(?:(?:friend|brother|sister|son|daughter|mother|father|mom|dad|partner|wife|husband|cousin|niece|"
    r"nephew|boss|colleague|coworker|neighbou?r|grandma|grandpa|aunt|uncle|dog|cat)\s+)?)"
    r"(?P<who>I\b|[A-Z][\w'’-]*)"
)
"""Whose age the question asks, by name: "how old will Rachel be", "how old was I", "how old is my
friend Maya" (a bare "my son" names nobody the sentences could be searched for: not checked)."""
_NOT_A_NAME = frozenset("the a an this that these those it he she they we you his her their".split())


def asked_about(question: str) -> str | None:
    """Whose age `question` asks ("Rachel", "I"), or None when it asks none by name."""
    m = _ASKED.search(question)
    if not m:
        return None
    who = m.group("who")
    if who.lower() in _NOT_A_NAME:
        return None
    return who


def _names(sentence: str, who: str) -> bool:
    """Whether `sentence` names `who` (each of its words, a possessive too; "I": any sentence)."""
    if who == "I":
        return True
    low = sentence.lower()
    return all(re.search(rf"\b{re.escape(w.lower())}\b", low) for w in who.split())


def unstated(question: str, texts: list[str]) -> str | None:
    """The person the question asks the age of when no sentence of `texts` naming them states an
    age; None when it asks none or one is stated."""
    who = asked_about(question)
    if who is None:
        return None
    for text in texts:
        for sentence in sentences(text):
            if _names(sentence, who) and AGE.search(sentence):
                return None
    return who
