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


class InvalidOutputError(BackendError):
    """The model answered, but not in the form asked for (bad JSON, schema violation): retry."""

    title = "invalid model output"


class ContextOverflowError(BackendError):
    """The prompt does not fit the model's context window: send less text (or raise n_ctx)."""

    title = "prompt too long for the model"


class BackendUnavailableError(BackendError):
    """The back end cannot be reached or is not serving (connection refused, timeout, no model):
    stop and say what to check (server URL, model loaded), never answer as if nothing were found."""

    title = "model back end unreachable"
