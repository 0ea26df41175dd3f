"""Secret redaction (refind_desktop/redact.py): what detect-secrets and the added provider detectors catch,
what stays, and the setting and the flag that turn it off."""

from __future__ import annotations

import json
import random
import string

import pytest

from refind_desktop.config import load_settings, save_settings
from refind_desktop.redact import Redactor, find_secrets, redact_text

R = random.Random(4)


def rnd(n: int, chars: str = string.ascii_letters + string.digits) -> str:
    return "".join(R.choice(chars) for _ in range(n))


AWS_ID = "AKIA" + rnd(16, string.ascii_uppercase + string.digits)
AWS_SECRET = rnd(40, string.ascii_letters + string.digits + "/+")
GHP = "ghp_" + rnd(36)
OPENAI = "sk-proj-" + rnd(40, string.ascii_letters + string.digits + "_-") + "T3BlbkFJ" + rnd(40)
STRIPE = "sk_live_" + rnd(99)
PEM_LINES = [rnd(64, string.ascii_letters + string.digits + "+/") for _ in range(5)]
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(PEM_LINES) + "\n-----END RSA PRIVATE KEY-----"
ENV_PASTE = (
    f"OPENAI_API_KEY={OPENAI}\nAWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\n"
    f"GITHUB_TOKEN={GHP}\nSTRIPE_KEY={STRIPE}\nDB_PASSWORD=hunter2-correct-horse\n"
    "why does the deploy fail?"
)
SECRETS = [AWS_ID, AWS_SECRET, GHP, OPENAI, STRIPE, "hunter2-correct-horse", *PEM_LINES]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (f"my key is {AWS_ID} ok", "AWS Access Key"),
        (f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", "AWS Secret Key"),
        (f"token {GHP} here", "GitHub Token"),
        (f"use {OPENAI}", "OpenAI API Key"),
        ("sk-proj-" + rnd(60, string.ascii_letters + "_-"), "OpenAI API Key"),
        (f"stripe {STRIPE}", "Stripe Access Key"),
        ("sk-ant-api03-" + rnd(80, string.ascii_letters + "_-"), "Anthropic API Key"),
        ("github_pat_" + rnd(70), "GitHub Token"),
        ("AIza" + rnd(35), "Google API Key"),
        (f"here:\n{PEM}\nthanks", "Private Key"),
        ("DB_PASSWORD=hunter2-correct-horse", "password or secret"),
        ('config = {"api_key": "not-a-real-key-but-a-value"}', "password or secret"),
        (
            "the blob " + rnd(48, string.ascii_letters + string.digits + "+/") + " ends here",
            "random-looking secret",
        ),
    ],
)
def test_each_kind_becomes_a_marker(text, kind):
    out = redact_text(text)
    assert f"[redacted: {kind}]" in out, out
    for secret in SECRETS:
        assert secret not in out


def test_an_env_paste_keeps_its_names_and_loses_its_values():
    out = redact_text(ENV_PASTE + "\n\n" + PEM)
    for secret in SECRETS:
        assert secret not in out, secret
    for name in ("OPENAI_API_KEY=", "AWS_ACCESS_KEY_ID=", "GITHUB_TOKEN=", "DB_PASSWORD=", "deploy fail"):
        assert name in out


def test_ordinary_chat_and_code_are_left_alone():
    prose = (
        "Pinch basil above the second set of leaves. The secret is patience: water it every morning.\n"
        "Commit 008c9e93ed39c64f765749889ee9d20004a99469 fixed it; see /home/dana/src/garden-app/README.md.\n"
        "session aa11bb22-0000-4000-8000-000000000001 at https://example.com/docs/getting-started\n"
        "my password is something I never write down"
    )
    assert redact_text(prose) == prose
    assert find_secrets("") == []


def test_a_key_cut_short_by_a_plugin_pattern_is_redacted_whole():
    out = redact_text(f"key={STRIPE}.")  # the library's Stripe pattern matches 24 characters of 99
    assert STRIPE[8:] not in out and STRIPE[-20:] not in out and out.endswith("].")


def test_redactor_walks_json_and_can_be_off():
    data = {"results": [{"title": ENV_PASTE, "n": 3, "turns": [{"text": PEM}]}]}
    on = json.dumps(Redactor(True).data(data))
    assert all(s not in on for s in SECRETS) and '"n": 3' in on
    assert Redactor(False).data(data) is data


def test_the_setting_reads_true_false_words(tmp_path, monkeypatch):
    monkeypatch.setenv("REFIND_REDACT", "0")
    assert load_settings(tmp_path / "none.toml").redact is False
    monkeypatch.setenv("REFIND_REDACT", "yes")
    assert load_settings(tmp_path / "none.toml").redact is True
    monkeypatch.delenv("REFIND_REDACT")
    path = save_settings(load_settings(tmp_path / "none.toml").replace(redact=False), tmp_path / "c.toml")
    assert "redact = false" in path.read_text()
    assert load_settings(path).redact is False
