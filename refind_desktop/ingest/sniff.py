"""Content sniffing for chat exports (spec §1 rules J1-J9, L1-L5, T1-T2) on a decoded text window.

`sniff_json` and `sniff_text` look only at the text they are given (the first 64 KiB of a file,
`complete` when that is the whole file) and return a format name or raise `Unknown` with a
human reason. Used by `detect.py`, which handles paths, decoding, zips and folder walks.
"""

from __future__ import annotations

import json
import re

from . import described
from .generic import FENCE, count_labels, label_of
from .whatsapp import is_whatsapp_line

__all__ = [
    "Unknown",
    "count_labels",
    "describe",
    "is_fence",
    "label_of",
    "match_records",
    "sniff_json",
    "sniff_text",
]

_ROLE_KEYS = {"role", "author", "sender", "from"}
_TEXT_KEYS = {"content", "text", "value", "message"}
_CC_TYPES = {
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "agent-name",
}
_CODEX_TYPES = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
_TELEGRAM_TYPES = {
    "personal_chat",
    "private_group",
    "private_supergroup",
    "public_supergroup",
    "public_channel",
    "private_channel",
    "saved_messages",
    "bot_chat",
}
_TELEGRAM_TYPE = re.compile(r'"type"\s*:\s*"(?:' + "|".join(sorted(_TELEGRAM_TYPES)) + ')"')
_SESSION_KEY = re.compile(r"^session_\d+(?:_date_time)?$")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]|"')
_SLACK_HINT = (
    "Slack day file outside its export folder: ingest the whole Slack export folder "
    "(the one with channels.json and users.json)"
)


