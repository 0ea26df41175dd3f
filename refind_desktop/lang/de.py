"""The German pack."""

from __future__ import annotations

import re

from .base import Pack
from .words import alternation, cues

FUNCTION_WORDS = frozenset(
    """
    aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes
    anderm andern anderr anders auch auf aus bei bin bis bist da damit dann der den des dem die das
    dass daß derselbe derselben denselben desselben demselben dieselbe dieselben dasselbe dazu dein
    deine deinem deinen deiner deines denn derer dessen dich dir du dies diese diesem diesen dieser
    dieses doch dort durch ein eine einem einen einer eines einig einige einigem einigen einiger
    einiges einmal er ihn ihm es etwas euer eure eurem euren eurer eures für gegen gewesen hab habe
    haben hat hatte hatten hier hin hinter ich mich mir ihr ihre ihrem ihren ihrer ihres euch im in
    indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein keine
    keinem keinen keiner keines können könnte machen man manche manchem manchen mancher manches mein
    meine meinem meinen meiner meines mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr
    sein seine seinem seinen seiner seines selbst sich sie ihnen sind so solche solchem solchen
    solcher solches soll sollte sondern sonst über um und uns unsere unserem unseren unser unseres
    unter viel vom von vor während war waren warst was weg weil weiter welche welchem welchen welcher
    welches wenn werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur
    zwar zwischen wann wer wem wen wieso warum welchen viele wieviel wieviele
    """.split()
)
"""NLTK's German stop words plus the question words ("wann", "wer", "wie viele")."""

FILLER_WORDS = frozenset(
    """
    erinnere erinnern erinnerst weißt wissen sag sagen sagte gesagt erzählt erzählen geschrieben
    schrieb erwähnt chat chats gespräch gespräche unterhaltung nachricht nachrichten geredet gesprochen
    bitte eigentlich genau ungefähr etwa mal insgesamt zusammen gesamt lange oft zeit zuletzt zuerst
    aktuell derzeit zurzeit momentan gerade inzwischen mittlerweile her seit vergangen damals
    nochmal heißt hieß name namen
    """.split()
)
"""Words of asking ("erinnerst du dich", "in unserem Chat") rather than of the thing asked about."""

NUMBERS = {
    "null": 0,
    "ein": 1,
    "eins": 1,
    "eine": 1,
    "einen": 1,
    "einem": 1,
    "einer": 1,
    "zwei": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    "dreizehn": 13,
    "vierzehn": 14,
    "fünfzehn": 15,
    "sechzehn": 16,
    "siebzehn": 17,
    "achtzehn": 18,
    "neunzehn": 19,
    "zwanzig": 20,
    "dreißig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "sechzig": 60,
    "siebzig": 70,
    "achtzig": 80,
    "neunzig": 90,
    "hundert": 100,
    "einmal": 1,
    "zweimal": 2,
    "dreimal": 3,
    "paar": 2,
    "dutzend": 12,
}
UNITS = {
    "tag": "days",
    "tage": "days",
    "tagen": "days",
    "woche": "weeks",
    "wochen": "weeks",
    "monat": "months",
    "monate": "months",
    "monaten": "months",
    "jahr": "years",
    "jahre": "years",
    "jahren": "years",
}
MONTHS = {
    "januar": 1,
    "jänner": 1,
    "februar": 2,
    "märz": 3,
    "april": 4,
    "mai": 5,
    "juni": 6,
    "juli": 7,
    "august": 8,
    "september": 9,
    "oktober": 10,
    "november": 11,
    "dezember": 12,
    "jan": 1,
    "feb": 2,
    "mär": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "okt": 10,
    "nov": 11,
    "dez": 12,
}
WEEKDAYS = {
    "montag": 0,
    "dienstag": 1,
    "mittwoch": 2,
    "donnerstag": 3,
    "freitag": 4,
    "samstag": 5,
    "sonnabend": 5,
    "sonntag": 6,
}

