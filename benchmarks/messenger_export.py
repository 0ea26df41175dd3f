"""Write LoCoMo conversations as the messenger exports a person would have, with a questions file.

Each LoCoMo conversation (two people, dated sessions of messages) becomes the chat one of the two
exported from their phone or desktop:

- `whatsapp/WhatsApp Chat - NAME/_chat.txt`: an iOS "Export chat" file (en-US dates, U+202F before
  AM/PM, the end-to-end encryption notice on top), NAME being the other person; the exporter is
  `--side` a (speaker_a, default) or b;
- `telegram/ChatExport_YYYY-MM-DD/result.json`: a Telegram Desktop single-chat export of the same
  personal chat (the export day is the day after the last message);
- `whatsapp/questions.json` and `telegram/questions.json`: every question of the conversations with
  its gold answer, LoCoMo category, the evidence as (file, message time, speaker, text), so that it
  can be matched to the ingested turns by time and text however the chat is split into sessions, and
  the moment to ask at (`now`: 09:00 on the day after the chat's last message).

Message times: each LoCoMo session's `date_time` is the time its first message was sent (plus a few
seconds); every later message follows the previous one after a seeded random gap of 20 seconds to a
few minutes, so every message has its own timestamp. A session that would run into the next one's
start is pushed back behind it (counted in the summary).

Images: LoCoMo's image captions are machine-written descriptions no real export holds; they are left
out and only the message text is written. A message that shared an image gets, a few seconds before
its text, an attachment of its own: an iOS `<attached: NNNNNNNN-PHOTO-...jpg>` line (which the reader
drops) in the WhatsApp file, a `photo` "(File not included...)" field on the message itself in the
Telegram file (the reader appends `[photo]` to its text). A message with no text (an image alone)
has no turn; evidence pointing at it is listed as unresolved.

LoCoMo's adversarial questions (category 5) ask about something the conversation does not say (an
event of the other person, say): their gold is to abstain (`abstain: true`), LoCoMo's adversarial
answer is kept beside it.

The LoCoMo data is CC BY-NC 4.0: it is read at run time and the files are written to `--out`, never
into the repository. Example:

    python benchmarks/messenger_export.py --data ../shared/benchmarks/locomo_dev.json.gz --out /tmp/locomo-exports
    python benchmarks/export_qa.py /tmp/locomo-exports/whatsapp --retrieval-only
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from refind_desktop.eval.datasets import LOCOMO_CATEGORIES
from refind_desktop.ingest.locomo import parse_date

FORMAT = "refind-export-questions/1"
ENCRYPTION = (
    "Messages and calls are end-to-end encrypted. No one outside of this chat, not even WhatsApp, "
    "can read or listen to them."
)
NOT_INCLUDED = "(File not included. Change data exporting settings to download.)"
ABSTAIN_GOLD = "Not mentioned in the conversation"
_LRM = "\u200e"
_NNBSP = "\u202f"
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_SESSION = re.compile(r"^session_(\d+)$")


@dataclass
class ChatMessage:
    """One message of the exported chat: who sent it, when, its text, and whether an image preceded it."""

    dia_id: str
    speaker: str
    text: str
    sent: datetime
    """Naive local time, to the second."""
    image_at: datetime | None = None
    """When the image this message came with was sent (a few seconds before the text)."""


@dataclass
class Chat:
    """One conversation laid out in time, from the exporter's side."""

    sample_id: str
    exporter: str
    contact: str
    messages: list[ChatMessage] = field(default_factory=list)
    pushed_sessions: int = 0

    @property
    def last(self) -> datetime:
        """The time of the last message."""
        return self.messages[-1].sent

    @property
    def now(self) -> datetime:
        """When the questions are asked: 09:00 on the day after the last message."""
        return (self.last + timedelta(days=1)).replace(hour=9, minute=0, second=0)


def _text(value: object) -> str:
    """LoCoMo answers are sometimes numbers or lists: as text."""
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _session_start(conv: dict, n: int) -> datetime | None:
    when = parse_date(conv.get(f"session_{n}_date_time"), UTC)
    return when.replace(tzinfo=None) if when else None


