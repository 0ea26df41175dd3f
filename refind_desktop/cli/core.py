"""CLI commands over the index: ingest, search, sessions, show, stats, forget, reindex."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from ..errors import NotFoundError
from ..search.engine import block_to_json
from .common import Progress, parse_day, print_json, services


def register(sub: argparse._SubParsersAction) -> None:
    """Add the index commands."""
    p = sub.add_parser("ingest", help="add chat exports (files or folders) to the index")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--force", action="store_true", help="re-read files even if unchanged")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("search", help="keyword search with session-aware ranking and context")
    p.add_argument("keywords", nargs="+")
    p.add_argument("--from", dest="date_from", metavar="DATE", help="first day, YYYY-MM-DD")
    p.add_argument("--to", dest="date_to", metavar="DATE", help="last day, YYYY-MM-DD")
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument("--context", type=int, default=None, metavar="W", help="turns of context (default 2)")
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
    p.add_argument("--context", type=int, default=3)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("stats", help="what is indexed, per format, and what was skipped")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("forget", help="remove a source file's (or folder's) turns from the index")
    p.add_argument("source", type=Path)
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("reindex", help="rebuild the index from the ingested source files")
    p.set_defaults(func=cmd_reindex)


def run_ingest(svc, paths: list[Path], force: bool = False):
    """Ingest with a progress bar; shared by `ingest`, `reindex` and `demo`."""
    bar = Progress("ingesting")
    try:
        return svc.ingestor.ingest(
            paths,
            force=force,
            progress=lambda p: bar.update(p.files_done, p.files_total, Path(p.current).name),
        )
    finally:
        bar.close()


def print_ingest_report(report) -> None:
    """Human summary of an ingest run (problems on stderr)."""
    print(
        f"added {report.added_turns} turns, removed {report.removed_turns}, "
        f"{report.ingested_files} files read, {report.unchanged_files} unchanged"
    )
    for s in report.skipped:
        print(f"skipped {s.path}: {s.reason}", file=sys.stderr)
    for w in report.warnings:
        print(f"warning: {w}", file=sys.stderr)


def cmd_ingest(args: argparse.Namespace) -> int:
    """`refind ingest PATH...`"""
    svc = services()
    report = run_ingest(svc, args.paths, args.force)
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
        print(
            f"[{b.rank}] {b.session_title or b.session_id} ({day}) turn {b.turn}  "
            f"score {b.score:.4f}  id {b.session_id}"
        )
        for t in b.turns:
            mark = ">" if t.turn in b.hit_turns else " "
            print(textwrap.indent(f"{t.turn:>4} {t.text}", f"  {mark}"))
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
        print(f"{day}  {s.turns:>5} turns  {s.format:<12} {s.session_id}  {s.title}")
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
                "turns": [
                    {"turn": t.turn, "speaker": t.speaker, "timestamp": t.timestamp, "text": t.text}
                    for t in turns
                ],
            }
        )
        return 0
    print(f"{rec.title or rec.sid}  ({rec.format}, {rec.n_turns} turns, from {rec.source})")
    for t in turns:
        mark = ">" if t.turn == args.turn else " "
        when = t.timestamp.isoformat(timespec="minutes") if t.timestamp else ""
        print(f"{mark}[{t.turn}] {t.speaker} {when}")
        print(textwrap.indent(t.text, "    "))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """`refind stats`"""
    svc = services()
    data = svc.stats()
    if args.json:
        print_json(data)
        return 0
    print(f"{data['sources']} sources, {data['sessions']} sessions, {data['turns']} turns")
    print(f"times without a zone (WhatsApp, Telegram, SillyTavern) read in {data['timezone']}")
    for name, f in sorted(data["formats"].items()):
        print(f"  {name:<12} {f['files']:>5} files {f['sessions']:>7} sessions {f['turns']:>9} turns")
    if data["skipped"]:
        print(f"{len(data['skipped'])} skipped:")
        for s in data["skipped"]:
            print(f"  {s['path']}: {s['reason']}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    """`refind forget SOURCE`"""
    svc = services()
    removed = svc.ingestor.forget(args.source)
    if removed < 0:
        raise NotFoundError(f"{args.source} was never ingested; see sources with `refind stats`")
    print(f"removed {removed} turns from {args.source}")
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    """`refind reindex`: the core's `reindex` (read the source list, wipe, ingest again) with a progress bar."""
    from ..config import load_settings
    from ..services import reindex

    bar = Progress("ingesting")
    try:
        result = reindex(
            load_settings(), progress=lambda p: bar.update(p.files_done, p.files_total, Path(p.current).name)
        )
    finally:
        bar.close()
    for p in result.gone:
        print(f"gone, not re-ingested: {p}", file=sys.stderr)
    print_ingest_report(result.report)
    return 0