class Unknown(Exception):
    """Content sniff failed; `reason` says what was seen."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def sniff_json(body: str, complete: bool, name: str) -> str:
    """J rules for a JSON document, L rules for JSON lines; `body` starts with '{' or '['."""
    if body.startswith("["):
        return _sniff_array(body, complete)
    objs = _jsonl_objects(body, complete, name.endswith((".jsonl", ".ndjson")))
    if objs is not None:
        if len(objs) > 1:
            fmt = _match_lines(objs)
            if fmt:
                return fmt
            raise Unknown(f"unknown format: JSON lines with keys {_keys(objs[0])}")
        is_jsonl = name.endswith((".jsonl", ".ndjson"))
        fmt = (
            (_match_lines(objs) or _match_value(objs[0]))
            if is_jsonl
            else (_match_value(objs[0]) or _match_lines(objs))
        )
        if fmt:
            return fmt
        raise Unknown(f"unknown format: {describe(objs[0])}")
    if complete:
        return _match_or_fail(_loads(body))
    keys, _ = _scan_keys(body, 0)
    if name.endswith((".jsonl", ".ndjson")):
        fmt = _match_line_keys(keys, body) or _match_object_keys(keys, body)
    else:
        fmt = _match_object_keys(keys, body) or _match_line_keys(keys, body)
    if fmt:
        return fmt
    raise Unknown(f"unknown format: JSON object with keys {_keys(keys)}")


def match_records(objs: list[dict]) -> str | None:
    """L rules on whole JSON-lines records (read past the window when line 1 is longer than it)."""
    return _match_lines(objs) if objs else None


def _sniff_array(body: str, complete: bool) -> str:
    if complete:
        return _match_or_fail(_loads(body))
    i = len(body) - len(body[1:].lstrip())
    if body[i : i + 1] != "{":
        kind = {"[": "arrays", '"': "strings"}.get(body[i : i + 1], "values")
        raise Unknown(f"unknown format: JSON array of {kind}")
    keys, end = _scan_keys(body, i)
    if end > 0:
        try:
            return _match_or_fail([json.loads(body[i:end])])
        except json.JSONDecodeError:
            pass
    fmt = _match_element_keys(keys, body)
    if fmt:
        return fmt
    raise Unknown(f"unknown format: JSON array of objects with keys {_keys(keys)}")


def _loads(body: str) -> object:
    try:
        return json.loads(body)
    except json.JSONDecodeError as e:
        raise Unknown(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def _match_or_fail(value: object) -> str:
    fmt = _match_value(value)
    if fmt:
        return fmt
    raise Unknown(f"unknown format: {describe(value)}")


def _jsonl_objects(body: str, complete: bool, jsonl_name: bool) -> list[dict] | None:
    """Leading JSON-lines objects when the first line is a complete object, else None.

    A `.jsonl` file whose first line is malformed still counts when later lines are objects.
    """
    lines = body.split("\n")
    if not complete:
        lines = lines[:-1]  # the last line in the window may be cut
    objs = []
    for n, line in enumerate(ln for ln in lines if ln.strip()):
        if n >= 50:
            break
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            if n == 0 and not jsonl_name:
                return None
            continue  # a malformed line is the parser's business (it warns and skips it)
        if n == 0 and not isinstance(obj, dict):
            return None
        if n == 1 and objs and not line.lstrip().startswith("{"):
            return None
        if isinstance(obj, dict):
            objs.append(obj)
    return objs or None


def _scan_keys(text: str, start: int) -> tuple[list[str], int]:
    """Keys at depth 1 of the object opening at text[start]; end index, or -1 if cut by the window."""
    depth, keys = 0, []
    for m in _TOKEN.finditer(text, start):
        tok = m.group()
        if tok == '"':
            break  # unterminated string: the window ends inside it
        if tok[0] == '"':
            if depth == 1:
                j = m.end()
                while j < len(text) and text[j] in " \t\r\n":
                    j += 1
                if text[j : j + 1] == ":":
                    keys.append(tok[1:-1])
        elif tok in "{[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return keys, m.end()
    return keys, -1


def _is_message(d: object) -> bool:
    return isinstance(d, dict) and bool(_ROLE_KEYS & d.keys()) and bool(_TEXT_KEYS & d.keys())


def _is_sharegpt(d: object) -> bool:
    convs = d.get("conversations") if isinstance(d, dict) else None
    return (
        isinstance(convs, list)
        and bool(convs)
        and isinstance(convs[0], dict)
        and "from" in convs[0]
        and "value" in convs[0]
    )


def _first(value: object) -> object:
    return value[0] if isinstance(value, list) and value else None


def _match_value(value: object) -> str | None:
    """J rules on a fully parsed value (a whole document, or a one-element list for the first element)."""
    if isinstance(value, dict):
        return _match_object(value)
    if not isinstance(value, list):
        return None
    if not value:
        raise Unknown("empty JSON array (nothing to ingest)")
    el = value[0]
    if not isinstance(el, dict):
        return None
    if isinstance(el.get("mapping"), dict) and ("title" in el or "create_time" in el):
        return "chatgpt"
    if "chat_messages" in el and "uuid" in el:
        return "claude_ai"
    if "question_id" in el and ("haystack_sessions" in el or "haystack_dates" in el):
        return "longmemeval"
    conv = el.get("conversation")
    if isinstance(conv, dict) and "speaker_a" in conv and any(_SESSION_KEY.match(k) for k in conv):
        return "locomo"
    chat = el.get("chat")
    if isinstance(chat, dict) and isinstance(chat.get("history"), dict):
        return "openwebui"
    if _is_sharegpt(el) or _is_message(el):
        return "generic"
    msgs = el.get("messages")
    if isinstance(msgs, list) and (not msgs or _is_message(msgs[0])):
        return "generic"
    if el.get("type") == "message" and "ts" in el:
        raise Unknown(_SLACK_HINT)
    return None


def _match_object(d: dict) -> str | None:
    if "chat_messages" in d and "uuid" in d:
        return "claude_ai"
    c0 = _first(d.get("conversations"))
    c0 = c0 if isinstance(c0, dict) else {}
    if "chat_messages" in c0:
        return "claude_ai"
    if "guild" in d and "channel" in d and "messages" in d:
        return "discord"
    msgs = d.get("messages")
    m0 = _first(msgs)
    if "personal_information" in d or isinstance(d.get("chats"), dict):
        return "telegram"
    if isinstance(m0, dict) and {"date_unixtime", "from_id", "text_entities"} & m0.keys():
        return "telegram"
    if isinstance(msgs, list) and d.get("type") in _TELEGRAM_TYPES:
        return "telegram"  # any chat type, even when the first message is a service message
    if (
        isinstance(m0, dict)
        and m0.get("type") in ("service", "message")
        and {"actor_id", "action"} & m0.keys()
    ):
        return "telegram"
    chat = d.get("chat")
    hist = chat.get("history") if isinstance(chat, dict) else d.get("history")
    if isinstance(hist, dict) and "currentId" in hist:
        return "openwebui"
    if _is_sharegpt(d) or _is_message(m0):
        return "generic"
    if isinstance(c0.get("messages"), list):
        return "generic"
    return None


def _match_lines(objs: list[dict]) -> str | None:
    """L rules on the first lines of a JSON-lines file."""
    first = objs[0]
    if any(o.get("type") == "session_meta" and isinstance(o.get("payload"), dict) for o in objs):
        return "codex"
    if {"id", "timestamp", "instructions"} <= first.keys():
        return "codex"
    if all(o.get("type") in _CODEX_TYPES and isinstance(o.get("payload"), dict) for o in objs):
        return "codex"
    if any({"sessionId", "uuid", "parentUuid"} <= o.keys() and o.get("type") in _CC_TYPES for o in objs):
        return "claude_code"
    if first.get("type") in ("summary", "file-history-snapshot") and all(
        o.get("type") in _CC_TYPES for o in objs
    ):
        return "claude_code"
    if ("chat_metadata" in first or {"user_name", "character_name"} <= first.keys()) and "mes" not in first:
        return "sillytavern"
    if {"mes", "is_user"} <= first.keys():
        return "sillytavern"
    if any(_is_sharegpt(o) for o in objs):
        return "generic"
    hits = sum(1 for o in objs if _is_message(o) or isinstance(o.get("messages"), list))
    if hits and hits * 2 >= len(objs):
        return "generic"
    return None


def _has(body: str, key: str) -> bool:
    return re.search(r'(?<!\\)"' + re.escape(key) + r'"\s*:', body) is not None


def _match_element_keys(keys: list[str], body: str) -> str | None:
    """J rules for an array whose first element is cut by the window (key presence only)."""
    k = set(keys)
    if "mapping" in k and ("title" in k or "create_time" in k):
        return "chatgpt"
    if {"chat_messages", "uuid"} <= k:
        return "claude_ai"
    if "question_id" in k and k & {"haystack_sessions", "haystack_dates", "haystack_session_ids"}:
        return "longmemeval"
    if "conversation" in k and _has(body, "speaker_a") and re.search(r'"session_\d+"\s*:', body):
        return "locomo"
    if "chat" in k and _has(body, "history"):
        return "openwebui"
    if "conversations" in k and _has(body, "from") and _has(body, "value"):
        return "generic"
    if (k & _ROLE_KEYS and k & _TEXT_KEYS) or ("messages" in k and _has(body, "role")):
        return "generic"
    return None


def _match_object_keys(keys: list[str], body: str) -> str | None:
    """J rules for a top-level object cut by the window."""
    k = set(keys)
    if {"chat_messages", "uuid"} <= k or ("conversations" in k and _has(body, "chat_messages")):
        return "claude_ai"
    if {"guild", "channel"} <= k:
        return "discord"
    if (
        "personal_information" in k
        or "chats" in k
        or ("messages" in k and any(_has(body, x) for x in ("date_unixtime", "from_id", "text_entities")))
        or ("messages" in k and "type" in k and _TELEGRAM_TYPE.search(body) is not None)
        or ("messages" in k and _has(body, "actor_id") and _has(body, "action"))
    ):
        return "telegram"
    if (
        (k & {"chat", "history"})
        and _has(body, "history")
        and (_has(body, "currentId") or _has(body, "childrenIds"))
    ):
        return "openwebui"
    if "conversations" in k and _has(body, "from") and _has(body, "value"):
        return "generic"
    if "messages" in k and _has(body, "role") and _has(body, "content"):
        return "generic"
    return None


def _match_line_keys(keys: list[str], body: str) -> str | None:
    """L rules for a JSON-lines file whose first line does not fit in the window."""
    k = set(keys)
    if re.match(r'\{[^{]*"type"\s*:\s*"session_meta"', body) or {"id", "timestamp", "instructions"} <= k:
        return "codex"
    if {"sessionId", "parentUuid"} <= k:
        return "claude_code"
    if "chat_metadata" in k or {"user_name", "character_name"} <= k or {"mes", "is_user"} <= k:
        return "sillytavern"
    if "conversations" in k or (k & _ROLE_KEYS and k & _TEXT_KEYS):
        return "generic"
    return None


def sniff_text(text: str, whatsapp_name: bool) -> str | None:
    """T1 (WhatsApp date-prefixed lines) then T2 (User:/Assistant: labelled transcript)."""
    lines = [ln for ln in re.split(r"\r\n|\r|\n", text) if ln.strip()][:10]
    hits = sum(1 for ln in lines if is_whatsapp_line(ln))
    if hits >= 2 or (hits and whatsapp_name):
        return "whatsapp"
    if count_labels(text) >= 2:
        return "generic"
    return None


def is_fence(line: str) -> bool:
    """A Markdown code-fence line (labels inside fences do not count)."""
    return FENCE.match(line) is not None


def _keys(value: object) -> str:
    keys = list(value.keys()) if isinstance(value, dict) else list(value)  # type: ignore[call-overload]
    return described.names(keys)


def describe(value: object) -> str:
    names = {str: "string", int: "number", float: "number", bool: "boolean", list: "array", dict: "object"}
    if isinstance(value, dict):
        return f"JSON object with keys {_keys(value)}"
    if isinstance(value, list):
        el = value[0] if value else None
        if isinstance(el, dict):
            return f"JSON array of objects with keys {_keys(el)}"
        return f"JSON array of {names.get(type(el), 'null')}s" if value else "empty JSON array"
    return f"JSON {names.get(type(value), 'null')}"
