"""WhatsApp "Export chat" .txt parser: one file = one chat, cut into conversations; one message = one turn.

Line grammar follows Pustur/whatsapp-chat-parser (see docs/chat-formats.md §9): a date, a time
with optional AM/PM, an optional `-`/`:` separator, then `Author: text` (a message) or plain text
(a system event). Lines that match neither are continuations of the previous message. Day/month
order is inferred once per file; times are local and read in `ctx.tz`. The chat (`whatsapp:<hash of
file name and first line>`) is cut into conversations by `conversations.split_chat`.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..errors import ParseError
from ..types import Session
from . import described
from .base import Message, ParseContext, as_utc, finish_session, multiparty_turns, stable_id
from .conversations import split_chat
from .decoding import decode_text, read_text
from .limits import check_zip, read_member

# File names of a chat export: Android "WhatsApp Chat with X.txt", iOS "_chat.txt", localized ones.
CHAT_FILE = re.compile(
    r"^(?:WhatsApp Chat with .+|WhatsApp Chat - .+|_chat|Conversa do WhatsApp com .+|WhatsApp-Chat mit .+|"
    r"Chat de WhatsApp con .+|Chat WhatsApp con .+|Discussion WhatsApp avec .+|WhatsApp-chat met .+)\.txt$",
    re.IGNORECASE,
)

_SP = "[ \u202f\u00a0]"
# Date, time, optional AM/PM, optional "]" and " -"/":" separator, then the rest of the line.
LINE_PREFIX = re.compile(
    r"^[\u200e\u200f]*\[?(\d{1,4}[-/.]"
    + _SP
    + r"?\d{1,4}[-/.]"
    + _SP
    + r"?\d{1,4})[,.]?"
    + _SP
    + r"\D*?(\d{1,2}[.:]\d{1,2}(?:[.:]\d{1,2})?)(?:"
    + _SP
    + r"?([ap]\.?"
    + _SP
    + r"?m\.?))?\]?"
    + r"(?:"
    + _SP
    + r"-|:)?"
    + _SP
    + r"(.*)$",
    re.IGNORECASE,
)
# Inside the rest of a matched line: "Author: text" (colon followed by a space or end of line).
_AUTHOR = re.compile(r"^(.+?):(?:[ \u202f\u00a0]|$)(.*)$", re.DOTALL)

_TITLE_FROM_NAME = re.compile(
    r"^(?:WhatsApp Chat with|WhatsApp Chat -|Conversa do WhatsApp com|WhatsApp-Chat mit|"
    r"Chat de WhatsApp con|Chat WhatsApp con|Discussion WhatsApp avec|WhatsApp-chat met)\s+(.+?)"
    r"(?:\s*\(\d+\))?$",
    re.IGNORECASE,
)
# The encryption notice WhatsApp puts at the top of every chat, in the export's language.
_ENCRYPTION = re.compile(
    r"^(?:Messages and calls are end-to-end encrypted|Messages to this (?:group|chat) are now secured|"
    r"Messages you send to this (?:chat|group) and calls are now secured|"
    r"Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt|Nachrichten an diese Gruppe sind jetzt|"
    r"Los mensajes y las llamadas están cifrados de extremo a extremo|"
    r"Les messages et les appels sont chiffrés de bout en bout|"
    r"As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta|"
    r"I messaggi e le chiamate sono crittografati end-to-end|"
    r"Berichten en oproepen zijn end-to-end versleuteld)",
    re.IGNORECASE,
)
# Whole-message placeholders for media left out of the export (Android "<...>", iOS "... omitted").
_MEDIA_OMITTED = re.compile(
    r"^(?:<(?:Media omitted|Medien ausgeschlossen|Multimedia omitido|Médias omis|Mídia oculta|"
    r"Media weggelaten|Media omessi|Arquivo de mídia oculto)>|"
    r"(?:.*\b)?(?:image|video|audio|sticker|GIF|document|Contact card|Bild|Video|Audio|Sticker|Dokument|"
    r"Kontaktkarte|imagen|vídeo|documento|tarjeta de contacto|vidéo|autocollant|imagem|figurinha|áudio)"
    r" (?:omitted|weggelassen|omitid[oa]|absente?|omise?|ocultad[oa]))$",
    re.IGNORECASE,
)
# Attachment lines: iOS `<attached: NAME>` (localized), Android `NAME (file attached)` (localized).
_ATTACHMENT_LINE = re.compile(
    r"^\s*(?:<(?:attached|Anhang|adjunto|pièce jointe|anexado|allegato|bijlage)\s?: [^<>]+>|"
    r".+ \((?:file attached|Datei angehängt|archivo adjunto|fichier joint|arquivo anexado|file allegato|"
    r"bestand bijgevoegd)\))\s*$",
    re.IGNORECASE,
)
_DELETED = re.compile(
    r"^(?:this message was deleted|you deleted this message|diese nachricht wurde gelöscht|"
    r"du hast diese nachricht gelöscht|se eliminó este mensaje|eliminaste este mensaje|"
    r"ce message a été supprimé|vous avez supprimé ce message|essa mensagem foi apagada|"
    r"você apagou esta mensagem|questo messaggio è stato eliminato|dit bericht is verwijderd)\.?$",
    re.IGNORECASE,
)
_MISSED_CALL = re.compile(
    r"^(?:missed (?:voice|video|group voice|group video) call|verpasster (?:sprach|video)anruf|"
    r"llamada (?:de voz |de video )?perdida|appel (?:vocal |vidéo )?manqué|chamada de (?:voz|vídeo) perdida)",
    re.IGNORECASE,
)
# WhatsApp writes "~ Name" (tilde, U+202F) for a sender who is not in the exporter's contacts.
_NOT_A_CONTACT = re.compile(r"^~[ \u202f\u00a0]*")
# Attachment file names that carry the date they were sent (evidence for the day/month order).
_ATTACH_DATE = re.compile(r"(?:\d{8}-[A-Z]+-(\d{4})-(\d{2})-(\d{2})|[A-Z]{3}-(\d{4})(\d{2})(\d{2})-WA\d+)")
_INVISIBLE = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"

DAY_FIRST_DEFAULT = True  # GUESS (spec §9): day-first when a file gives no evidence either way


@dataclass
class _Record:
    """One message or system event as read from the file, before date conversion."""

    date: tuple[str, str, str]
    time: str
    ampm: str | None
    author: str | None
    lines: list[str] = field(default_factory=list)
    raw: str = ""
    marked: bool = False  # text opened with U+200E (iOS system events and attachments)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield the conversations of a WhatsApp chat export, oldest first."""
    text, chat_name = _chat_text(path, ctx)
    records = _read_records(text)
    if not records:
        raise ParseError(
            f"{path}: no WhatsApp message lines found (expected lines like "
            "'12/03/2024, 14:22 - Name: text'); is this a WhatsApp 'Export chat' file?"
        )
    day_first = _infer_day_first(records, ctx, path)
    title = _title(path, chat_name, records)
    session_id = "whatsapp:" + stable_id(_normalized_name(chat_name), records[0].raw)
    messages: list[Message] = []
    participants: list[str] = []
    system_author = _ios_system_author(records)
    for rec in records:
        text = _visible_text(rec.lines)
        if rec.author is None or rec.author == system_author or _ENCRYPTION.match(text):
            continue  # system event (group created, member added, encryption notice)
        if not text or _DELETED.match(text) or _MISSED_CALL.match(text) or _MEDIA_OMITTED.match(text):
            continue  # deleted message, call notice, media placeholder or attachment without caption
        if rec.author not in participants:
            participants.append(rec.author)
        messages.append(Message(role=rec.author, text=text, timestamp=_to_datetime(rec, day_first, ctx)))
    turns = multiparty_turns(messages)
    session = finish_session(
        Session(session_id=session_id, title=title, participants=participants, turns=turns)
    )
    if session is not None:
        yield from split_chat(session, ctx.conversations())


