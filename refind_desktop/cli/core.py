"""CLI commands over the index: ingest, search, sessions, show, stats, forget, reindex."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from ..errors import ConfigError, NotFoundError
from ..search.engine import block_to_json
from ..terminal import printable
from .common import Progress, parse_day, print_json, services


def register(sub: argparse._SubParsersAction) -> None:
    """Add the index commands."""
    p = sub.add_parser("ingest", help="add chat exports (files or folders) to the index")
    p.add_argument("paths", nargs="+", type=Path)
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
    p.add_argument("--from", dest="date_from", metavar="DATE", help="first day, YYYY-MM-DD")
    p.add_argument("--to", dest="date_to", metavar="DATE", help="last day, YYYY-MM-DD")
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument(
        "--context", type=non_negative, default=None, metavar="W", help="turns of context (default 2)"
    )
    p.add_argument("--no-rrf", action="store_true", help="pure turn BM25 ranking")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("sessions", help="list indexed sessions, newest first")
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("show", help="print a session transcript")
    p.add_argument("session")
    p.add_argument("--turn", type=int, default=None, help="show turns around this one")
    p.add_argument("--context", type=non_negative, default=3)
    p.add_argument("--json", action="store_true")
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


def non_negative(value: str) -> int:
    """argparse type: an integer >= 0 (a clear error instead of a traceback or a silent clamp)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {n}")
    return n


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
    """`refind ingest PATH...`"""
    svc = services()
    report = run_ingest(svc, args.paths, args.force, args.accept_shrink, bar=not args.json)
    if args.json:
        print_json(report.to_json())
    else:
        print_ingest_report(report)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    """`refind search KEYWORDS...`"""
    svc = services()
    opts = svc.search_options(top_k=args.top_k, context_window=args.context)
    if args.no_rrf:
        opts = opts.with_(rrf=False)
    blocks = svc.engine.search(
        " ".join(args.keywords), parse_day(args.date_from), parse_day(args.date_to), options=opts
    )
    if args.json:
        print_json({"results": [block_to_json(b) for b in blocks]})
        return 0
    if not blocks:
        print("no results", file=sys.stderr)
        return 0
    for b in blocks:
        day = b.session_date.date().isoformat() if b.session_date else "unknown date"
        title = printable(b.session_title or b.session_id, one_line=True)
        print(
            f"[{b.rank}] {title} ({day}) turn {b.turn}  "
            f"score {b.score:.4f}  id {printable(b.session_id, one_line=True)}"
        )
        for t in b.turns:
            mark = ">" if t.turn in b.hit_turns else " "
            print(textwrap.indent(f"{t.turn:>4} {printable(t.text)}", f"  {mark}"))
        print()
    return 0


def cmd_sessions(args: argparse.Namespace) -> int:
    """`refind sessions`"""
    svc = services()
    infos = list(svc.catalog.session_infos(limit=args.limit))
    if args.json:
        print_json(
            {
                "sessions": [
                    {
                        "session_id": s.session_id,
                        "title": s.title,
                        "source": s.source,
                        "format": s.format,
                        "started_at": s.started_at,
                        "turns": s.turns,
                    }
                    for s in infos
                ]
            }
        )
        return 0
    for s in infos:
        day = s.started_at.date().isoformat() if s.started_at else "????-??-??"
        print(
            printable(f"{day}  {s.turns:>5} turns  {s.format:<12} {s.session_id}  {s.title}", one_line=True)
        )
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """`refind show SESSION [--turn N]`"""
    svc = services()
    rec = svc.catalog.get_session(args.session)
    if rec is None:
        raise NotFoundError(f"no session {args.session!r}; list them with `refind sessions`")
    lo, hi = 0, None
    if args.turn is not None:
        lo, hi = max(0, args.turn - args.context), args.turn + args.context
    turns = svc.index.session_turns(rec.ord, lo, hi)
    if args.json:
        print_json(
            {
                "session_id": rec.sid,
                "title": rec.title,
                "source": rec.source,
                "continues": rec.continues or None,
                "turns": [
                    {"turn": t.turn, "speaker": t.speaker, "timestamp": t.timestamp, "text": t.text}
                    for t in turns
                ],
            }
        )
        return 0
    print(
        printable(
            f"{rec.title or rec.sid}  ({rec.format}, {rec.n_turns} turns, from {rec.source})", one_line=True
        )
    )
    if rec.continues:
        print(printable(f"continues {continues_line(svc.catalog, rec.continues)}", one_line=True))
    for t in turns:
        mark = ">" if t.turn == args.turn else " "
        when = t.timestamp.isoformat(timespec="minutes") if t.timestamp else ""
        print(printable(f"{mark}[{t.turn}] {t.speaker} {when}", one_line=True))
        print(textwrap.indent(printable(t.text), "    "))
    return 0


def continues_line(catalog, sid: str) -> str:
    """`<session id> (<title>, turns before this session's first)` of the session a resumed one continues."""
    earlier = catalog.get_session(sid)
    if earlier is None:
        return f"{sid} (not in the archive)"
    return f"{sid} ({earlier.title or 'untitled'}, {earlier.n_turns} turns; `refind show {sid}`)"


def cmd_stats(args: argparse.Namespace) -> int:
    """`refind stats`"""
    svc = services()
    data = svc.stats()
    if args.json:
        print_json(data)
        return 0
    gone = f" (and {len(data['gone'])} gone, turns kept)" if data["gone"] else ""
    print(f"{data['sources']} sources{gone}, {data['sessions']} sessions, {data['turns']} turns")
    print(f"times without a zone (WhatsApp, Telegram, SillyTavern) read in {data['timezone']}")
    for name, f in sorted(data["formats"].items()):
        print(f"  {name:<12} {f['files']:>5} files {f['sessions']:>7} sessions {f['turns']:>9} turns")
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
            f"{args.source} is no longer forgotten; `refind ingest {args.source}` indexes it again",
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
