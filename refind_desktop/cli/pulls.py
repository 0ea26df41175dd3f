"""`refind ingest` with no paths: pull every remote source, then ingest the recorded sources and the mirrors.

The pulling is `ingest.remote.pull_all` and the ingest after it `ingest.remote_ingest.ingest_pulled`;
this module only prints what each host did and turns a failed host into the exit code
(RemoteError.exit_code), after everything that could be ingested was.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import NotFoundError
from ..ingest.remote import PullResult, RemoteError, mirror_roots, pull_all
from ..ingest.remote_ingest import ingest_pulled
from ..ingest.remote_store import RemoteStore
from ..terminal import printable
from .common import print_json, services


def size_text(n: int) -> str:
    """Bytes as B/kB/MB with one decimal."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def pull_line(r: PullResult) -> str:
    """One line per pulled source: what came over, or why the host failed."""
    if r.ok:
        return (
            f"pulled {r.spec.url}: {r.files} new or changed files, {size_text(r.bytes)} "
            f"in {r.seconds:.1f} s ({r.method})"
        )
    return (
        f"FAILED {r.spec.host_key} ({r.spec.path}): {r.error}; what was pulled before stays searchable "
        "and the next `refind ingest` tries again"
    )


def cmd_ingest_all(args: argparse.Namespace, run_ingest: Callable, print_ingest_report: Callable) -> int:
    """`refind ingest` (no paths): pull the remote sources, then ingest recorded sources and mirrors
    (with `cli.core`'s `run_ingest` and `print_ingest_report`, passed in)."""
    svc = services()
    try:
        data = svc.paths.data_dir
        quiet = args.json
        results: list[PullResult] = []
        if RemoteStore(data).list():
            results = pull_all(
                data,
                on_result=None
                if quiet
                else lambda r: print(printable(pull_line(r), one_line=True), file=sys.stderr),
            )
        local = [Path(p) for p in svc.settings.sources]
        mirrors = mirror_roots(data)
        if not local and not mirrors and results:  # every remote failed before its first pull
            if quiet:
                print_json({"remotes": [r.to_json() for r in results]})
            return RemoteError.exit_code if any(not r.ok for r in results) else 0
        if not local and not mirrors:
            raise NotFoundError(
                "nothing to ingest: name files or folders (`refind ingest PATH`), record this machine's "
                "agent folders (`refind sources discover --add`) or add a remote folder "
                "(`refind sources add ssh://USER@HOST/PATH`)"
            )
        report = ingest_pulled(
            svc.ingestor,
            data,
            local,
            force=args.force,
            accept_shrink=args.accept_shrink,
            walk=lambda roots: run_ingest(svc, roots, args.force, args.accept_shrink, bar=not quiet),
        )
    finally:
        svc.close()
    failed = [r for r in results if not r.ok]
    if quiet:
        print_json({**report.to_json(), "remotes": [r.to_json() for r in results]})
    else:
        print_ingest_report(report)
        for host in dict.fromkeys(r.spec.host_key for r in failed):
            print(printable(f"refind: host {host} failed (see above)", one_line=True), file=sys.stderr)
    return RemoteError.exit_code if failed else 0