_N = (
    r"(?P<n>\d{1,3}|ein paar|paar|"
    + alternation(w for w in NUMBERS if w not in ("paar", "einmal", "zweimal", "dreimal", "dutzend"))
    + ")"
)
_UNIT = r"(?P<unit>tag|woche|monat|jahr)(e|en|n)?"
_MONTH = r"(?P<month>" + alternation(MONTHS) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + alternation(WEEKDAYS) + r")"

TIME_RULES = cues(
    ("before_yesterday", r"\bvorgestern\b"),
    ("yesterday", r"\bgestern\b"),
    ("today", r"\bheute\b"),
    ("ago", rf"\bvor {_N} {_UNIT}\b"),
    ("rolling", rf"\bin den (letzten|vergangenen) (?:{_N} )?{_UNIT}\b"),
    ("last_weekend", r"\b(letztes|vergangenes) wochenende\b"),
    ("last_unit", r"\b(letzte[nms]?|vorige[nms]?|vergangene[nms]?) (?P<unit>woche|monat|jahr)\b"),
    ("this_unit", r"\b(diese[nms]?) (?P<unit>woche|monat|jahr)\b"),
    ("weekday", rf"\b(letzten|am|vergangenen) {_WEEKDAY}\b"),
    ("month_day", rf"\b(?P<day>\d{{1,2}})\.\s*{_MONTH}\b(?!\s*\d{{4}})"),
    ("month", rf"\b(?P<lead>im|seit|anfang|ende|mitte) {_MONTH}(?: (?P<year>(19|20)\d\d))?\b"),
    ("month_year", rf"\b{_MONTH},? (?P<year>(19|20)\d\d)\b"),
    ("year", r"\b(?P<lead>im jahr|seit|in) (?P<year>(19|20)\d\d)\b"),
)
"""Relative time expressions (search/timewords.py gives each rule its range; "seit" runs to today)."""

_SPAN_UNITS = r"(tage|wochen|monate|jahre)"
_ADDS = r"insgesamt|zusammen|gesamt"
"""The words that ask to add several amounts up: a "wie viel" question cue, and (with "bisher") the pack's
`adds`."""
_RECALLS = (
    r"gab|gegeben|empfohlen|vorgeschlagen|erwähnt|erzählt|gesagt|genannt|erinner\w*|weißt du noch|"
    r"letzte[sn]? mal|vorhin|damals|besprochen|geredet"
)
"""Words of a question that recalls a suggestion made before (the perfect's participle, a memory verb, an
earlier conversation), not one that asks for a new one: "Welche Tipps hast du mir gegeben?" asks for the
tips said then. Not "früher": "Tipps, um früher aufzustehen?" asks for new ones."""

KIND_CUES = cues(
    (
        "span",
        rf"\bwie viele {_SPAN_UNITS}\b.*\b(her|seit|zwischen|bevor|vor|nach|nachdem|vergangen|später|"
        r"früher|lagen|liegen)\b",
    ),
    ("span", r"\bvor wie vielen (tagen|wochen|monaten|jahren)\b|\bwie lange (ist es her|her|seit)\b"),
    ("order", r"\b(was|wer|welche[srnm]?|wen)\b.*\b(zuerst|erst|früher|eher|vorher|später)\b.*\boder\b"),
    ("order", r"\bin welcher reihenfolge\b"),
    ("difference", r"\bwie ?viel(e)? (mehr|weniger)\b|\bum wie ?viel\b|\bunterschied zwischen\b"),
    (
        "total",
        rf"\bwie ?viel\b.*\b({_ADDS}|ausgegeben|bezahlt|gezahlt|gekostet|gespendet|"
        r"gespart|verdient)\b",
    ),
    ("total", r"\bwie viele (stunden|minuten|kilometer|km|seiten)\b"),
    ("span", r"\bwie viele (tage|wochen|monate|jahre)\b"),
    ("count", r"\bwie ?viele\b|\bwie oft\b|\banzahl (der|an|von)\b"),
    ("total", r"\binsgesamt\b"),
    ("when", r"^\s*wann\b|\ban welchem (tag|datum)\b|\bwelche[sn]? datum\b|\bin welchem (jahr|monat)\b"),
    (
        "latest",
        r"\b(aktuell|derzeit|zurzeit|jetzt|momentan|noch|inzwischen|mittlerweile|neueste[nrs]?|"
        r"gerade|normalerweise|meistens)\b",
    ),
    (
        "recommend",
        rf"^(?!.*\b({_RECALLS})\b).*"
        r"\b(empfiehl\w*|empfehl\w*|vorschl\w*|schlag\w* vor|tipps?|ideen?|was soll(te)? ich)\b",
    ),
    ("list", r"^\s*(was|welche[srnm]?|wo|wohin|wer|wen|wem)\b.*\b(alles|alle)\b"),
    (
        "lookup",
        r"^\s*(kannst|könntest|weißt|erinnerst)\s+du\b.*\b(was|welche[rsnm]?|wer|wen|wem|wo|wie|warum)\b",
    ),
    ("yesno", r"^\s*(hat|habe|hast|hatte|hatten|ist|war|bin|sind|waren|kann|konnte|wird|gibt es|gab es)\b"),
)
"""Question cues, first match wins (the same kinds and order as the English pack)."""

