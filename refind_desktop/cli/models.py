"""`refind models list | pull NAME [--url URL] | use NAME|PATH`: thin CLI callers of `llm.catalog`."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import locations
from ..config import load_settings, save_settings
from ..errors import MissingDependencyError, NotFoundError
from ..llm import catalog
from ..terminal import shell_command
from .common import Progress, print_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `models` command and its subcommands."""
    p = sub.add_parser("models", help="list, download and choose local GGUF models")
    msub = p.add_subparsers(dest="models_command", metavar="SUBCOMMAND")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    q = msub.add_parser("list", help="catalog models, which are present, which is in use")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_list)

    q = msub.add_parser("pull", help="download (or assemble from installed parts) and verify a model")
    q.add_argument("name", help="catalog name (see `refind models list`)")
    q.add_argument("--url", default=None, help="download from this URL instead of the catalog's")
    q.set_defaults(func=cmd_pull)

    q = msub.add_parser("use", help="make a catalog model or a .gguf path the llama back end's model")
    q.add_argument("model", help="catalog name, path to a .gguf file, or '' for the embedded default")
    q.set_defaults(func=cmd_use)


def _human(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def cmd_list(args: argparse.Namespace) -> int:
    """`refind models list`"""
    in_use = load_settings().model
    folder = locations.models_dir()
    rows = []
    for e in catalog.list_models():
        present = catalog.is_present(e, folder) or (e.embedded and _embedded_ready())
        current = in_use == e.name or (e.embedded and not in_use)
        rows.append(
            {
                "name": e.name,
                "file": e.file,
                "size": e.size,
                "licence": e.licence,
                "present": present,
                "parts_installed": not present and _parts_installed(e),
                "in_use": current,
                "verified_digest": e.verifiable,
                "embedded": e.embedded,
                "url": e.url,
                "description": e.description,
                "controller": e.controller,
                "seconds_per_question": e.seconds_per_question or None,
                "accuracy": e.accuracy if e.accuracy >= 0 else None,
                "measured": e.measured,
            }
        )
    if in_use and not any(r["in_use"] for r in rows):
        rows.append(
            {
                "name": in_use,
                "file": in_use,
                "present": Path(in_use).expanduser().is_file(),
                "in_use": True,
                "custom": True,
            }
        )
    if args.json:
        print_json({"models": rows, "models_dir": str(folder)})
        return 0
    for r in rows:
        mark = "*" if r["in_use"] else " "
        state = "present" if r["present"] else "parts" if r.get("parts_installed") else "-"
        if r.get("custom"):
            print(f"{mark} {r['name']}  (custom path, {state})")
            continue
        notes = [r["licence"]]
        if r["embedded"]:
            notes.append("embedded default")
        if not r["verified_digest"]:
            notes.append("no pinned sha256")
        speed = catalog.get_model(r["name"]).speed_note
        if speed:
            notes.append(speed)
        print(f"{mark} {r['name']:<30} {_human(r['size']):>8}  {state:<8} {', '.join(notes)}")
    print(
        f"\n* = in use; parts = installed from PyPI, assembled on first use; models folder: {folder}",
        file=sys.stderr,
    )
    return 0


def _parts_installed(entry: catalog.ModelEntry) -> bool:
    try:
        return bool(entry.parts) and bool(catalog.part_files(entry.parts))
    except MissingDependencyError:
        return False


def _embedded_ready() -> bool:
    entry = catalog.embedded_entry()
    cache = os.environ.get(catalog.CACHE_ENV)
    return bool(cache) and catalog.is_present(entry, Path(cache).expanduser())


def cmd_pull(args: argparse.Namespace) -> int:
    """`refind models pull NAME [--url URL]`"""
    entry = catalog.get_model(args.name)
    bar = Progress(f"pulling {entry.name}")
    try:
        path = catalog.pull(
            entry.name, progress=lambda done, total: bar.update(done, total or None), url=args.url
        )
    finally:
        bar.close()
    info = catalog.read_marker(path) or {}
    if entry.verifiable:
        print(f"{entry.name}: verified sha256 {entry.sha256}\n{path}")
    else:
        print(
            f"{entry.name}: NOT verified — the catalog pins no sha256 for it; the file's sha256 is "
            f"{info.get('sha256', '?')}; compare it with the publisher's before trusting it\n{path}"
        )
    return 0


def cmd_use(args: argparse.Namespace) -> int:
    """`refind models use NAME|PATH`"""
    value = args.model.strip()
    if value:
        path = Path(value).expanduser()
        if path.suffix == ".gguf" or path.exists():
            if not path.is_file():
                raise NotFoundError(f"{path} is not a file; give a .gguf path or a catalog name")
            value = str(path.resolve())
        else:
            entry = catalog.get_model(value)
            if not entry.embedded and not (locations.models_dir() / entry.file).is_file():
                print(
                    f"note: {value} is not downloaded yet; run `{shell_command('refind', 'models', 'pull', value)}`",
                    file=sys.stderr,
                )
    settings = load_settings(environment=False)  # REFIND_* values stay in the environment
    written = save_settings(settings.replace(model=value))
    print(f"model = {value or '(embedded default)'}  (written to {written})")
    return 0
