"""The archive operations behind the MCP tools: argument checks, fresh reads and plain-dict results.

Plain functions over `Services` (no MCP types), called by `mcp/server.py` in worker threads. Every
failure is a RefindError whose message says what to do next; the server turns it into an MCP error.
Each call reloads the index first, so turns a concurrent `refind watch` / `refind ingest` committed are
visible without restarting the server.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time
from pathlib import Path
from typing import TYPE_CHECKING

from ..agent.prompts import neutralise
from ..errors import ConfigError, NotFoundError
from ..ingest.pipeline import IngestProgress
from ..services import Services
from . import render

if TYPE_CHECKING:
    from ..index.catalog import SessionRecord

MAX_TOP_K = 50
MAX_CONTEXT = 10
MAX_SHOW_TURNS = 200
"""Turns one `show` call returns at most (the result says where to continue)."""


def fresh(svc: Services, need_turns: bool = True) -> None:
    """Pick up other processes' commits; with `need_turns`, refuse an empty index with what to do."""
    svc.index.reload()
    if need_turns and svc.index.num_turns() == 0:
        raise NotFoundError(
            "the archive is empty: nothing is indexed yet. Ask the user to run `refind ingest PATH` "
            "(chat exports, files or folders) or `refind watch FOLDER`, then call this tool again"
        )


def caps(svc: Services) -> render.Caps:
    """The byte caps of one call, from the settings."""
    return render.Caps(
        result_bytes=max(int(svc.settings.mcp_max_result_bytes), 256),
        call_bytes=max(int(svc.settings.mcp_max_call_bytes), 1024),
    )


def find_session(svc: Services, session_id: str) -> SessionRecord | None:
    """The session a tool's session_id names: a stored id, or a program-made `render.session_ref` label."""
    rec = svc.catalog.get_session(session_id)
    if rec is None and render.is_ref(session_id):
        for info in svc.catalog.session_infos():
            if render.session_ref(info.session_id) == session_id:
                return svc.catalog.get_session(info.session_id)
    return rec


def parse_day(value: str | None, name: str) -> date | None:
    """A YYYY-MM-DD argument (empty or None: no limit)."""
    if value is None or not str(value).strip():
        return None
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise ConfigError(
            f"{name} must be a calendar day written YYYY-MM-DD, e.g. 2024-03-01; got {value!r}"
        ) from exc


def parse_now(value: str | None, svc: Services) -> datetime | None:
    """The question's current time: a day (taken at noon) or an ISO date-time, in the configured zone."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    try:
        when = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ConfigError(
            f"now must be YYYY-MM-DD or YYYY-MM-DDTHH:MM, e.g. 2024-03-01; got {value!r}"
        ) from exc
    if len(text) <= 10:
        when = datetime.combine(when.date(), time(12, 0))
    return when if when.tzinfo else when.replace(tzinfo=svc.tz)


def _bounded(value: int | None, default: int, lo: int, hi: int, name: str) -> int:
    if value is None:
        return default
    if not lo <= value <= hi:
        raise ConfigError(f"{name} must be between {lo} and {hi}; got {value}")
    return value


def search(
    svc: Services,
    keywords: str,
    date_from: str | None = None,
    date_to: str | None = None,
    top_k: int | None = None,
    context: int | None = None,
    host: str | None = None,
) -> dict:
    """The ReFind engine's numbered blocks, in `refind search --json`'s keys (each with its `host`);
    `host` keeps one machine's sessions (`search/hosts.py`)."""
    d_from, d_to = parse_day(date_from, "date_from"), parse_day(date_to, "date_to")
    if d_from and d_to and d_from > d_to:
        raise ConfigError(f"date_from {d_from} is after date_to {d_to}; swap them or drop one")
    k = _bounded(top_k, svc.settings.top_k, 1, MAX_TOP_K, "top_k")
    w = _bounded(context, svc.settings.context_window, 0, MAX_CONTEXT, "context")
    fresh(svc)
    if svc.index.text_query(keywords or "") is None:
        raise ConfigError(
            f"no searchable word in keywords {neutralise((keywords or '')[:80])!r} (punctuation and "
            "stop-words such as 'the' or 'when' are ignored); give content words: names, things, places"
        )
    host = (host or "").strip() or None
    unknown = svc.machines.unknown(host) if host else None
    if unknown:
        raise NotFoundError(neutralise(unknown))
    opts = svc.search_options(top_k=k, context_window=w, host=host)
    blocks = svc.engine.search(keywords, d_from, d_to, options=opts)
    return render.search_json(blocks, caps(svc))


