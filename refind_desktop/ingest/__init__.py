"""Chat-export ingest: format detection, one reader per format, the incremental pipeline, the watcher.

Public names are re-exported lazily (PEP 562) so that importing one reader does not load the
index or the watcher.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "FORMATS": "formats",
    "get_parser": "formats",
    "ParseContext": "base",
    "Message": "base",
    "FormatParser": "base",
    "ChangeListener": "pipeline",
    "detect_file": "detect",
    "UndetectedError": "detect",
    "Source": "walker",
    "Skipped": "walker",
    "discover": "walker",
    "Ingestor": "pipeline",
    "IngestReport": "pipeline",
    "IngestProgress": "pipeline",
    "Limits": "limits",
    "LimitExceeded": "limits",
    "FolderWatcher": "watcher",
    "WatchEvent": "watcher",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
