"""Slack workspace export parser: `path` is the unzipped export folder; one session per channel per day.

Sessions are `slack:<channel id>:<YYYY-MM-DD>`, one per day file (`<folder>/YYYY-MM-DD.json`), so a
big workspace is read one small file at a time; each is a conversation of its channel's chat
(`slack:<channel id>`). Slack cuts its export into these day files itself, so the day stays the unit
here (the quiet-gap rule of `conversations.py` would need the neighbouring day files at once). Channels come from `channels.json` (public),
`groups.json` (private), `mpims.json` and `dms.json`; folders are matched by channel name, else by
id, and folders listed nowhere are still read (`slack:<folder name>:<day>`). Turn = one message in
file order (Slack writes each day sorted by `ts`); thread replies stay where the export put them,
in the day file of the reply's own time, interleaved with channel messages, and are not regrouped
under their parent. Speaker = the user's display name from `users.json`/`org_users.json` (display
name, else real name, else user name; the message's `user_profile` when the user is not listed);
bot posts are flagged `<name> (bot)`. Mentions and links in mrkdwn are rendered as Slack shows them:
`<@U1>` → `@ann`, `<#C1|general>` → `#general`, `<!here>` → `@here`, `<https://x|label>` →
`label (https://x)`. Join/leave/topic/purpose/rename/archive notices and deleted-message tombstones
are dropped. Shared files add a `[file <name>]` marker line; a message without text falls back to
its attachments' text.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ParseError
from ..types import Session
from .base import Message, ParseContext, finish_session, multiparty_turns, parse_timestamp
from .limits import check_member, check_zip

SKIP_SUBTYPES = {
    "channel_join",
    "channel_leave",
    "channel_topic",
    "channel_purpose",
    "channel_name",
    "channel_archive",
    "channel_unarchive",
    "group_join",
    "group_leave",
    "group_topic",
    "group_purpose",
    "group_name",
    "group_archive",
    "group_unarchive",
    "tombstone",
}
_DAY_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})\.json$")
_TOKEN = re.compile(r"<([^<>\n]+)>")
_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|mailto:|tel:)", re.IGNORECASE)


def parse(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """Yield one session per channel day file that has at least one visible message."""
    if path.is_file() and zipfile.is_zipfile(path):
        yield from _parse_zip(path, ctx)
        return
    if not path.is_dir():
        raise ParseError(
            f"{path}: a Slack export is read from its folder or its .zip; point refind at the "
            "folder that holds channels.json, or at the export zip"
        )
    yield from _parse_tree(path, ctx)


def _parse_zip(path: Path, ctx: ParseContext) -> Iterator[Session]:
    """The export zip read in place: the same walk over a `zipfile.Path` (every JSON member bounded)."""
    try:
        with zipfile.ZipFile(path) as zf:
            check_zip(path, zf, ctx.limits)
            names = [n for n in zf.namelist() if not n.endswith("/") and not n.startswith("__MACOSX/")]
            root = zip_root(names)
            if root is None:
                raise ParseError(
                    f"{path}: no channels.json + users.json with per-day channel files in this zip"
                )
            for n in names:
                if n.startswith(root) and n.endswith(".json"):
                    check_member(path, zf.getinfo(n), ctx.limits)
            yield from _parse_tree(zipfile.Path(zf, root), ctx)  # type: ignore[arg-type]
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ParseError(f"{path}: not a readable zip archive ({exc}); download the export again") from exc


def zip_root(names: list[str]) -> str | None:
    """D3 inside a zip: the folder prefix ("" or "Export name/") holding channels.json + users.json and
    per-day channel files, or None."""
    files = set(names)
    for n in names:
        if n.rsplit("/", 1)[-1] != "channels.json":
            continue
        root = n[: -len("channels.json")]
        if root.count("/") > 1:
            continue
        if (root + "users.json") in files or (root + "org_users.json") in files:
            if any(
                m.startswith(root)
                and m[len(root) :].count("/") == 1
                and _DAY_FILE.match(m.rsplit("/", 1)[-1])
                for m in names
            ):
                return root
    return None


def _parse_tree(path: Path, ctx: ParseContext) -> Iterator[Session]:
    users = _users(path, ctx)
    channels = _channels(path, users, ctx)
    names = {cid: label[1:] for cid, _folder, label in channels if label.startswith("#")}
    folders = {p.name: days for p in path.iterdir() if p.is_dir() and (days := _day_files(p))}
    if not folders:
        raise ParseError(
            f"{path}: no channel folder with YYYY-MM-DD.json day files; is this an unzipped Slack export?"
        )
    listed: list[tuple[str, list[tuple[str, Path]], str]] = []
    for cid, folder, label in channels:
        found = folders.pop(folder, None) or folders.pop(cid, None)
        if found:
            listed.append((cid, found, label))
    listed += [(name, days, f"#{name}") for name, days in sorted(folders.items())]
    for cid, days, label in listed:
        for day, file in days:
            session = _day_session(file, f"slack:{cid}:{day}", f"{label} {day}", users, names, ctx)
            if session is not None:
                session.chat_id, session.chat_title = f"slack:{cid}", label
                yield session


def _day_files(folder: Path) -> list[tuple[str, Path]]:
    days = [(m.group(1), p) for p in folder.iterdir() if p.is_file() and (m := _DAY_FILE.match(p.name))]
    return sorted(days)


def _load(file: Path, ctx: ParseContext) -> Any:
    """JSON of a small export file, or None (warned) when it is missing or unreadable."""
    if not file.is_file():
        return None
    try:
        with file.open(encoding="utf-8-sig") as f:
            return json.load(f)
    except (OSError, ValueError, RecursionError) as exc:
        ctx.warn(f"{file}: unreadable JSON ({type(exc).__name__}); skipped")
        return None


def _users(root: Path, ctx: ParseContext) -> dict[str, str]:
    """User id → display name from `users.json` and `org_users.json`."""
    users: dict[str, str] = {}
    found = False
    for name in ("users.json", "org_users.json"):
        data = _load(root / name, ctx)
        if data is None:
            continue
        found = True
        for u in data if isinstance(data, list) else []:
            if isinstance(u, dict) and u.get("id") and isinstance(u["id"], str):
                users[u["id"]] = _person_name(u.get("profile"), u) or u["id"]
    if not found:
        ctx.warn(f"{root}: no users.json; speakers fall back to the names stored on messages or user ids")
    return users


def _person_name(profile: Any, user: Any = None) -> str:
    p = profile if isinstance(profile, dict) else {}
    u = user if isinstance(user, dict) else {}
    for value in (
        p.get("display_name"),
        p.get("real_name"),
        u.get("real_name"),
        p.get("name"),
        u.get("name"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _channels(root: Path, users: dict[str, str], ctx: ParseContext) -> list[tuple[str, str, str]]:
    """(channel id, folder name, label) for every conversation listed in the metadata files.

    The label is `#name` for channels, `group <members>` for mpims and `DM <members>` for DMs.
    """
    out: list[tuple[str, str, str]] = []
    for file, kind in (
        ("channels.json", "#"),
        ("groups.json", "#"),
        ("mpims.json", "group"),
        ("dms.json", "DM"),
    ):
        data = _load(root / file, ctx)
        for c in data if isinstance(data, list) else []:
            if not isinstance(c, dict) or not c.get("id"):
                continue
            cid, name = str(c["id"]), str(c.get("name") or "")
            if kind == "#":
                out.append((cid, name or cid, f"#{name or cid}"))
                continue
            listed = c.get("members") if isinstance(c.get("members"), list) else []
            members = ", ".join(users.get(m, m) if isinstance(m, str) else str(m) for m in listed)
            out.append((cid, name or cid, f"{kind} {members}" if members else f"{kind} {name or cid}"))
    return out


def _day_session(
    file: Path,
    session_id: str,
    title: str,
    users: dict[str, str],
    channels: dict[str, str],
    ctx: ParseContext,
) -> Session | None:
    data = _load(file, ctx)
    if data is None:
        return None
    if not isinstance(data, list):
        ctx.warn(f"{file}: expected a JSON array of messages; skipped")
        return None
    messages: list[Message] = []
    for i, m in enumerate(data):
        if not isinstance(m, dict):
            ctx.warn(f"{file}: message #{i + 1} is not an object and was skipped")
            continue
        if _str(m.get("subtype")) in SKIP_SUBTYPES or m.get("type", "message") != "message":
            continue
        text = render_mrkdwn(m.get("text") if isinstance(m.get("text"), str) else "", users, channels)
        if not text.strip():
            text = "\n".join(
                render_mrkdwn(str(a.get("text") or a.get("fallback") or ""), users, channels)
                for a in m.get("attachments") or []
                if isinstance(a, dict)
            ).strip()
        files = [
            f"[file {f.get('name') or f.get('title') or ''}]".replace(" ]", "]")
            for f in m.get("files") or []
            if isinstance(f, dict)
        ]
        if files:
            text = "\n".join(x for x in (text, " ".join(files)) if x.strip())
        messages.append(
            Message(
                role=_speaker(m, users),
                text=text,
                timestamp=parse_timestamp(m.get("ts")),
                msg_id=str(m.get("ts") or ""),
            )
        )
    turns = multiparty_turns(messages)
    return finish_session(
        Session(
            session_id=session_id,
            title=title,
            turns=turns,
            participants=list(dict.fromkeys(t.speaker for t in turns)),
        )
    )


def _str(value: Any) -> str:
    """A string field of a message, or "" when the file holds another type there."""
    return value if isinstance(value, str) else ""


def _speaker(m: dict, users: dict[str, str]) -> str:
    uid = _str(m.get("user"))
    if m.get("subtype") == "bot_message" or (m.get("bot_id") and not uid):
        bot = m.get("bot_profile") if isinstance(m.get("bot_profile"), dict) else {}
        name = (
            _str(m.get("username"))
            or _str(bot.get("name"))
            or users.get(uid)
            or _str(m.get("bot_id"))
            or "bot"
        )
        return f"{name} (bot)"
    return users.get(uid) or _person_name(m.get("user_profile")) or uid or "unknown"


def render_mrkdwn(text: str, users: dict[str, str], channels: dict[str, str]) -> str:
    """Slack mrkdwn as displayed: mentions by name, links unwrapped, `&lt; &gt; &amp;` unescaped."""

    def token(match: re.Match[str]) -> str:
        target, _, label = match.group(1).partition("|")
        if target.startswith("@"):
            return "@" + (label.lstrip("@") or users.get(target[1:]) or target[1:])
        if target.startswith("#"):
            return "#" + (label or channels.get(target[1:]) or target[1:])
        if target.startswith("!"):
            return label or "@" + target[1:].split("^", 1)[0]
        if not label or _SCHEME.sub("", target) == _SCHEME.sub("", label):
            return label or target
        return f"{label} ({target})"

    text = _TOKEN.sub(token, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