def show(
    svc: Services,
    session_id: str,
    turn_from: int | None = None,
    turn_to: int | None = None,
    text_from: int | None = None,
) -> dict:
    """A session's verbatim turns turn_from..turn_to (inclusive), at most MAX_SHOW_TURNS and the call's byte
    cap per call (`next_turn_from` says where to go on); `text_from` starts turn_from's text at that
    character (how a cut turn is read on)."""
    fresh(svc)
    rec = find_session(svc, session_id)
    if rec is None:
        raise NotFoundError(
            f"no session with id {neutralise(session_id[:120])!r}; use a session_id exactly as a `search` "
            "result gives it (e.g. 'chatgpt:6630...'), or search first"
        )
    lo = 0 if turn_from is None else turn_from
    if lo < 0 or (turn_to is not None and turn_to < lo):
        raise ConfigError(
            f"turn range {turn_from}..{turn_to} is empty; turns are numbered 0..{rec.n_turns - 1}"
        )
    if lo >= max(rec.n_turns, 1):
        raise ConfigError(f"turn_from {lo} is past the end; this session has turns 0..{rec.n_turns - 1}")
    hi = rec.n_turns - 1 if turn_to is None else min(turn_to, rec.n_turns - 1)
    cut = hi - lo + 1 > MAX_SHOW_TURNS
    if cut:
        hi = lo + MAX_SHOW_TURNS - 1
    turns = svc.index.session_turns(rec.ord, lo, hi)
    ref, limits = render.session_ref(rec.sid), caps(svc)
    start = max(text_from or 0, 0)
    if turns and start > len(turns[0].text):
        raise ConfigError(f"text_from {start} is past the end of turn {lo} ({len(turns[0].text)} characters)")
    shown, used = [], 0
    for i, t in enumerate(turns):
        if used >= limits.call_bytes:
            cut, hi = True, t.turn - 1
            break
        turn = render.turn_json(
            t, ref, min(limits.result_bytes, limits.call_bytes - used), start if i == 0 else 0
        )
        used += len(turn["text"].encode("utf-8", "surrogatepass"))
        shown.append(turn)
    data = {
        "session_id": ref,
        "title": render.section("title", render.cut_text(rec.title, 400)[0]) if rec.title else "",
        "source": neutralise(rec.source),
        "host": svc.machines.host(rec.source) or None,
        "format": rec.format,
        "started_at": rec.started_at.isoformat() if rec.started_at else None,
        "n_turns": rec.n_turns,
        "turns": shown,
    }
    if cut:
        data["next_turn_from"] = hi + 1
    return data


def transcript(svc: Services, session_id: str) -> str:
    """A whole session as Markdown (the `refind://session/{id}` resource)."""
    fresh(svc)
    rec = find_session(svc, session_id)
    if rec is None:
        raise NotFoundError(
            f"no session with id {neutralise(session_id[:120])!r}; use a session_id from a `search` result"
        )
    turns = svc.index.session_turns(rec.ord)
    return render.transcript_markdown(
        rec.sid,
        rec.title,
        rec.source,
        rec.format,
        rec.started_at,
        turns,
        caps(svc),
        svc.machines.host(rec.source),
    )


def stats(svc: Services) -> dict:
    """`refind stats --json`: sources, sessions, turns, per-format counts, skipped files with reasons."""
    fresh(svc, need_turns=False)
    data = svc.stats()
    data["skipped"] = [
        {"path": neutralise(s["path"]), "reason": neutralise(s["reason"])} for s in data["skipped"]
    ]
    for host in data["hosts"]:  # a failed pull's reason quotes the ssh client's message
        if host["last_pull"] and host["last_pull"].get("error"):
            host["last_pull"]["error"] = neutralise(host["last_pull"]["error"])
    return data


def ingest_roots(svc: Services) -> list[Path]:
    """Folders the `ingest` tool may read: the configured chat folder (the one `refind watch` watches)."""
    folder = svc.settings.chat_folder
    return [Path(folder).expanduser().resolve()] if folder else []


def _allowed(path: Path, roots: list[Path], known: set[str]) -> bool:
    return str(path) in known or any(path == r or r in path.parents for r in roots)


def ingest(
    svc: Services,
    paths: list[str] | None,
    force: bool = False,
    progress: Callable[[IngestProgress], None] | None = None,
    cancel=None,
) -> dict:
    """Ingest paths inside the configured chat folder (or already-ingested source files); default: the folder.

    The folder is the boundary after symbolic links are resolved: a link inside it that leads outside is
    refused when named, and skipped (not opened) when met in the walk."""
    roots = ingest_roots(svc)
    known = {f.path for f in svc.catalog.files()}
    if not paths:
        if not roots:
            raise ConfigError(
                "no chat folder is configured, so there is nothing this server may ingest; ask the user to "
                "set chat_folder (`REFIND_CHAT_FOLDER` or config.toml) or to run `refind ingest PATH` themselves"
            )
        targets = roots
    else:
        given = [Path(p).expanduser().absolute() for p in paths]
        targets = [p.resolve() for p in given]
        where = ", ".join(str(r) for r in roots) or "(no chat folder configured)"
        for named, real in zip(given, targets, strict=True):
            if not _allowed(real, roots, known) and _allowed(named, roots, set()):
                raise ConfigError(
                    f"refusing to ingest {named}: it is a symbolic link (or lies behind one) that leads "
                    f"outside the chat folder {where}; this server only reads inside it. Ask the user to run "
                    "`refind ingest PATH` themselves if they mean to"
                )
        refused = [str(p) for p in targets if not _allowed(p, roots, known)]
        if refused:
            raise ConfigError(
                f"refusing to ingest {', '.join(refused)}: this server only reads the configured chat folder "
                f"{where} and sources already in the archive; ask the user to run `refind ingest PATH` instead"
            )
    allowed = roots + [p for p in targets if str(p) in known]
    report = svc.ingestor.ingest(targets, progress=progress, cancel=cancel, force=force, within=allowed)
    return report.to_json()
