"""build_services(): the one factory that wires config, index, catalog, ingest and search for every front end.

Also the core of `refind reindex` (`reindex`). Called by the CLI, the TUI, the eval harness, the
benchmarks and the tests; `paths` points it at another refind home without environment variables.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .config import Settings, load_settings
from .errors import ConfigError
from .index.catalog import Catalog
from .index.sourcebook import REBUILD_NAME
from .index.store import TurnIndex
from .ingest.conversations import SplitRule
from .ingest.limits import Limits
from .ingest.pipeline import Ingestor, IngestProgress
from .ingest.rebuild import RebuildResult, rebuild
from .ingest.remote_hosts import host_summaries
from .ingest.remote_spec import MIRRORS, host_of
from .locations import Paths, default_paths
from .rag.state import StaleMarker, vectors_folder
from .redact import Redactor
from .search.engine import SearchEngine, SearchOptions
from .search.hosts import Machines
from .types import Session

if TYPE_CHECKING:  # heavy (numpy, the embedding model): imported where they are built
    from .rag.dense import DenseRetriever
    from .rag.hybrid import HybridEngine


def resolve_tz(name: str) -> tzinfo:
    """The zone for naive timestamps and date filters."""
    if not name or name.lower() == "local":
        return local_zone()
    if name.upper() == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"unknown time zone {name!r}; use 'local', 'UTC' or a name like 'Europe/Paris'"
        ) from exc


def local_zone() -> tzinfo:
    """This machine's IANA zone with its DST rules (not today's fixed UTC offset)."""
    import tzlocal

    try:
        name = tzlocal.get_localzone_name()
        return ZoneInfo(name) if name else tzlocal.get_localzone()
    except (ZoneInfoNotFoundError, ValueError, LookupError, OSError):
        from datetime import datetime

        return datetime.now().astimezone().tzinfo or timezone.utc  # last resort: today's offset


def zone_label(tz: tzinfo) -> str:
    """Name of a zone for `refind stats`: the IANA key, "UTC", or the zone's own name."""
    return getattr(tz, "key", None) or ("UTC" if tz is timezone.utc else str(tz))


def machines(paths: Paths) -> Machines:
    """The hosts of this home's remote mirrors (`ingest/remote_spec.py`), for results and `--host`."""
    data = paths.data_dir.resolve()  # source paths are stored resolved
    return Machines(data / MIRRORS, lambda source: host_of(source, data))


def split_rule(settings: Settings, tz: tzinfo) -> SplitRule:
    """The rule that cuts messenger chats into conversations, from the settings."""
    return SplitRule.from_hours(settings.conversation_gap_hours, settings.conversation_night_gap_hours, tz)


