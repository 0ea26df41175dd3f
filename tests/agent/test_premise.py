"""The premise check: the question's named things, which the notes never write, and the yes/no call."""

from __future__ import annotations

from helpers.agent import ask_once, day, session, stage_of

from refind_desktop.agent.premise import about_replies, closest, phrases, request, unwritten

NOW = day(3, 15)
PETS = [
    session("s:cat", day(2, 1), "My cat's name is Luna and she loves the window", "Luna ate her dinner"),
    session("s:work", day(2, 9), "I've been working at NovaTech for about 4 years now", "Our API is slow"),
    session("s:photos", day(2, 11), "I already use Google Photos for my pictures", "Storage is full"),
]


def test_phrases_keep_the_named_things_without_frame_time_and_verb_words():
    assert phrases("What is the total cost of my recently purchased headphones and the iPad?") == [
        "headphones",
        "iPad",
    ]
    assert phrases("What is the name of my hamster?") == ["hamster"]
    assert phrases("How often do I play table tennis with my friends at the local park?") == [
        "table tennis",
        "friends",
        "local park",
    ]
    # a run goes on over a preposition into a name: the name's place is part of the thing
    assert phrases("How long have I been working before I started my current job at Google?") == [
        "job at Google"
    ]
    assert phrases("How many times have I met up with Alex from Germany?") == ["Alex from Germany"]
    # the word after which/what is the answer's kind; the word after "did I" is a verb
    assert phrases("Which bike did I buy?") == []
    assert phrases("Which device did I set up first, the smart thermostat or the mesh network?") == [
        "smart thermostat",
        "mesh network",
    ]
    # time words are the search's and the arithmetic's
    assert phrases("What time do I wake up on Saturday mornings?") == []


def test_unwritten_needs_every_word_of_the_phrase_in_one_sentence():
    texts = ["I play tennis with friends. We meet at the local park.", "My job is in Berlin."]
    assert unwritten("How often do I play table tennis with my friends at the local park?", texts) == [
        "table tennis"
    ]
    assert unwritten("Where is my job at Google?", ["Google Photos is full. My job is fine."]) == [
        "job at Google"
    ]
    assert unwritten("What is the name of my hamster?", ["My hamsters are called Bo and Mo."]) == []


def test_the_sentences_shown_are_what_the_rest_of_the_question_would_answer_from():
    texts = [
        "I already use Google Photos for my pictures. Google Drive is next.",
        "I've been working at NovaTech for about 4 years now.",
    ]
    q = "How long have I been working before I started my current job at Google?"
    assert closest(q, "job at Google", texts, limit=1) == [
        "I've been working at NovaTech for about 4 years now."
    ]


def test_requests_for_a_suggestion_claim_nothing():
    assert request("I'm making a cocktail for a get-together. Any suggestions?")
    assert request("Can you recommend a show for tonight?")
    assert not request("What was the hostel you recommended?")
    result, backend = ask("Any tips for what to name my hamster?", {"mentioned": "no"})
    assert not result.abstained
    assert not [c for c in backend.calls if stage_of(c.schema) == "premise"]


def test_questions_about_the_replies_are_told_apart():
    assert about_replies("Can you remind me of the name of the hostel you recommended in Amsterdam?")
    assert about_replies("In our previous chat, what was the fruit in the dessert?")
    assert about_replies("Can you remind me what the average improvement in framerate was?")
    assert not about_replies("What is the name of my hamster?")


def ask(question, premise_reply, **config):
    return ask_once(
        PETS,
        question,
        NOW,
        config,
        relevance=lambda text: {"relevant": [1]},
        query={"keywords": ["name"], "date_from": None, "date_to": None},
        premise=premise_reply,
        answer="Luna",
    )


def test_a_thing_the_model_says_the_notes_never_mention_is_not_in_the_history():
    result, backend = ask("What is the name of my hamster?", {"mentioned": "no"})
    assert result.abstained and result.citations == []
    assert result.answer == 'That is not in your history: nothing I found in your chats mentions "hamster".'
    premise_calls = [c for c in backend.calls if stage_of(c.schema) == "premise"]
    assert len(premise_calls) == 1
    prompt = premise_calls[0].prompt
    assert '"hamster"' in prompt and "Luna" in prompt and "<<<DATA" in prompt
    # no answer call after a "no"
    assert not any(c.streamed for c in backend.calls)


def test_a_yes_lets_the_answer_go_on_and_a_written_thing_asks_nothing():
    result, backend = ask("What is the name of my hamster?", {"mentioned": "yes"})
    assert not result.abstained and "Luna" in result.answer
    result, backend = ask("What is the name of my cat?", {"mentioned": "no"})
    assert not result.abstained and "Luna" in result.answer
    assert not [c for c in backend.calls if stage_of(c.schema) == "premise"]


def test_the_check_can_be_turned_off():
    result, backend = ask("What is the name of my hamster?", {"mentioned": "no"}, premise_check=False)
    assert not result.abstained
    assert not [c for c in backend.calls if stage_of(c.schema) == "premise"]
