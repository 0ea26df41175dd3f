"""Command-line front end: argument parsing, error translation and the `refind` entry point."""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import RefindError, environment_failure
from ..terminal import printable

__all__ = ["build_parser", "main"]

DEFAULT_COMMAND = ["tui"]  # what plain `refind` runs: the terminal app
COMMAND_MODULES = (
    "core",
    "ask",
    "embed",
    "models",
    "evalcmd",
    "bench",
    "watch",
    "tui",
    "demo",
    "sources",
    "mcp",
)


def build_parser() -> argparse.ArgumentParser:
    """The full `refind` argument parser; each command module adds its subcommands."""
    parser = argparse.ArgumentParser(
        prog="refind",
        description="Search and ask questions over your own chat history, fully offline.",
    )
    parser.add_argument("--version", action="version", version=f"refind-desktop {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command and return its exit code; RefindErrors go to stderr with a non-zero exit code,
    argument errors too (argparse's usage line and message, exit code 2)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or an argument error already printed
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    if not getattr(args, "func", None):
        args = parser.parse_args(DEFAULT_COMMAND)
    from ..index.lock import set_process_label

    set_process_label(f"refind {args.command}" if args.command else "refind (app)")
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a reader that went away shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        return closed_pipe()
    except RefindError as exc:
        print(printable(f"refind: {exc.title}: {exc.message}", one_line=True), file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # disk full, read-only home, damaged database: one line, no traceback
        known = environment_failure(exc, _data_dir_name())
        if known is None:
            raise
        print(printable(f"refind: {known.title}: {known.message}", one_line=True), file=sys.stderr)
        return known.exit_code
    except KeyboardInterrupt:
        print("refind: interrupted", file=sys.stderr)
        return 130


SIGPIPE_EXIT = 128 + 13
"""The exit code of a program that a closed pipe ended (what `seq 1 100000 | head -1` leaves in
PIPESTATUS): the reader went away, nothing failed."""


def closed_pipe() -> int:
    """The reader of stdout went away (`refind sessions | head -1`): end quietly with SIGPIPE_EXIT.

    stdout is pointed at /dev/null first, so the interpreter's final flush of what is still buffered
    cannot fail again and print a traceback (the recipe of the Python `signal` docs; SIGPIPE itself
    stays ignored, so a client that hangs up on `refind mcp --http` never kills the server).
    """
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured by a test harness)
        pass
    return SIGPIPE_EXIT


def _data_dir_name() -> str:
    import os

    home = os.environ.get("REFIND_HOME")
    return f"the data folder ({home})" if home else "the data folder"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