def lay_out(sample: dict, side: str, rng: random.Random) -> Chat:
    """The conversation's messages with their own times (see the module docstring)."""
    conv = sample["conversation"]
    a, b = str(conv.get("speaker_a") or "A"), str(conv.get("speaker_b") or "B")
    exporter, contact = (a, b) if side == "a" else (b, a)
    chat = Chat(str(sample.get("sample_id") or "conversation"), exporter, contact)
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)) and isinstance(conv[k], list))
    clock: datetime | None = None
    for n in numbers:
        start = _session_start(conv, n)
        if start is None:
            print(f"{chat.sample_id} session_{n}: no readable date; skipped", file=sys.stderr)
            continue
        t = start + timedelta(seconds=rng.randint(0, 40))
        if clock is not None and t <= clock:
            chat.pushed_sessions += 1
            t = clock + timedelta(seconds=rng.randint(20, 120))
        for entry in conv[f"session_{n}"]:
            if not isinstance(entry, dict):
                continue
            text = str(entry.get("text") or "").strip()
            has_image = bool(entry.get("img_url") or entry.get("blip_caption"))
            image_at = None
            if has_image:
                image_at = t
                t += timedelta(seconds=rng.randint(2, 9))
            chat.messages.append(
                ChatMessage(
                    str(entry.get("dia_id") or ""), str(entry.get("speaker") or ""), text, t, image_at
                )
            )
            clock = t
            t += timedelta(seconds=min(20 + int(rng.expovariate(1 / 50)), 300))
    if not chat.messages:
        raise SystemExit(f"{chat.sample_id}: no dated messages")
    return chat


# -- WhatsApp iOS --------------------------------------------------------------------------------
def _ios_stamp(when: datetime) -> str:
    """`[5/8/23, 1:56:12 PM]` with U+202F before the AM/PM, as iOS writes it in the en-US locale."""
    hour = when.hour % 12 or 12
    half = "AM" if when.hour < 12 else "PM"
    return f"[{when.month}/{when.day}/{when.year % 100:02d}, {hour}:{when.minute:02d}:{when.second:02d}{_NNBSP}{half}]"


def whatsapp_text(chat: Chat) -> str:
    """The `_chat.txt` of the chat (the encryption notice is attributed to the contact, as iOS does)."""
    first = chat.messages[0].image_at or chat.messages[0].sent
    lines = [f"{_LRM}{_ios_stamp(first - timedelta(minutes=1))} {chat.contact}: {_LRM}{ENCRYPTION}"]
    photos = 0
    for m in chat.messages:
        if m.image_at is not None:
            photos += 1
            name = f"{photos:08d}-PHOTO-{m.image_at:%Y-%m-%d-%H-%M-%S}.jpg"
            lines.append(f"{_LRM}{_ios_stamp(m.image_at)} {m.speaker}: {_LRM}<attached: {name}>")
        if m.text:
            lines.append(f"{_ios_stamp(m.sent)} {m.speaker}: {m.text}")
    return "\r\n".join(lines) + "\r\n"


def whatsapp_path(chat: Chat) -> str:
    """The chat file's path inside the WhatsApp set."""
    return f"WhatsApp Chat - {chat.contact}/_chat.txt"


# -- Telegram Desktop ------------------------------------------------------------------------------
def telegram_export(chat: Chat, rng: random.Random) -> dict:
    """A Telegram Desktop single-chat `result.json` of the personal chat (times read as UTC)."""
    ids = {chat.exporter: rng.randint(10**8, 10**9), chat.contact: rng.randint(10**8, 10**9)}
    messages = []
    for m in chat.messages:
        if not m.text and m.image_at is None:
            continue
        sent = m.image_at if (m.image_at is not None and not m.text) else m.sent
        msg: dict = {
            "id": len(messages) + 1,
            "type": "message",
            "date": sent.isoformat(timespec="seconds"),
            "date_unixtime": str(int(sent.replace(tzinfo=UTC).timestamp())),
            "from": m.speaker,
            "from_id": f"user{ids.get(m.speaker, 1)}",
        }
        if m.image_at is not None:
            msg.update(photo=NOT_INCLUDED, width=1280, height=960)
        msg["text"] = m.text
        msg["text_entities"] = [{"type": "plain", "text": m.text}] if m.text else []
        messages.append(msg)
    return {"name": chat.contact, "type": "personal_chat", "id": ids[chat.contact], "messages": messages}


def telegram_path(chat: Chat, taken: set[str]) -> str:
    """`ChatExport_YYYY-MM-DD/result.json` (the export day), ` (1)`... when that folder is taken."""
    base = f"ChatExport_{(chat.last + timedelta(days=1)):%Y-%m-%d}"
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    taken.add(name)
    return f"{name}/result.json"


