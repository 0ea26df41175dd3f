"""`refind tui` (and plain `refind`): open the terminal app on the chat folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import ConfigError


def register(sub: argparse._SubParsersAction) -> None:
    """Add `tui` and make it what `refind` runs without a command."""
    p = sub.add_parser("tui", help="open the terminal app (the default when no command is given)")
    p.add_argument(
        "--folder",
        type=Path,
        default=None,
        help="chat folder to index and watch for this run (default: the configured one)",
    )
    p.add_argument("--no-watch", action="store_true", help="index once, do not watch the folder")
    p.set_defaults(func=cmd_tui)


def cmd_tui(args: argparse.Namespace) -> int:
    """Build the services, run the app, close the services."""
    from ..config import load_settings
    from ..services import build_services
    from ..tui import RefindApp

    folder = None
    if args.folder is not None:
        folder = args.folder.expanduser()
        if not folder.is_dir():
            raise ConfigError(f"{folder} is not a folder; pass the folder that holds your chat exports")
        folder = str(folder.resolve())
    settings = load_settings()
    svc = build_services(settings)
    try:
        app = RefindApp(svc, settings, folder=folder, watch=not args.no_watch)
        app.run()
        return app.return_code or 0
    finally:
        svc.close()
