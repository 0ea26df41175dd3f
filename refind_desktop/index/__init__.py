"""The turn index on disk: tantivy documents (one per turn), the SQLite catalog, the writer lock and journal.

Terms used across the code base:
- `sid`: a session id, the stable string a reader gives a conversation (e.g. `chatgpt:<uuid>`).
- `sord`: a session ordinal, the small integer the catalog assigns to each session (`Catalog.next_ord`,
  never reused); the index stores it as a fast field, so ranking, fusion and context work on integers.
- `turn`: a turn's position in its session, from 0.
"""

from .catalog import Catalog, FileRecord, SessionRecord
from .journal import JOURNAL_NAME, WriteJournal
from .lock import LOCK_NAME, WriterLock, writer_lock
from .schema import SCHEMA_VERSION
from .store import TurnIndex, TurnWriter, clean_query

__all__ = [
    "JOURNAL_NAME",
    "LOCK_NAME",
    "SCHEMA_VERSION",
    "Catalog",
    "FileRecord",
    "SessionRecord",
    "TurnIndex",
    "TurnWriter",
    "WriteJournal",
    "WriterLock",
    "clean_query",
    "writer_lock",
]