# -- questions -------------------------------------------------------------------------------------
def questions(sample: dict, chat: Chat, file: str) -> list[dict]:
    """The conversation's questions with their evidence located in the exported file."""
    by_id = {m.dia_id: m for m in chat.messages}
    out = []
    for i, qa in enumerate(sample.get("qa") or []):
        if not isinstance(qa, dict):
            continue
        cat = qa.get("category")
        cat = int(cat) if isinstance(cat, int | float) or str(cat).isdigit() else None
        ids = list(
            dict.fromkeys(x for ev in qa.get("evidence") or [] for x in _EVIDENCE_SPLIT.split(str(ev)) if x)
        )
        evidence, unresolved = [], []
        for x in ids:
            m = by_id.get(x)
            if m is None or not m.text:
                unresolved.append(x)
                continue
            evidence.append(
                {
                    "file": file,
                    "timestamp": m.sent.isoformat(timespec="seconds"),
                    "speaker": m.speaker,
                    "text": m.text,
                }
            )
        abstain = cat == 5
        rec = {
            "id": f"{chat.sample_id}:q{i}",
            "question": str(qa.get("question") or ""),
            "answer": ABSTAIN_GOLD if abstain else _text(qa.get("answer")),
            "category": f"{cat}-{LOCOMO_CATEGORIES.get(cat, 'unknown')}" if cat else "unknown",
            "abstain": abstain,
            "now": chat.now.isoformat(timespec="seconds"),
            "file": file,
            "evidence": evidence,
        }
        if abstain:
            rec["adversarial_answer"] = _text(qa.get("adversarial_answer", qa.get("answer")))
        if unresolved:
            rec["unresolved_evidence"] = unresolved
        out.append(rec)
    return out


def questions_file(description: str, chats: list[dict], qs: list[dict]) -> dict:
    """The set's `questions.json` (format FORMAT; read by refind_desktop/eval/exportset.py)."""
    return {
        "format": FORMAT,
        "description": description,
        "language": "en",
        "timezone": "UTC",
        "scoring": "locomo",
        "chats": chats,
        "questions": qs,
    }


def export(
    data: Path, out: Path, side: str = "a", seed: int = 0, formats: tuple[str, ...] = ("whatsapp", "telegram")
) -> dict:
    """Write the sets into `out/<format>/`; returns counts per format."""
    with (
        gzip.open(data, "rt", encoding="utf-8")
        if data.suffix == ".gz"
        else open(data, encoding="utf-8") as fh
    ):
        samples = json.load(fh)
    rng = random.Random(seed)
    chats = [
        (s, lay_out(s, side, rng))
        for s in samples
        if isinstance(s, dict) and isinstance(s.get("conversation"), dict)
    ]
    summary: dict = {}
    taken: set[str] = set()
    for fmt in formats:
        root = out / fmt
        root.mkdir(parents=True, exist_ok=True)
        listed, qs = [], []
        for sample, chat in chats:
            if fmt == "whatsapp":
                rel = whatsapp_path(chat)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(whatsapp_text(chat), encoding="utf-8", newline="")
            else:
                rel = telegram_path(chat, taken)
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                body = json.dumps(
                    telegram_export(chat, random.Random(f"{seed}:{chat.sample_id}")),
                    ensure_ascii=False,
                    indent=1,
                )
                (root / rel).write_text(body + "\n", encoding="utf-8")
            listed.append(
                {
                    "file": rel,
                    "conversation": chat.sample_id,
                    "exporter": chat.exporter,
                    "contact": chat.contact,
                    "messages": sum(1 for m in chat.messages if m.text),
                    "images": sum(1 for m in chat.messages if m.image_at is not None),
                    "first": chat.messages[0].sent.isoformat(timespec="seconds"),
                    "last": chat.last.isoformat(timespec="seconds"),
                    "sessions_pushed_back": chat.pushed_sessions,
                }
            )
            qs += questions(sample, chat, rel)
        desc = (
            f"LoCoMo conversations written as {fmt} exports from one participant's side "
            f"(messenger_export.py, seed {seed}, side {side})"
        )
        (root / "questions.json").write_text(
            json.dumps(questions_file(desc, listed, qs), ensure_ascii=False, indent=1) + "\n",
            encoding="utf-8",
        )
        summary[fmt] = {"chats": listed, "questions": len(qs)}
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="LoCoMo JSON or JSON.gz")
    ap.add_argument("--out", type=Path, required=True, help="folder to write whatsapp/ and telegram/ into")
    ap.add_argument("--side", choices=("a", "b"), default="a", help="who exported: speaker_a or speaker_b")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--formats", default="whatsapp,telegram")
    args = ap.parse_args(argv)
    formats = tuple(f for f in args.formats.split(",") if f)
    if set(formats) - {"whatsapp", "telegram"}:
        ap.error("--formats takes whatsapp and/or telegram")
    print(json.dumps(export(args.data, args.out, args.side, args.seed, formats), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