def _chat_text(path: Path, ctx: ParseContext) -> tuple[str, str]:
    """The chat text and the chat file's name: the file itself, or the chat `.txt` inside an export zip
    (iOS always exports a zip; Android does when media are included)."""
    if not zipfile.is_zipfile(path):
        return read_text(path, ctx), path.name
    try:
        with zipfile.ZipFile(path) as zf:
            check_zip(path, zf, ctx.limits)
            names = sorted(
                (
                    n
                    for n in zf.namelist()
                    if not n.startswith("__MACOSX/") and CHAT_FILE.match(n.rsplit("/", 1)[-1])
                ),
                key=lambda n: (n.count("/"), n),
            )
            if not names:
                raise ParseError(
                    f"{path}: the zip holds no WhatsApp chat .txt (_chat.txt or 'WhatsApp Chat with ...')"
                )
            data = read_member(path, zf, names[0], ctx.limits)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ParseError(f"{path}: not a readable zip archive ({exc}); export the chat again") from exc
    return decode_text(data, f"{path}!{names[0]}", ctx), names[0].rsplit("/", 1)[-1]


def is_whatsapp_line(line: str) -> bool:
    """True when `line` starts with a WhatsApp date/time prefix (message or system event)."""
    return LINE_PREFIX.match(line) is not None


def _ios_system_author(records: list[_Record]) -> str | None:
    """iOS attributes group events to the group name: the author of the encryption notice, when
    every line of that author opens with U+200E (in a 1:1 chat that author is the contact, who also
    writes ordinary lines, so nothing is dropped)."""
    first = records[0]
    if first.author is None or not _ENCRYPTION.match("\n".join(first.lines).strip()):
        return None
    if all(r.marked for r in records if r.author == first.author):
        return first.author
    return None


def _clean(s: str) -> str:
    return s.strip(_INVISIBLE + " \t")