@dataclass
class Services:
    """Everything a front end needs; build with `build_services`."""

    settings: Settings
    index: TurnIndex
    catalog: Catalog
    ingestor: Ingestor
    engine: SearchEngine
    tz: tzinfo
    paths: Paths = field(default_factory=default_paths)
    """Where this home's config, index, catalog and logs live."""
    # Built on first use by the modes that need them, then kept for the life of the services:
    dense: DenseRetriever | None = None
    """Raw-RAG retriever over this index's vectors (`rag.rawrag.dense_for`)."""
    hybrid: HybridEngine | None = None
    """Four-way RRF engine of the single-shot `hybrid` eval mode (`rag/eval_modes.py`)."""
    vectors_current: bool = False
    """True once the eval harness embedded this haystack's windows (`rag/eval_modes.py`)."""
    eval_sessions: list[Session] = field(default_factory=list)
    """The eval haystack's parsed sessions, for eval modes with an index of their own (`eval/runner.py`)."""
    bm25s_anchor: tuple[Any, ...] | None = None
    """(bm25s module, stemmer, model, turn keys) of the eval's external bm25s anchor (`eval/modes.py`)."""

    def search_options(self, **overrides: object) -> SearchOptions:
        """Engine options from settings, with per-call overrides."""
        base = SearchOptions(top_k=self.settings.top_k, context_window=self.settings.context_window)
        return base.with_(**overrides)

    @property
    def machines(self) -> Machines:
        """This home's remote machines: the host of a source file, the sessions a `--host` selects."""
        return self.engine.machines or machines(self.paths)

    @property
    def redactor(self) -> Redactor:
        """Secret redaction for what a front end prints or sends, on unless `settings.redact` is off."""
        return Redactor(self.settings.redact)

    def stats(self) -> dict:
        """What `refind stats --json` and the MCP `stats` tool report: sources (files present), sessions,
        turns, per-format counts, skipped files with reasons, the zone naive times were read in, the
        source files that are gone while the archive keeps their turns (`gone`), and per remote host
        what it added and how its last pull went (`hosts`, `ingest/remote_hosts.py`)."""
        data = self.catalog.totals()
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.catalog.skipped()]
        data["index_turns"] = self.index.num_turns()
        data["timezone"] = zone_label(self.tz)
        notes = self.catalog.notes()
        data["partial"] = [{"path": p, "reason": d} for p, k, d in notes if k == "partial"]
        data["held"] = [{"path": p, "reason": d} for p, k, d in notes if k == "held"]
        data["forgotten"] = self.catalog.ignored()
        data["rebuild_pending"] = (self.paths.data_dir / REBUILD_NAME).exists()
        data["gone"] = self._gone_sources(data)
        data["hosts"] = [h.to_json() for h in host_summaries(self.paths.data_dir, self.catalog)]
        return data

    def _gone_sources(self, data: dict) -> list[dict]:
        """Source files that no longer exist, whose turns the archive keeps (`forget` deletes them);
        they are taken out of the present-file counts of `data`."""
        counts = self.catalog.source_counts()
        gone = []
        for rec in self.catalog.files():
            if os.path.lexists(rec.path):
                continue
            sessions, turns = counts.get(rec.path, (0, 0))
            gone.append({"path": rec.path, "format": rec.format, "sessions": sessions, "turns": turns})
            data["sources"] -= 1
            if rec.format in data["formats"]:
                data["formats"][rec.format]["files"] -= 1
        return gone

    def close(self) -> None:
        """Release the catalog connection."""
        self.catalog.close()


def build_services(settings: Settings | None = None, paths: Paths | None = None) -> Services:
    """Open (creating when needed) the index and catalog of `paths` (default: the user's locations,
    moved by REFIND_HOME); `settings` default to `load_settings` of that home's config file."""
    paths = (paths or default_paths()).make_data_dirs()
    settings = settings or load_settings(paths.config_file)
    tz = resolve_tz(settings.timezone)
    index = TurnIndex(paths.index_dir, lock_wait=settings.lock_wait)
    catalog = Catalog(paths.catalog_file)
    return Services(
        settings=settings,
        index=index,
        catalog=catalog,
        ingestor=Ingestor(
            index,
            catalog,
            tz,
            [StaleMarker(vectors_folder(index.path))],
            Limits.from_settings(settings),
            split_rule(settings, tz),
        ),
        engine=SearchEngine(index, catalog, tz, machines=machines(paths)),
        tz=tz,
        paths=paths,
    )


def reindex(
    settings: Settings | None = None,
    paths: Paths | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    folders: Iterable[Path] = (),
    from_sources: bool = False,
) -> RebuildResult:
    """Rebuild the index from the recorded source files (or, with `from_sources`, from the recorded or
    given folders, which works when the catalog is gone or damaged): under the writer lock, wipe the
    index and catalog, then ingest again (`ingest/rebuild.py`). Files that are gone are reported."""
    paths = (paths or default_paths()).make_data_dirs()
    settings = settings or load_settings(paths.config_file)
    return rebuild(
        paths.data_dir,
        paths.index_dir,
        paths.catalog_file,
        lambda: build_services(settings, paths),
        folders=folders,
        from_sources=from_sources,
        lock_wait=settings.lock_wait,
        progress=progress,
    )
