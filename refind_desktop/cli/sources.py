"""`refind sources discover|add|list|ingest|remove`: find coding-agent logs and exports, record and read them.

`discover` only looks at names and sizes (core: `ingest.known_sources.find_known_sources`);
nothing is read until the user records the places with `--add` and ingests them with
`refind sources ingest` (or starts the app, which reads recorded sources at start). Folders on other
machines (`ssh://…`, `discover --host`) are handled by cli/remote_sources.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import locations
from ..config import load_settings, save_settings
from ..errors import NotFoundError
from ..ingest.known_sources import KnownSource, find_known_sources
from ..terminal import shell_command
from . import remote_sources as remote
from .common import human_size, plural, print_json, safe, services


def register(sub: argparse._SubParsersAction) -> None:
    """Add `refind sources` and its subcommands."""
    p = sub.add_parser(
        "sources", help="find chat logs on this machine (coding agents, Downloads) and record them"
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    d = verbs.add_parser("discover", help="list known chat locations that exist here (reads nothing)")
    d.add_argument("--add", action="store_true", help="record what was found as sources to ingest")
    d.add_argument(
        "--only", action="append", metavar="TOOL", help="keep tools whose name contains TOOL (repeatable)"
    )
    d.add_argument(
        "--host",
        metavar="USER@HOST[:PORT]",
        help="look on another machine over ssh (names and sizes only); --add records them as remote sources",
    )
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_discover)
    a = verbs.add_parser(
        "add", help="record a file or folder to ingest: a local path, or ssh://USER@HOST[:PORT]/PATH"
    )
    a.add_argument("source", help="a local path, or ssh://USER@HOST[:PORT]/PATH (PATH may start with ~/)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=cmd_add)
    lst = verbs.add_parser("list", help="show the recorded sources")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)
    ing = verbs.add_parser("ingest", help="ingest every recorded source now (unchanged files are skipped)")
    ing.add_argument("--force", action="store_true", help="re-read files even if unchanged")
    ing.add_argument("--json", action="store_true")
    ing.set_defaults(func=cmd_ingest)
    rm = verbs.add_parser("remove", help="stop recording a source (its turns stay until `refind forget`)")
    rm.add_argument("path", help="a recorded path, an ssh:// source, or USER@HOST[:PORT] for all of a host's")
    rm.set_defaults(func=cmd_remove)


def shown(path: Path, home: Path) -> str:
    """`path` with the home folder written as ~."""
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def record(found: list[KnownSource]) -> tuple[list[str], Path]:
    """Add the paths of `found` to the `sources` setting in config.toml; returns the new ones."""
    path = locations.config_file()
    current = load_settings(path, environment=False)
    new = [str(s.path) for s in found if str(s.path) not in current.sources]
    new = list(dict.fromkeys(new))
    if new:
        save_settings(current.replace(sources=(*current.sources, *new)), path)
    return new, path


def cmd_discover(args: argparse.Namespace) -> int:
    """`refind sources discover [--add] [--only TOOL] [--host USER@HOST[:PORT]] [--json]`"""
    if args.host:
        return remote.cmd_discover_host(args)
    home = Path.home()
    found = find_known_sources(home)
    if args.only:
        found = [s for s in found if any(o.lower() in s.tool.lower() for o in args.only)]
    added: list[str] = []
    config = None
    if args.add:
        added, config = record(found)
    if args.json:
        print_json({"found": [s.to_json() for s in found], "added": added})
        return 0
    if not found:
        print("No known chat locations found (Claude Code, Codex, Gemini CLI, Cursor, VS Code extensions,")
        print(
            "OpenCode, Continue, Aider history files, exports in Downloads). Ingest a folder with `refind ingest PATH`."
        )
        return 0
    print(f"Found {plural(len(found), 'place')} with chat logs (nothing has been read):\n")
    width = max(len(s.tool) for s in found)
    for n, s in enumerate(found, 1):
        files = plural(s.files, "file")
        print(f"{n:3}. {safe(s.tool):<{width}}  {safe(shown(s.path, home))}")
        print(f"     {'':<{width}}  {files}, {human_size(s.size)}: {safe(s.reads)}")
    print()
    if args.add:
        print(
            f"Recorded {plural(len(added), 'new source')} in {safe(config)}. "
            "Read them now with `refind sources ingest`"
        )
        print("(the app also reads recorded sources when it starts).")
    else:
        print("Record them with `refind sources discover --add` (or pick some with --only TOOL),")
        print("then read them with `refind sources ingest`.")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    """`refind sources add PATH|ssh://…`"""
    if remote.is_remote(args.source):
        return remote.cmd_add_remote(args)
    path = str(remote.check_local(args.source))
    config = locations.config_file()
    current = load_settings(config, environment=False)
    new = path not in current.sources
    if new:
        save_settings(current.replace(sources=(*current.sources, path)), config)
    if args.json:
        print_json({"added": [path] if new else []})
        return 0
    print(
        safe(f"added {path}" if new else f"{path} is already a source"),
        "; read it with `refind sources ingest`",
    )
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """`refind sources list [--json]`: each recorded source, marked when it is missing or forgotten; a
    remote source with its host's state (the last pull: ok, or why it failed)."""
    svc = services()
    try:
        rows = [
            {"path": p, "exists": Path(p).exists(), "forgotten": _forgotten(svc, p)}
            for p in svc.settings.sources
        ]
        remotes = remote.remote_rows(svc)
        for r in remotes:
            r["forgotten"] = _forgotten(svc, r["mirror"])
    finally:
        svc.close()
    if args.json:
        print_json(rows + remotes)
        return 0
    if not rows and not remotes:
        print("No sources recorded; find some with `refind sources discover` (or `--host USER@HOST`).")
    for r in remotes:
        notes = [] if r["exists"] or r["state"] != "ok" else ["mirror missing"]
        if r["forgotten"]:
            notes.append(
                f"forgotten: not ingested until `{shell_command('refind', 'unforget', r['forgotten'])}`"
            )
        print(safe(remote.remote_row_line(r) + (f"  ({'; '.join(notes)})" if notes else "")))
    for r in rows:
        notes = [] if r["exists"] else ["missing"]
        if r["forgotten"]:
            notes.append(
                f"forgotten: not ingested until `{shell_command('refind', 'unforget', r['forgotten'])}`"
            )
        print(safe(r["path"] + (f"  ({'; '.join(notes)})" if notes else "")))
    return 0