ANSWER_TYPES = cues(
    ("number", r"\bwie (viele?|lange|alt|weit|oft|groß|schwer|schnell)\b|\bwieviele?\b|\banzahl\b"),
    ("date", r"^\s*wann\b|\ban welchem (tag|datum)\b|\bwelche[sn]? datum\b|\bin welchem (jahr|monat)\b"),
    ("person", r"^\s*(wer|wen|wem|wessen)\b|\b(mit|von|für|bei|zu) wem\b"),
    ("place", r"^\s*(wo|wohin|woher)\b"),
    ("kind", r"^\s*welche[srnm]?\s+(?P<noun>\w+)\b"),
)
"""The type of thing an answer must be, by the question's asking words (first match wins)."""

PHRASES = {
    "not_found": "Das steht nicht in deinem Verlauf: Ich habe {read} Abschnitte deiner Chats gelesen, "
    "und keiner sagt es.",
    "closest": "Keiner der {read} gelesenen Abschnitte sagt es klar; am nächsten kommt: {quote} {tag}",
    "no_notes": "Das steht nicht in deinem Verlauf: Ich habe in deinen Chats nichts dazu gefunden.",
    "count": "Insgesamt {n}: {items}.",
    "total": "Insgesamt {total}: {items}.",
    "difference": "{diff} ({a} und {b}).",
    "span": "{n} {unit}: {items}.",
    "span_now": "Vor {n} {unit}: {item}.",
    "order": "Zuerst {items}.",
    "then": ", dann ",
    "when": "{day}: {item}.",
    "latest": "{item} (die neueste von {n} Erwähnungen).",
    "list": "{items}.",
    "day": "{d}. {month} {y}",
    "week": "die Woche ab Montag, {day}",
    "days": "Tage",
    "weeks": "Wochen",
    "months": "Monate",
    "years": "Jahre",
    "said_on": "gesagt am {day}",
    "unsure": "Unsicher: {why} Die Abschnitte, die am nächsten kommen:",
    "why_type": "Was ich gelesen habe, ist nicht {expected}, wonach die Frage fragt.",
    "why_about": "Der Beitrag, den ich zitieren würde, handelt nicht von dem, wonach gefragt ist.",
    "why_answers": "Der Beitrag, den ich zitieren würde, beantwortet die Frage nicht klar.",
    "why_part": "Keiner der Beiträge, die ich aufzählen würde, handelt von dem, wonach gefragt ist.",
    "why_echo": "Was ich gelesen habe, wiederholt nur die Worte der Frage.",
    "why_compute": "Ich konnte die Antwort aus dem Gelesenen nicht ausrechnen.",
    "why_whole": "Ich habe im Gelesenen {n} gezählt, kann aber nicht sagen, dass das alle sind und jedes dazuzählt.",
    "why_time": "Was ich gelesen habe, ist aus einer anderen Zeit als der, nach der die Frage fragt.",
    "why_own": "Das sagt nur eine Antwort des Assistenten, nie deine eigenen Worte in diesem Chat.",
    "why_pair": "Das Gelesene erzählt nicht von beiden Ereignissen, die die Frage nennt.",
    "why_unnamed": "Ich konnte nicht erkennen, zwischen welchen zwei Ereignissen die Frage misst.",
    "why_one": "Ich habe im Gelesenen nur einen Betrag gefunden, die Frage zählt aber mehrere zusammen, und ich kann nicht sagen, dass er alles ist.",
    "why_sum": "Ich habe {n} gelesene Beträge addiert, kann aber nicht sagen, dass das alle sind und jeder dazuzählt.",
    "why_closest": "Keiner der {read} gelesenen Abschnitte sagt es klar.",
    "type_number": "eine Zahl",
    "type_date": "ein Datum",
    "type_person": "eine Person",
    "type_place": "ein Ort",
    "type_kind": "ein(e) {noun}",
}
"""The answer sentences the program writes."""

