"""`refind sources add|list|remove` for folders on other machines, and `sources discover --host`.

Thin callers of the transport (`ingest/remote.py`: the RemoteStore of `ssh://` sources, `list_remote`)
and of `ingest/remote_hosts.py` (what each host added and how its last pull went); `cli/sources.py`
registers the verbs and hands remote arguments here. Nothing is pulled here: `refind ingest` pulls.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import locations
from ..errors import NotFoundError
from ..ingest.known_sources import remote_candidates
from ..ingest.remote import RemoteError, RemoteStore, list_remote, parse_host
from ..ingest.remote_hosts import host_summaries
from ..ingest.remote_spec import RemoteSpec, parse_remote
from ..terminal import printable, shell_command
from .common import human_size, plural, print_json, safe


def is_remote(text: str) -> bool:
    """Whether a source argument names a folder on another machine."""
    return text.startswith("ssh://")


def host_line(h: dict) -> str:
    """One host of `stats` / `sources list`: state (and why a pull failed), counts, last pull."""
    pull = h.get("last_pull")
    state = h["state"]
    if state == "failed" and pull and pull.get("error"):
        state = f"FAILED: {pull['error']}"
    when = f", last pull {pull['when']}" if pull and pull.get("when") else ""
    return f"{h['host']}: {state} ({h['files']} files, {h['sessions']} sessions, {h['turns']} turns{when})"


def store() -> RemoteStore:
    """The remote sources of this refind home."""
    return RemoteStore(locations.data_dir())


def cmd_add_remote(args: argparse.Namespace) -> int:
    """`refind sources add ssh://USER@HOST[:PORT]/PATH`: record it; `refind ingest` pulls and reads it."""
    spec = parse_remote(args.source)
    new = store().add(spec)
    mirror = spec.mirror_dir(locations.data_dir())
    if args.json:
        print_json({"added": [spec.url] if new else [], "host": spec.host_key, "mirror": str(mirror)})
        return 0
    if new:
        print(printable(f"added {spec.url} (host {spec.host_key})", one_line=True))
    else:
        print(printable(f"{spec.url} is already a source", one_line=True))
    print(
        "`refind ingest` pulls it over ssh (your ~/.ssh/config, keys and agent; first run "
        f"`{printable(shell_command('ssh', *_ssh_args(spec)), one_line=True)}` once to accept its host key) "
        "and indexes it; `refind watch` pulls it on the remote_pull_interval setting."
    )
    return 0


def _ssh_args(spec: RemoteSpec) -> list[str]:
    """`ssh` arguments that reach the spec's host as the pull does."""
    args = ["-p", str(spec.port)] if spec.port else []
    return [*args, f"{spec.user}@{spec.host}" if spec.user else spec.host]


def remote_rows(svc) -> list[dict]:
    """`sources list` rows of the remote sources: URL, host, its state and last pull, mirror present."""
    data = svc.paths.data_dir
    rows = []
    for h in host_summaries(data, svc.catalog):
        for url in h.to_json()["sources"]:
            mirror = parse_remote(url).mirror_dir(data)
            rows.append(
                {
                    "path": url,
                    "remote": True,
                    "host": h.host,
                    "mirror": str(mirror),
                    "exists": mirror.is_dir(),
                    "state": h.state,
                    "last_pull": h.last_pull.to_json() if h.last_pull else None,
                    "host_counts": {"files": h.files, "sessions": h.sessions, "turns": h.turns},
                }
            )
    return rows


def remote_row_line(r: dict) -> str:
    """One remote source of `sources list`, with its host's state."""
    counts = r["host_counts"]
    line = host_line({"host": r["host"], "state": r["state"], "last_pull": r["last_pull"], **counts})
    return f"{r['path']}  (host {line})"


def cmd_remove_remote(text: str) -> int:
    """`refind sources remove ssh://…` or `USER@HOST[:PORT]` (every source of that host)."""
    gone = store().remove(text)
    for spec in gone:
        print(printable(f"{spec.url} is no longer a source", one_line=True))
    mirrors = {str(s.mirror_dir(locations.data_dir())) for s in gone}
    for mirror in sorted(mirrors):
        print(
            printable(
                f"its pulled copy and turns stay searchable until `{shell_command('refind', 'forget', mirror)}`",
                one_line=True,
            )
        )
    return 0


def knows_host(text: str) -> bool:
    """Whether `text` is the host key of a recorded remote source (`sources remove HOST`)."""
    return any(text in (s.host_key, s.url) for s in store().list())


def cmd_discover_host(args: argparse.Namespace) -> int:
    """`refind sources discover --host USER@HOST[:PORT] [--add]`: the agent folders that exist there
    (names and sizes only, over SFTP), recorded as remote sources with `--add`."""
    host = parse_host(args.host)
    tools = dict((path, tool) for tool, path in reversed(remote_candidates()))
    if args.only:
        tools = {p: t for p, t in tools.items() if any(o.lower() in t.lower() for o in args.only)}
    try:
        found = list_remote(host, list(tools))
    except RemoteError as exc:  # which machine failed, then why
        raise RemoteError(f"{host.host_key}: {exc.message}") from None
    specs = [parse_remote(f"ssh://{host.host_key}/{path}") for path, _files, _size in found]
    added = [s.url for s in specs if store().add(s)] if args.add else []
    if args.json:
        print_json(
            {
                "host": host.host_key,
                "found": [
                    {"tool": tools[p], "path": p, "url": s.url, "files": n, "size": size}
                    for (p, n, size), s in zip(found, specs, strict=True)
                ],
                "added": added,
            }
        )
        return 0
    if not found:
        print(safe(f"No known agent folders on {host.host_key}."))
        return 0
    print(safe(f"Found {plural(len(found), 'place')} on {host.host_key} (nothing has been read):\n"))
    width = max(len(tools[p]) for p, _n, _s in found)
    for n, (path, files, size) in enumerate(found, 1):
        print(f"{n:3}. {safe(tools[path]):<{width}}  {safe(path)}")
        print(f"     {'':<{width}}  {plural(files, 'file')}, {human_size(size)}")
    print()
    if args.add:
        print(f"Recorded {plural(len(added), 'new remote source')}; pull and read them with `refind ingest`.")
    else:
        print(
            safe(f"Record them with `refind sources discover --host {host.host_key} --add`"),
            "(or pick some with --only TOOL).",
        )
    return 0


def check_local(path: str) -> Path:
    """A local source argument that exists, or NotFoundError."""
    p = Path(path).expanduser()
    if not p.exists():
        raise NotFoundError(f"{path} does not exist; a folder on another machine is ssh://USER@HOST/PATH")
    return p.resolve()
