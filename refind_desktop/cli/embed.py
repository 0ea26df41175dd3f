"""`refind embed`: catch the Raw-RAG vectors up with the index (or rebuild them), with a progress bar."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from .common import Progress, print_json, services


def register(sub: argparse._SubParsersAction) -> None:
    """Add `embed`."""
    p = sub.add_parser("embed", help="embed new or changed turns for rawrag/hybrid (Ctrl-C stops, resumable)")
    p.add_argument("--rebuild", action="store_true", help="drop every vector and embed everything again")
    p.add_argument("--status", action="store_true", help="only report what is embedded and what is pending")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_embed)


def cmd_embed(args: argparse.Namespace) -> int:
    """`refind embed [--rebuild]`: the Ctrl-C handler sets a cancel event; finished shards are kept."""
    from ..rag import rawrag

    svc = services()
    dense = rawrag.dense_for(svc)
    if args.status:
        data = dict(
            dense.store.table.counts(),
            model=dense.store.model or None,
            pending_sessions=dense.pending_sessions(),
            disk_bytes=dense.store.disk_bytes(),
        )
        if args.json:
            print_json(data)
        else:
            print(
                f"{data['live_windows']} windows embedded ({data['dead_windows']} tombstoned) with "
                f"{data['model'] or 'no model yet'}; {data['pending_sessions']} sessions pending; "
                f"{data['disk_bytes'] / 1e6:.1f} MB on disk"
            )
        return 0
    if not args.json:
        print("loading the embedding model...", file=sys.stderr, flush=True)
    cancel = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.set())
    bar = Progress("embedding")
    try:
        report = dense.catch_up(
            progress=lambda p: bar.update(
                p.done, p.pending, f"{p.sessions_done}/{p.sessions_total} sessions"
            ),
            cancel=cancel,
            rebuild=args.rebuild,
        )
    finally:
        bar.close()
        signal.signal(signal.SIGINT, previous)
        svc.close()
    data = report.to_json()
    if args.json:
        print_json(data)
        return 130 if report.cancelled else 0
    state = "stopped early (run `refind embed` again to resume)" if report.cancelled else "up to date"
    print(
        f"{state}: {data['windows_added']} windows embedded ({data['windows_per_second']}/s), "
        f"{data['windows_kept']} kept, {data['windows_dropped']} dropped; "
        f"{data['totals'].get('live_windows', 0)} live windows, model {data['model']}"
    )
    return 130 if report.cancelled else 0
