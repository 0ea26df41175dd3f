"""The project's error hierarchy: every core failure is a RefindError with a human title."""

from __future__ import annotations


class RefindError(Exception):
    """Base error; `message` says what went wrong and what to do next."""

    title = "refind error"
    exit_code = 1

    def __init__(self, message: str, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title:
            self.title = title


class ConfigError(RefindError):
    """The configuration is invalid or incomplete."""

    title = "configuration error"
    exit_code = 2


class UsageError(RefindError):
    """A command's arguments do not make sense together (a range that ends before it starts)."""

    title = "argument error"
    exit_code = 2


class IndexSchemaError(RefindError):
    """The on-disk index was written by an incompatible schema version."""

    title = "index needs rebuilding"
    exit_code = 3


class IndexLockedError(RefindError):
    """Another process holds the writer lock on the index."""

    title = "index is busy"
    exit_code = 4


class NotFoundError(RefindError):
    """A session, turn, source or model that was asked for does not exist."""

    title = "not found"
    exit_code = 5


class ParseError(RefindError):
    """A chat file could not be read; the file is skipped, nothing else is affected."""

    title = "file skipped"


class MissingDependencyError(RefindError):
    """An optional dependency is not installed; the message names the extra to install."""

    title = "missing dependency"
    exit_code = 6


class BackendError(RefindError):
    """A language-model back end failed (load, request or protocol)."""

    title = "model back end error"
    exit_code = 7


class IndexDamagedError(RefindError):
    """A file of the index or catalog failed its integrity check."""

    title = "index damaged"
    exit_code = 8


class DiskFullError(RefindError):
    """A write failed for lack of space (or of write permission); nothing was half-written."""

    title = "cannot write"
    exit_code = 9


def describe_failure(exc: BaseException) -> str:
    """One line saying why one file or folder could not be read (for skip reasons and warnings)."""
    if isinstance(exc, RefindError):
        return exc.message
    if isinstance(exc, RecursionError):
        return "nested too deeply to read (more levels of brackets than any chat export has)"
    if isinstance(exc, MemoryError):
        return "too large to read in the available memory"
    if isinstance(exc, UnicodeError):
        return f"cannot decode text ({exc})"
    if isinstance(exc, PermissionError):
        return f"unreadable: {exc.strerror or exc}"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def environment_failure(exc: BaseException, where: str = "the data folder") -> RefindError | None:
    """A RefindError with what to do for disk-full, read-only and damaged-database failures; else None."""
    import errno
    import sqlite3

    text = str(exc)
    if (isinstance(exc, OSError) and exc.errno == errno.ENOSPC) or any(
        m in text for m in ("No space left", "os error 28", "database or disk is full")
    ):
        return DiskFullError(
            f"no space left on the disk of {where}: free some space and run the command again "
            "(nothing was half-written: the index keeps its last complete commit)"
        )
    if (isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)) or any(
        m in text for m in ("readonly database", "Read-only file system", "os error 30", "Permission denied")
    ):
        return DiskFullError(
            f"{where} is not writable ({text.splitlines()[0] if text else type(exc).__name__}): "
            "`search`, `show`, `sessions` and `stats` still work; to change the index, make it "
            "writable or point REFIND_HOME at a writable folder"
        )
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return IndexDamagedError(f"the index is damaged ({text}): run `refind reindex` to rebuild it")
    return None


class InvalidOutputError(BackendError):
    """The model answered, but not in the form asked for (bad JSON, schema violation): retry."""

    title = "invalid model output"


class TruncatedOutputError(InvalidOutputError):
    """Invalid output because the reply was cut at max_tokens: retry with room to finish."""


class ContextOverflowError(BackendError):
    """The prompt does not fit the model's context window: send less text (or raise n_ctx)."""

    title = "prompt too long for the model"


class BackendUnavailableError(BackendError):
    """The back end cannot be reached or is not serving (connection refused, timeout, no model):
    stop and say what to check (server URL, model loaded), never answer as if nothing were found."""

    title = "model back end unreachable"