def _forgotten(svc, path: str) -> str | None:
    """The forgotten path (`refind forget`) that `path` is or lies under, if any."""
    for candidate in dict.fromkeys((path, str(Path(path).expanduser().resolve()))):
        root = svc.catalog.ignored_root(candidate)
        if root:
            return root
    return None


def cmd_ingest(args: argparse.Namespace) -> int:
    """`refind sources ingest`: the recorded sources through the normal ingest."""
    from .core import print_ingest_report, run_ingest

    svc = services()
    paths = [Path(p) for p in svc.settings.sources]
    if not paths:
        raise NotFoundError("no sources recorded: run `refind sources discover --add` first")
    try:
        report = run_ingest(svc, paths, args.force, bar=not args.json)
    finally:
        svc.close()
    if args.json:
        print_json(report.to_json())
    else:
        print_ingest_report(report)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    """`refind sources remove PATH|ssh://…|USER@HOST[:PORT]`"""
    if remote.is_remote(args.path) or remote.knows_host(args.path):
        return remote.cmd_remove_remote(args.path)
    args.path = Path(args.path)
    path = locations.config_file()
    current = load_settings(path, environment=False)
    target = {str(args.path), str(args.path.expanduser().resolve())}
    kept = tuple(p for p in current.sources if p not in target)
    if len(kept) == len(current.sources):
        raise NotFoundError(f"{args.path} is not a recorded source; see `refind sources list`")
    save_settings(current.replace(sources=kept), path)
    print(
        f"{safe(args.path)} is no longer a source; its turns stay searchable until "
        f"`{safe(shell_command('refind', 'forget', args.path))}`.",
        file=sys.stdout,
    )
    return 0
