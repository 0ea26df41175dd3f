"""Reading chat exports into sessions of turns: one reader module per format, detection, the incremental
ingest pipeline and the folder watcher (`watcher`, imported where it is used: it loads watchdog)."""

from .base import FormatParser, Message, ParseContext
from .pipeline import ChangeListener, Ingestor, IngestProgress, IngestReport

__all__ = [
    "ChangeListener",
    "FormatParser",
    "IngestProgress",
    "IngestReport",
    "Ingestor",
    "Message",
    "ParseContext",
]
