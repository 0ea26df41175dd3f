"""The premise check: a thing the question names that the person's own words never mention.

"What is the name of my hamster?" over notes about a cat named Luna is not answered "Luna": the
history holds no hamster. A small model asked the question answers from whatever the notes hold, and
told to say "not in your history" it rarely does (measured: 0 of 5 LongMemEval abstention questions
with the 1.5B model). So the program looks for the question's named things in the person's own words
of the notes (runs of content words, without the words that only say what kind of answer is wanted,
time words and verbs). For each one whose words no sentence holds together, it asks the model one
narrow yes/no question over the three sentences the rest of the question would answer from: do they
talk about that very thing, perhaps in other words? A "no" ends the run with "not in your history".
A "yes" (Maui for Hawaii, Thai food for cuisines) lets the answer go on. A request for a suggestion
("Any tips?") is left alone: it claims nothing about the past. Questions about the assistant's replies
read the replies too. Before any of that, a question about someone's age needs a sentence that
states it (agent/ages.py): what is missing there is a fact about a written thing, not the thing.

Measured with the 1.5B model before this module was written, over each dev question's answer
sessions: asked about every phrase at once, the model listed them all; asked one phrase at a time,
it said "no" for 3 of the 5 abstention questions and for 4 of the 93 others. It takes "tennis" for
"table tennis": a look-alike of the same kind still gets through.
"""

from __future__ import annotations

import calendar
import re

from ..index.said import person_words
from . import ages, prompts
from .context import stem as prefix_stem
from .eventdays import sentences
from .keywords import STOP_WORDS, content_words
from .render import neutralise
from .run import Run

FRAME_WORDS = frozenset(
    """
    name names named type types kind kinds brand brands color colors colour colours cost costs price
    prices amount amounts date dates age old older younger distance order number numbers total
    different past per whole exact exactly average percent percentage rate value worth size
    """.split()
)
"""Words that say what kind of answer the question wants ("the name of", "what type of", "the total
cost"), not what it is about: a person rarely writes them beside the thing itself."""
TIME_WORDS = frozenset(
    [d.lower() for d in calendar.day_name]
    + [d.lower() + "s" for d in calendar.day_name]
    + [m.lower() for m in calendar.month_name if m]
    + """today tonight tomorrow yesterday morning mornings afternoon afternoons evening evenings night
    nights weekend weekends weekday weekdays weeknight weeknights spring summer autumn fall winter""".split()
)
"""Time words: the search and the date arithmetic read them; a chat's date says them without words."""
_RUN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&+-]*[A-Za-z0-9]|[A-Za-z0-9]|[^\sA-Za-z0-9]")
_TOKEN = re.compile(r"[a-z0-9]+")
_LINKS = frozenset("at in from of for on near".split())
"""Prepositions a named thing's phrase goes on over into a name ("job at Google", "Alex from Germany")."""
_SUBJECTS = frozenset("i you we they he she to".split())
"""Words before a verb: "did I buy", "do we play", "need to redeem"."""
_VERB_FORM = re.compile(r"[a-z](?:ed|ing)$")
_ABOUT_REPLIES = re.compile(
    r"\b(?:you|your)\b.{0,80}\b(?:suggest\w*|recommend\w*|mention\w*|told|said|gave|give|wrote|write|"
    r"list\w*|provid\w*|explain\w*|shar\w*|came up with)\b|\bremind me\b|\b(?:previous|last|earlier|our)\s+"
    r"(?:chat|chats|conversation|conversations|discussion)\b",
    re.IGNORECASE,
)
"""A question about what the assistant wrote ("the hostel you recommended", "our previous chat", "can
you remind me"): its things are in the replies, not in the person's words."""
_REQUEST = re.compile(
    r"\b(?:recommend|suggest|suggestions?|tips?|ideas?|advice|any good|what should i)\b", re.IGNORECASE
)
"""A request for a suggestion ("Any tips?", "Can you recommend a show?"): it claims no past fact, and
the history it draws on (what the person likes) need not name the thing asked for."""
MAX_CHECKS = 2
"""Yes/no calls per question at most (about 250 prompt tokens each)."""
SENTENCES_SHOWN = 3
SENTENCE_CHARS = 300


def stem(word: str) -> str:
    """The crude stem every check here uses: a plural's -s dropped, then the first max(4, n-2) letters
    ("hamsters" and "hamster" -> "hamst")."""
    word = word.lower()
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return prefix_stem(word)


def _tokens(text: str) -> list[str]:
    return [stem(t) for t in _TOKEN.findall(text.lower())]


def _stems(text: str) -> set[str]:
    return set(_tokens(text))


def _skipped(word: str) -> bool:
    low = word.lower().removesuffix("'s")
    if low in STOP_WORDS or low in FRAME_WORDS or low in TIME_WORDS or len(low) < 2:
        return True
    # "purchased", "attending": the question's verbs (a capitalised word is a name: kept)
    return not word[:1].isupper() and bool(_VERB_FORM.search(low))


