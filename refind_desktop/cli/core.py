"""CLI commands over the index: ingest, search, sessions, show, stats, forget, reindex."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import ConfigError, NotFoundError
from ..search.engine import block_to_json
from ..terminal import printable, shell_command
from ..types import SessionInfo
from . import render
from .chats import chat_place, chat_place_line, print_grouped, print_turns, show_chat
from .common import (
    HOST_HELP,
    Progress,
    check_host,
    day,
    day_range,
    empty_archive_hint,
    non_negative,
    pick_session,
    positive,
    print_json,
    services,
)
from .remote_sources import host_line

REVEAL_HELP = (
    "print secrets (API keys, tokens, private keys, passwords) verbatim; by default they show as "
    "[redacted: KIND] markers (docs/redaction.md)"
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the index commands."""
    p = sub.add_parser(
        "ingest",
        help="add chat exports (files or folders) to the index",
        description="Add chat exports to the index. Paths that do not exist are named on stderr and make "
        "the exit code 5; the paths that do exist are ingested all the same. With no paths: pull every "
        "remote source (`refind sources add ssh://...`), then ingest the recorded sources and the pulled "
        "copies; a host that fails is named on stderr and makes the exit code 10.",
    )
    p.add_argument("paths", nargs="*", type=Path)
    p.add_argument("--force", action="store_true", help="re-read files even if unchanged")
    p.add_argument(
        "--accept-shrink",
        action="store_true",
        help="a file that got smaller replaces the turns it no longer holds (default: they are kept)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("search", help="keyword search with session-aware ranking and context")
    p.add_argument("keywords", nargs="+")
    p.add_argument("--from", dest="date_from", type=day, metavar="DATE", help="first day, YYYY-MM-DD")
    p.add_argument("--to", dest="date_to", type=day, metavar="DATE", help="last day, YYYY-MM-DD")
    p.add_argument("--top-k", type=positive, default=None, metavar="K", help="result blocks (1 or more)")
    p.add_argument(
        "--context", type=non_negative, default=None, metavar="W", help="turns of context (default 2)"
    )
    p.add_argument("--no-rrf", action="store_true", help="pure turn BM25 ranking")
    p.add_argument("--host", metavar="HOST", help=HOST_HELP)
    p.add_argument("--json", action="store_true")
    p.add_argument("--reveal", action="store_true", help=REVEAL_HELP)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser(
        "sessions", help="list indexed sessions, newest first; a chat's conversations under the chat"
    )
    p.add_argument("--limit", type=non_negative, default=50, help="at most this many (0: all)")
    p.add_argument("--chat", metavar="CHAT", help="list every conversation of one chat (its chat id)")
    p.add_argument("--host", metavar="HOST", help=HOST_HELP)
    p.add_argument("--json", action="store_true")
    p.add_argument("--reveal", action="store_true", help=REVEAL_HELP)
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser(
        "show", help="print a session transcript (a conversation in its chat's context, or a whole chat)"
    )
    p.add_argument(
        "session",
        help="a session id (or the start of one no other id shares), or a chat id for the whole chat",
    )
    p.add_argument("--turn", type=non_negative, default=None, help="show turns around this one")
    p.add_argument("--context", type=non_negative, default=3)
    p.add_argument("--chat", action="store_true", help="print the whole chat this conversation belongs to")
    p.add_argument("--json", action="store_true")
    p.add_argument("--reveal", action="store_true", help=REVEAL_HELP)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("stats", help="what is indexed, per format, and what was skipped")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser(
        "forget", help="remove a source file's (or folder's) turns from the index, and keep it out"
    )
    p.add_argument("source", type=Path, nargs="?")
    p.add_argument("--list", action="store_true", help="list the forgotten paths (undo with `unforget`)")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("unforget", help="take a forgotten path off the ignore list (ingest it again after)")
    p.add_argument("source", type=Path)
    p.set_defaults(func=cmd_unforget)

    p = sub.add_parser("reindex", help="rebuild the index from the ingested source files")
    p.add_argument(
        "--from-sources",
        nargs="*",
        type=Path,
        metavar="FOLDER",
        default=None,
        help="walk the recorded ingest folders (or the FOLDERs given) instead of the catalog's file list",
    )
    p.set_defaults(func=cmd_reindex)


def run_ingest(svc, paths: list[Path], force: bool = False, accept_shrink: bool = False, bar: bool = True):
    """Ingest with a progress bar (files, turns, time left; on a terminal, unless `bar` is False);
    shared by `ingest` and `demo`."""
    progress = Progress("ingesting", enabled=bar, turns=True)
    try:
        return svc.ingestor.ingest(
            paths,
            force=force,
            accept_shrink=accept_shrink,
            progress=lambda p: progress.update(
                p.files_done, p.files_total, Path(p.current).name, turns=p.turns_added
            ),
        )
    finally:
        progress.close()


def print_ingest_report(report) -> None:
    """Human summary of an ingest run (problems on stderr)."""
    print(
        f"added {report.added_turns} turns, removed {report.removed_turns}, "
        f"{report.ingested_files} files read, {report.unchanged_files} unchanged"
    )
    for s in report.skipped:
        print(printable(f"skipped {s.path}: {s.reason}", one_line=True), file=sys.stderr)
    for w in report.warnings:
        print(printable(f"warning: {w}", one_line=True), file=sys.stderr)
    for p in report.partial:
        print(
            printable(
                f"PARTIAL {p}: read in part; what was read is indexed, nothing was deleted", one_line=True
            ),
            file=sys.stderr,
        )
    for h in report.held:
        print(printable(f"kept old turns: {h}", one_line=True), file=sys.stderr)


def cmd_ingest(args: argparse.Namespace) -> int:
    """`refind ingest PATH...` (no PATH: `cli.pulls.cmd_ingest_all`, remote sources pulled first)"""
    if not args.paths:
        from .pulls import cmd_ingest_all

        return cmd_ingest_all(args, run_ingest, print_ingest_report)
    missing = [p for p in args.paths if not p.expanduser().exists()]
    if len(missing) == len(args.paths):
        names = ", ".join(printable(shell_command(p), one_line=True) for p in missing)
        raise NotFoundError(f"no such file or folder: {names}; nothing was ingested")
    svc = services()
    report = run_ingest(
        svc, [p for p in args.paths if p not in missing], args.force, args.accept_shrink, bar=not args.json
    )
    if args.json:
        print_json({**report.to_json(), "missing": [str(p) for p in missing]})
    else:
        print_ingest_report(report)
    for p in missing:
        print(
            printable(
                f"refind: not found: {shell_command(p)} does not exist (the other paths were ingested)",
                one_line=True,
            ),
            file=sys.stderr,
        )
    return NotFoundError.exit_code if missing else 0


def cmd_search(args: argparse.Namespace) -> int:
    """`refind search KEYWORDS...`"""
    date_from, date_to = day_range(args.date_from, args.date_to)
    svc = services(redact=False if args.reveal else None)
    opts = svc.search_options(top_k=args.top_k, context_window=args.context, host=check_host(svc, args.host))
    if args.no_rrf:
        opts = opts.with_(rrf=False)
    blocks = svc.engine.search(" ".join(args.keywords), date_from, date_to, options=opts)
    if args.json:
        print_json(svc.redactor.data({"results": [block_to_json(b) for b in blocks]}))
        return 0
    if not blocks:
        print(empty_archive_hint(svc) or "no results", file=sys.stderr)
        return 0
    words = " ".join(args.keywords).split()
    cut = False
    for b in blocks:
        lines, clipped = render.block_lines(b, words, svc.redactor.text, svc.tz)
        print("\n".join(lines) + "\n")
        cut = cut or clipped
    if cut:
        print(f"turns are cut (…); read one whole: {render.show_hint(blocks[0])}", file=sys.stderr)
    return 0


def cmd_sessions(args: argparse.Namespace) -> int:
    """`refind sessions [--chat CHAT]`: newest first; a chat's conversations listed under the chat."""
    svc = services(redact=False if args.reveal else None)
    host = svc.machines.host
    chosen = svc.machines.select(svc.catalog, check_host(svc, args.host)) if args.host else None
    if args.chat:
        recs = svc.catalog.chat_sessions(args.chat)
        if not recs:
            raise NotFoundError(f"no chat {args.chat!r}; chat ids are listed by `refind sessions`")
        infos = [
            SessionInfo(r.sid, r.title, r.source, r.format, r.started_at, r.n_turns, r.chat, r.chat_title)
            for r in reversed(recs)
            if chosen is None or (r.sid in chosen.sids) != chosen.outside
        ]
    elif chosen is not None:
        infos = list(svc.catalog.session_infos(args.limit, list(chosen.folders), chosen.outside))
    else:
        infos = list(svc.catalog.session_infos(limit=args.limit))
    if not infos and not args.json:
        print(empty_archive_hint(svc) or "no sessions", file=sys.stderr)
        return 0
    if args.json:
        print_json(
            svc.redactor.data(
                {
                    "sessions": [
                        {
                            "session_id": s.session_id,
                            "title": s.title,
                            "source": s.source,
                            "format": s.format,
                            "started_at": s.started_at,
                            "turns": s.turns,
                            "chat_id": s.chat_id,
                            "chat_title": s.chat_title,
                            "host": host(s.source) or None,
                        }
                        for s in infos
                    ]
                }
            )
        )
        return 0
    print_grouped(svc.catalog, infos, svc.redactor.text, host)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """`refind show SESSION [--turn N] [--chat]`, or `refind show CHAT` for a whole chat."""
    svc = services(redact=False if args.reveal else None)
    hide = svc.redactor.text
    if svc.catalog.get_session(args.session) is None and svc.catalog.chat_sessions(args.session):
        return show_chat(svc, args.session, args.json)
    rec = pick_session(svc, args.session)
    if args.chat and rec.chat:
        return show_chat(svc, rec.chat, args.json)
    place = chat_place(svc.catalog, rec)
    host = svc.machines.host(rec.source)
    lo, hi = 0, None
    if args.turn is not None:
        lo, hi = max(0, args.turn - args.context), args.turn + args.context
    turns = svc.index.session_turns(rec.ord, lo, hi)
    if args.json:
        print_json(
            svc.redactor.data(
                {
                    "session_id": rec.sid,
                    "title": rec.title,
                    "source": rec.source,
                    "host": host or None,
                    "chat": place,
                    "continues": rec.continues or None,
                    "turns": [
                        {"turn": t.turn, "speaker": t.speaker, "timestamp": t.timestamp, "text": t.text}
                        for t in turns
                    ],
                }
            )
        )
        return 0
    print(
        printable(
            f"{hide(rec.title or rec.sid)}  ({rec.format}, {rec.n_turns} turns, "
            f"{f'on {host}, ' if host else ''}from {rec.source})",
            one_line=True,
        )
    )
    if place:
        print(printable(hide(chat_place_line(place)), one_line=True))
    if rec.continues:
        print(printable(hide(f"continues {continues_line(svc.catalog, rec.continues)}"), one_line=True))
    print_turns(turns, args.turn, hide)
    return 0


def continues_line(catalog, sid: str) -> str:
    """`<session id> (<title>, turns before this session's first)` of the session a resumed one continues."""
    earlier = catalog.get_session(sid)
    if earlier is None:
        return f"{sid} (not in the archive)"
    return f"{sid} ({earlier.title or 'untitled'}, {earlier.n_turns} turns; `{shell_command('refind', 'show', sid)}`)"


def cmd_stats(args: argparse.Namespace) -> int:
    """`refind stats`"""
    svc = services()
    data = svc.redactor.data(svc.stats())
    if args.json:
        print_json(data)
        return 0
    gone = f" (and {len(data['gone'])} gone, turns kept)" if data["gone"] else ""
    print(f"{data['sources']} sources{gone}, {data['sessions']} sessions, {data['turns']} turns")
    print(f"times without a zone (WhatsApp, Telegram, SillyTavern) read in {data['timezone']}")
    for name, f in sorted(data["formats"].items()):
        print(f"  {name:<12} {f['files']:>5} files {f['sessions']:>7} sessions {f['turns']:>9} turns")
    if data["hosts"]:
        n = len(data["hosts"])
        print(f"{n} other machine{'' if n == 1 else 's'} (`refind sources list` shows their sources):")
        for h in data["hosts"]:
            print(printable("  " + host_line(h), one_line=True))
    for entry in data["partial"]:
        print(printable(f"PARTIAL {entry['path']}: {entry['reason']}", one_line=True))
    for entry in data["held"]:
        print(printable(f"HELD {entry['path']}: {entry['reason']}", one_line=True))
    if data["gone"]:
        print(
            f"{len(data['gone'])} sources gone, turns kept (the archive keeps them; "
            "`refind forget PATH` deletes them):"
        )
        for g in data["gone"]:
            print(printable(f"  GONE {g['path']}: {g['turns']} turns kept", one_line=True))
    if data["rebuild_pending"]:
        print("a reindex was interrupted: run `refind reindex` (or any ingest) to finish it")
    if data["forgotten"]:
        print(f"{len(data['forgotten'])} forgotten paths (see `refind forget --list`)")
    if data["skipped"]:
        print(f"{len(data['skipped'])} skipped:")
        for s in data["skipped"]:
            print(printable(f"  {s['path']}: {s['reason']}", one_line=True))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """`refind forget SOURCE`"""
    svc = services()
    if args.list:
        for path in svc.catalog.ignored():
            print(printable(path, one_line=True))
        return 0
    if args.source is None:
        raise ConfigError("say which file or folder to forget: `refind forget PATH` (or `--list`)")
    removed = svc.ingestor.forget(args.source)
    if removed < 0:
        raise NotFoundError(f"{args.source} was never ingested; see sources with `refind stats`")
    print(printable(f"removed {removed} turns from {args.source}", one_line=True))
    return 0


def cmd_unforget(args: argparse.Namespace) -> int:
    """`refind unforget PATH`"""
    svc = services()
    if not svc.ingestor.unforget(args.source):
        raise NotFoundError(f"{args.source} is not forgotten; see `refind forget --list`")
    print(
        printable(
            f"{args.source} is no longer forgotten; `{shell_command('refind', 'ingest', args.source)}` "
            "indexes it again",
            one_line=True,
        )
    )
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    """`refind reindex [--from-sources [FOLDER...]]`: the core's `reindex` (wipe, then ingest again)."""
    from ..config import load_settings
    from ..services import reindex

    bar = Progress("reindexing", turns=True)
    try:
        result = reindex(
            load_settings(),
            folders=args.from_sources or (),
            from_sources=args.from_sources is not None,
            progress=lambda p: bar.update(
                p.files_done, p.files_total, Path(p.current).name, turns=p.turns_added
            ),
        )
    finally:
        bar.close()
    for note in result.notes:
        print(printable(note, one_line=True), file=sys.stderr)
    print(
        printable(f"rebuilt from the {result.origin}: {len(result.read)} paths", one_line=True),
        file=sys.stderr,
    )
    for p in result.gone:
        print(printable(f"gone, turns kept: {p}", one_line=True), file=sys.stderr)
    if result.kept_turns:
        print(
            f"{result.kept_turns} turns of files that are gone were rebuilt from the archive", file=sys.stderr
        )
    print_ingest_report(result.report)
    return 0
