"""`refind watch [FOLDER]`: the headless folder watcher (for a terminal or the systemd user unit)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from .. import locations
from ..errors import ConfigError
from ..ingest.watcher import FolderWatcher
from .common import services

LOG_NAME = "watch.log"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the watch command."""
    p = sub.add_parser("watch", help="ingest a chat folder, then keep ingesting what changes in it")
    p.add_argument("folder", nargs="?", type=Path, help="folder to watch (default: the chat_folder setting)")
    p.add_argument(
        "--debounce",
        type=float,
        default=0.5,
        metavar="S",
        help="quiet period before a batch of changes is ingested (default 0.5 s)",
    )
    p.set_defaults(func=cmd_watch)


def setup_logging() -> tuple[logging.Logger, list[logging.Handler]]:
    """Log to watch.log (created 0600 in the log dir) and to stderr; returns the handlers to remove."""
    path = locations.log_dir() / LOG_NAME
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    path.chmod(0o600)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [
        logging.FileHandler(path, encoding="utf-8"),
        logging.StreamHandler(sys.stderr),
    ]
    logger = logging.getLogger("refind.watch")
    for h in handlers:
        h.setFormatter(fmt)
        logger.addHandler(h)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger, handlers


def cmd_watch(args: argparse.Namespace) -> int:
    """Run until SIGTERM or SIGINT; the current commit finishes, then exit 0."""
    svc = services()
    folder = args.folder
    if folder is None:
        if not svc.settings.chat_folder:
            raise ConfigError(
                "no folder to watch: run `refind watch FOLDER`, or set chat_folder "
                f"in {locations.config_file()} (or REFIND_CHAT_FOLDER)"
            )
        folder = Path(svc.settings.chat_folder)
    logger, handlers = setup_logging()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    watcher = FolderWatcher(svc, folder, debounce=args.debounce)
    try:
        watcher.start()
        logger.info(
            "refind watch (pid %d) on %s; deleted files are reported, not forgotten: "
            "run `refind forget PATH` to remove their turns",
            os.getpid(),
            watcher.folder,
        )
        while not stop.wait(0.5):
            if not watcher.running:
                return 1
        logger.info("signal received: finishing the current commit")
        watcher.stop()
        return 0
    finally:
        watcher.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for h in handlers:
            logger.removeHandler(h)
            h.close()
        svc.close()