def phrases(question: str) -> list[str]:
    """The things `question` names: its runs of words between stop-words and punctuation, without
    frame, time and verb-form words, the word right after which/what and the word after a subject
    or "to"; a run goes on over "at", "in", "from" ... (and "the") into a name, whose place it
    says ("What is the total cost of my recently purchased headphones and the iPad?" -> ["headphones",
    "iPad"]; "my current job at Google" -> ["job at Google"])."""
    out: list[str] = []
    run: list[str] = []
    link: list[str] = []  # "at the" after a run, kept while a name may follow

    def close() -> None:
        if run:
            out.append(" ".join(run))
            run.clear()
        link.clear()

    before = ""
    for m in _RUN_WORD.finditer(question):
        token = m.group(0)
        if token in "'’":  # "the Farmers' Market": an apostrophe ends no run
            continue
        word = token.strip("'").removesuffix("'s")
        low = word.lower()
        asked = before in ("which", "what", "whose")
        verb = before in _SUBJECTS and word[:1].islower()
        before = low
        if run and (low in _LINKS and not link or low == "the" and link and len(link) == 1):
            link.append(word)
            continue
        if link and not word[:1].isupper():
            close()
        if not word or not word[0].isalnum() or _skipped(word) or asked or verb:
            # "Which device did I set up first": the word after the question word is the kind of
            # answer wanted, not a thing the question claims; "did I buy", "to redeem": a verb
            # (the person writes "bought")
            close()
        else:
            run.extend(link)
            link.clear()
            run.append(word)
    close()
    return list(dict.fromkeys(out))


def _phrase_stems(phrase: str) -> set[str]:
    return {t for w in phrase.split() if w.lower() not in STOP_WORDS for t in _tokens(w)}


def request(question: str) -> bool:
    """True for a request for a suggestion, which the check leaves alone (see `_REQUEST`)."""
    return bool(_REQUEST.search(question))


def about_replies(question: str) -> bool:
    """True when the question asks what the assistant wrote (then its replies are searched too)."""
    return bool(_ABOUT_REPLIES.search(question))


def unwritten(question: str, texts: list[str]) -> list[str]:
    """The question's `phrases` whose words no one sentence of `texts` holds together."""
    said = [_stems(s) for text in texts for s in sentences(text)]
    out = []
    for phrase in phrases(question):
        own = _phrase_stems(phrase)
        if not any(own <= s for s in said):
            out.append(phrase)
    return out


def closest(question: str, phrase: str, texts: list[str], limit: int = SENTENCES_SHOWN) -> list[str]:
    """The `limit` sentences of `texts` sharing most of the question's other content words (verbs
    included), then most of `phrase`'s: what the rest of the question would answer from, where the
    phrase's thing would be if it were there. Not the sentences nearest the phrase alone: those are
    the look-alikes ("Google Photos" for "my job at Google") a small model takes for the thing."""
    own = _phrase_stems(phrase)
    rest = {t for w in content_words(question) for t in _tokens(w)} - own
    found = [s for text in texts for s in sentences(text) if _stems(s) & (rest | own)]
    found.sort(key=lambda s: (-len(_stems(s) & rest), -len(_stems(s) & own)))
    return found[:limit]


def evidence_texts(run: Run) -> list[str]:
    """The texts the check reads: the person's own words of every noted turn and first-search result
    (the whole turn when the question asks about the assistant's replies)."""
    replies = about_replies(run.question)
    seen: set[tuple[str, int]] = set()
    texts: list[str] = []
    for block in [n.block for n in run.notes] + list(run.first_blocks):
        for view in block.turns:
            ref = (view.session_id, view.turn)
            if ref in seen:
                continue
            seen.add(ref)
            text = view.text if replies else person_words(view.text, view.speaker)
            if text:
                texts.append(text)
    return texts


def check(run: Run) -> str | None:
    """The "not in your history" answer when the question rests on something the notes never say, or
    None: an age no sentence states (agent/ages.py, no model call), else the first unwritten thing the
    model says the notes never mention (at most `MAX_CHECKS` calls)."""
    if request(run.question):
        return None
    texts = evidence_texts(run)
    if not texts:
        return None
    who = ages.unstated(run.question, texts)
    if who is not None:
        return prompts.no_age(neutralise(who, 80, one_line=True))
    for phrase in unwritten(run.question, texts)[:MAX_CHECKS]:
        found = closest(run.question, phrase, texts)
        shown = [neutralise(s, SENTENCE_CHARS, one_line=True) for s in found]
        if shown:
            text = prompts.premise_prompt(shown, neutralise(phrase, 80, one_line=True))
            data = run.ask("premise", text, prompts.PREMISE_SCHEMA, 8, usage_stage="answer")
            if (data or {}).get("mentioned") != "no":
                continue
        return prompts.no_such_thing(neutralise(phrase, 80, one_line=True))
    return None
