"""Language packs: detection, question kinds and time words in English and German."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from refind_desktop.agent.question import understand
from refind_desktop.lang import PACKS, detect, detect_many, language_of, pack_for
from refind_desktop.search.timewords import resolve

NOW = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)


def test_detection_tells_english_and_german_apart_and_says_so_when_it_cannot():
    assert detect("When did I buy the new bike for my daughter?") == "en"
    assert detect("Wann habe ich das neue Fahrrad für meine Tochter gekauft?") == "de"
    assert detect("ok") is None and detect("") is None
    assert detect_many(["Hallo, wie geht's?", "Ich bin morgen im Büro und komme danach vorbei."]) == "de"


def test_a_short_question_naming_a_foreign_name_keeps_its_own_language():
    # lingua's fast mode read these English questions as German or Finnish; questions are told apart
    # among the languages with a pack, in its high-accuracy mode
    now = datetime(2024, 6, 1, tzinfo=UTC)
    for text in ("Where did I buy the Meindl boots?", "What is the name of my tortoise?"):
        assert understand(text, now, UTC).lang == "en"
    for text in ("Wie heißt Tobias’ Katze?", "Wann hat Mira ihren Pass abgeholt?"):
        assert understand(text, now, UTC).lang == "de"


def test_a_question_keeps_the_language_of_its_grammar_words_whatever_nouns_it_names():
    # names and nouns travel between languages, the words that hold a question together do not
    for text in (
        "Where did I park the Volkswagen?",
        "How often did I go to the Biergarten in München?",
        "What did Jürgen say about the Autobahn?",
    ):
        assert language_of(text, "de") == "en", text
        assert understand(text, NOW, UTC, default_lang="de").lang == "en", text
    for text in ("Wann war ich beim Zahnarzt?", "Was hat Tobias gekauft?", "Wo ist der Schlüssel?"):
        assert language_of(text, "en") == "de", text


def test_a_question_of_names_alone_takes_the_archive_language():
    assert language_of("Spotify?", "de") == "de"
    assert language_of("Spotify?", "en") == "en"
    assert language_of("Spotify?") == "en"
    assert language_of("Spotify?", "xx") == "en"  # an archive language without a pack


def test_every_pack_fills_every_answer_phrase():
    keys = set(PACKS["en"].phrases)
    for pack in PACKS.values():
        assert set(pack.phrases) == keys, pack.code
        assert pack.stemmer and pack.function_words and pack.kind_cues


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many days ago did I start the pottery class?", "span"),
        ("How many weeks passed between the wedding and my trip to Rome?", "span"),
        ("Which did I visit first, the aquarium or the zoo?", "order"),
        ("How much more did the sofa cost than the table?", "difference"),
        ("How much did I spend on gifts in total?", "total"),
        ("How many hours did I spend on the puzzle?", "total"),
        ("How many books have I read this year?", "count"),
        ("How often did the plumber come?", "count"),
        ("How many days was I in Croatia?", "span"),
        ("Wie oft musste der Techniker kommen?", "count"),
        ("Wie viele Tage war Nina in Kroatien?", "span"),
        ("How many plants do I currently have?", "count"),
        ("What is my phone number at work?", "lookup"),
        ("When did I get my first tattoo?", "when"),
        ("Where do I currently live?", "latest"),
        ("Can you recommend a podcast for my commute?", "recommend"),
        ("Did I ever go to Japan?", "yesno"),
        ("Can you remind me which hotel we booked in Lisbon?", "lookup"),
        ("Do you remember where I parked the van?", "lookup"),
        ("Do Anna and Tom cook with what they grow?", "yesno"),
        ("Kannst du mir sagen, wie die Zahnärztin heißt?", "lookup"),
        ("Hat Mira den Zug nach Wien gebucht?", "yesno"),
        ("What is the name of my sister's dog?", "lookup"),
        ("Wie viele Tage sind zwischen dem Umzug und der Party vergangen?", "span"),
        ("Vor wie vielen Wochen war ich beim Zahnarzt?", "span"),
        ("Was war zuerst, das Konzert oder der Urlaub?", "order"),
        ("Wie viel haben wir insgesamt für den Grill ausgegeben?", "total"),
        ("Wie viele Bücher hat Nina gelesen?", "count"),
        ("Wie viele Bücher hat Nina insgesamt gelesen?", "count"),
        ("How many concerts have I been to in total?", "count"),
        ("How many hours did I practise in total?", "total"),
        ("What was the total cost of the flights?", "total"),
        ("Wann war die Einweihungsparty?", "when"),
        ("Wie hoch ist die Miete aktuell?", "latest"),
        ("Wie heißt der Hund von Emil?", "lookup"),
        ("Was ist meine Telefonnummer?", "lookup"),
    ],
)
def test_question_kinds_come_from_the_questions_language_pack(question, kind):
    assert understand(question, NOW, UTC).kind == kind


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Any ideas for a rainy Sunday with the kids?", True),
        ("I was thinking of baking bread this weekend. Any tips?", True),
        ("What should I cook for my parents on Friday?", True),
        ("Kannst du mir ein Buch für den Urlaub empfehlen?", True),
        ("Hast du Tipps für den Umzug?", True),
        ("Any tips for getting up earlier on weekdays?", True),
        ("Hast du Tipps, wie ich früher aufstehe?", True),
        ("Which podcast did you recommend for my commute?", False),
        ("What were the tips you gave me for my sourdough starter?", False),
        ("Which restaurant did Jonas suggest for our anniversary?", False),
        ("Can you remind me of the stretching tips from our previous chat?", False),
        ("Welches Buch hast du mir für den Urlaub empfohlen?", False),
        ("Welche Tipps hat Lena mir letztes Mal für den Umzug gegeben?", False),
    ],
)
def test_a_request_for_a_suggestion_is_one_and_a_question_that_recalls_one_is_not(question, asks):
    # a suggestion is written fresh and claims no fact; a suggestion made before is a thing said, so its
    # answer is read from the chats and checked like any other
    assert (understand(question, NOW, UTC).kind == "recommend") is asks


def test_a_question_knows_its_language_unit_and_whether_it_runs_to_now():
    q = understand("Vor wie vielen Wochen war ich beim Zahnarzt?", NOW, UTC)
    assert (q.lang, q.unit, q.since_now, q.between) == ("de", "weeks", True, False)
    between = understand("How many days passed between my move and the party?", NOW, UTC)
    assert (between.lang, between.unit, between.since_now, between.between) == ("en", "days", False, True)
    # a question too short to tell takes the archive's language
    assert understand("Wann war Emi in Berlin?", NOW, UTC, default_lang="de").lang == "de"


@pytest.mark.parametrize(
    ("question", "adds"),
    [
        ("How much did I spend on concert tickets in total?", True),
        ("How much have we saved so far for the trip?", True),
        ("Wie viel haben wir insgesamt für den Grill ausgegeben?", True),
        ("How much did I pay for the bike saddle?", False),
        ("Wie viel hat der neue Sattel gekostet?", False),
        ("How many climbing gyms have I been to in total?", False),  # a count, not amounts
    ],
)
def test_a_total_knows_whether_it_adds_several_amounts_up(question, adds):
    assert understand(question, NOW, UTC).adds is adds


def test_the_subject_keeps_what_is_asked_about_and_drops_words_of_asking():
    assert understand("Can you remind me what my sister's dog is called?", NOW, UTC).subject == (
        "sister",
        "dog",
        "called",
    )
    # "heißt" is one word: nothing cuts a word at a letter outside a-z
    assert understand("Wie heißt der Hund von Emil?", NOW, UTC).subject == ("Hund", "Emil")


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Was habe ich letzte Woche gekauft?", (date(2024, 4, 29), date(2024, 5, 5))),
        ("Wen habe ich vor drei Wochen getroffen?", (date(2024, 4, 15), date(2024, 4, 21))),
        ("Was war am 10. März?", (date(2024, 3, 10), date(2024, 3, 10))),
        ("Wo war ich gestern Abend?", (date(2024, 5, 7), date(2024, 5, 7))),
        ("Was mache ich seit April?", (date(2024, 4, 1), date(2024, 5, 8))),
    ],
)
def test_german_time_words_name_the_same_ranges_as_english_ones(text, span):
    assert resolve(text, NOW, UTC, pack_for("de")) == span