PACK = Pack(
    code="de",
    name="German",
    stemmer="german",
    function_words=FUNCTION_WORDS,
    filler_words=FILLER_WORDS,
    first_person=frozenset("ich mich mir mein meine meinem meinen meiner meines".split()),
    second_person=frozenset("du dich dir dein deine deinem deinen deiner deines".split()),
    habit_words=frozenset("normalerweise meistens aktuell derzeit zurzeit jetzt noch immer oft".split()),
    numbers=NUMBERS,
    units=UNITS,
    months=MONTHS,
    weekdays=WEEKDAYS,
    kind_cues=KIND_CUES,
    alternative=re.compile(r"\boder\b", re.IGNORECASE),
    joins=re.compile(r"\bund\b|\bals\b", re.IGNORECASE),
    span_from=re.compile(r"\bzwischen\b|\bseit\b", re.IGNORECASE),
    money_words=frozenset(
        """geld ausgegeben ausgeben ausgelegt bezahlt bezahlen gezahlt zahlen kosten kostet kostete gekostet
        preis preise teurer billiger günstiger gespendet spenden verdient miete gehalt rechnung""".split()
    ),
    money_units={"euro": "€", "eur": "€", "dollar": "$", "usd": "$"},
    adds=re.compile(rf"\b({_ADDS}|bisher)\b", re.IGNORECASE),
    since_now=re.compile(r"\bher\b|\bvor wie vielen\b|\bseit\b", re.IGNORECASE),
    between=re.compile(
        r"\bwann\b|\bzwischen\b|\bbevor\b|\bnachdem\b|\bvor dem\b|\bnach dem\b", re.IGNORECASE
    ),
    occurrences=frozenset("mal male".split()),
    counted=re.compile(
        r"\b(?:wie ?viele|anzahl (?:der|an|von))\s+(?:verschiedene[n]?\s+)?(?P<thing>[^?.,;]+?)"
        r"(?=\s+(?:habe|hat|hast|haben|hatte|hatten|ist|sind|war|waren|wurde|wurden|ich|wir|du|er|sie|es|"
        r"in|im|am|an|für|von|vom|zu|seit|bisher|insgesamt)\b|\s*[?.,;]|\s*$)",
        re.IGNORECASE,
    ),
    time_rules=TIME_RULES,
    time_distance=re.compile(
        r"\bwie viele (tage|wochen|monate|jahre)\b[^?.!]*\bher\b|\bvor wie vielen\b|\bwie lange (ist es )?her\b",
        re.IGNORECASE,
    ),
    phrases=PHRASES,
    answer_types=ANSWER_TYPES,
    abstain=re.compile(r"\b(nicht (in|erwähnt|gefunden)|keine (information|angabe)|weiß nicht)\b", re.I),
)