def _visible_text(lines: list[str]) -> str:
    """Message text without invisible marks and attachment lines (a caption stays)."""
    kept = [ln for ln in (_clean(x) for x in lines) if not _ATTACHMENT_LINE.match(ln)]
    return "\n".join(kept).strip()


def _read_records(text: str) -> list[_Record]:
    records: list[_Record] = []
    for line in re.split(r"\r\n|\r|\n", text):
        m = LINE_PREFIX.match(line)
        if m is None:
            if records:
                records[-1].lines.append(line)
            continue
        parts = tuple(
            re.split(r"[-/.]", m.group(1).replace(" ", "").replace("\u202f", "").replace("\u00a0", ""))
        )
        rest = m.group(4)
        am = _AUTHOR.match(rest)
        author, body = (
            (None, rest)
            if am is None
            else (_NOT_A_CONTACT.sub("", _clean(am.group(1))).replace("\u00a0", " "), am.group(2))
        )
        if author == "":
            author, body = None, rest
        records.append(
            _Record(
                date=(parts[0], parts[1], parts[2]),
                time=m.group(2),
                ampm=m.group(3),
                author=author,
                lines=[body.lstrip(_INVISIBLE)],
                raw=_clean(line),
                marked=body.startswith("\u200e"),
            )
        )
    return records


def _split_date(parts: tuple[str, str, str]) -> tuple[int, int, int]:
    """Return (year, first, second) where first/second are the two day/month components in order."""
    nums = [int(p) for p in parts]
    year_pos = next((i for i, p in enumerate(parts) if len(p) == 4 or int(p) > 31), 2)
    rest = [n for i, n in enumerate(nums) if i != year_pos]
    year = nums[year_pos]
    if year < 100:
        year += 2000
    return year, rest[0], rest[1]


def _infer_day_first(records: list[_Record], ctx: ParseContext, path: Path) -> bool:
    """Pustur's daysBeforeMonths plus two tie-breakers: dated attachment names, date monotonicity."""
    split = [_split_date(r.date) for r in records]
    if any(a > 12 for _, a, _ in split):
        return True
    if any(b > 12 for _, _, b in split):
        return False
    votes = 0
    for rec, (year, a, b) in zip(records, split, strict=True):
        m = _ATTACH_DATE.search("\n".join(rec.lines))
        if m is None or a == b:
            continue
        y, mo, d = (int(g) for g in (m.group(1, 2, 3) if m.group(1) else m.group(4, 5, 6)))
        if y != year:
            continue
        if (a, b) == (d, mo):
            votes += 1
        elif (a, b) == (mo, d):
            votes -= 1
    if votes:
        return votes > 0
    back = {True: 0, False: 0}
    for order in (True, False):
        keys = [(y, b, a) if order else (y, a, b) for y, a, b in split]
        back[order] = sum(1 for k1, k2 in zip(keys, keys[1:], strict=False) if k2 < k1)
    if back[True] != back[False]:
        return back[True] < back[False]
    if any(a != b for _, a, b in split):
        ctx.warn(
            f"{path}: day/month order is ambiguous, assumed {'day' if DAY_FIRST_DEFAULT else 'month'} first"
        )
    return DAY_FIRST_DEFAULT


def _to_datetime(rec: _Record, day_first: bool, ctx: ParseContext) -> datetime | None:
    year, a, b = _split_date(rec.date)
    day, month = (a, b) if day_first else (b, a)
    t = [int(x) for x in re.split(r"[.:]", rec.time)]
    hour, minute, second = t[0], t[1], (t[2] if len(t) > 2 else 0)
    if rec.ampm:
        pm = rec.ampm.lower().startswith("p")
        hour = hour % 12 + (12 if pm else 0)
    try:
        return as_utc(datetime(year, month, day, hour, minute, second), ctx.tz)
    except ValueError:
        ctx.warn(
            f"bad WhatsApp date/time {described.value(rec.date)} {described.value(rec.time)}; timestamp left empty"
        )
        return None


def _normalized_name(name: str) -> str:
    """File name without duplicate-download suffixes like ' (1)', lower-cased."""
    name = re.sub(r"\s*\(\d+\)(?=\.[^.]+$)", "", name)
    return re.sub(r"\s+", " ", name).strip().lower()


def _title(path: Path, chat_name: str, records: list[_Record]) -> str:
    """`WhatsApp Chat with X.txt` (or `... X.zip`) → X; `_chat.txt` → the chat name iOS puts on the
    encryption notice, else the export folder's (or zip's) name; any other file → its stem."""
    for stem in (Path(chat_name).stem, path.stem):
        m = _TITLE_FROM_NAME.match(stem)
        if m:
            return m.group(1).strip()
    if chat_name.lower() != "_chat.txt":
        return Path(chat_name).stem
    first = records[0]
    if first.author and _ENCRYPTION.match("\n".join(first.lines).strip()):
        return first.author
    holder = path if path.name != chat_name else path.parent
    parent = _TITLE_FROM_NAME.match(holder.stem if holder is path else holder.name)
    return parent.group(1).strip() if parent else (holder.name or "WhatsApp chat")
