"""build_services(): the one factory that wires config, index, catalog, ingest and search for every front end."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import locations
from .config import Settings, load_settings
from .errors import ConfigError
from .index.catalog import Catalog
from .index.journal import JOURNAL_NAME
from .index.store import TurnIndex
from .ingest.limits import Limits
from .ingest.pipeline import Ingestor
from .rag.state import StaleMarker, vectors_folder
from .search.engine import SearchEngine, SearchOptions


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


@dataclass
class Services:
    """Everything a front end needs; build with `build_services`."""

    settings: Settings
    index: TurnIndex
    catalog: Catalog
    ingestor: Ingestor
    engine: SearchEngine
    tz: tzinfo
    extras: dict = field(default_factory=dict)

    def search_options(self, **overrides: object) -> SearchOptions:
        """Engine options from settings, with per-call overrides."""
        base = SearchOptions(top_k=self.settings.top_k, context_window=self.settings.context_window)
        return base.with_(**overrides)

    def close(self) -> None:
        """Release the catalog connection."""
        self.catalog.close()


def build_services(settings: Settings | None = None) -> Services:
    """Open (creating when needed) the index and catalog under the configured data dir."""
    settings = settings or load_settings()
    tz = resolve_tz(settings.timezone)
    index = TurnIndex(locations.index_dir(), lock_wait=settings.lock_wait)
    catalog = Catalog(locations.catalog_file())
    return Services(
        settings=settings,
        index=index,
        catalog=catalog,
        ingestor=Ingestor(
            index, catalog, tz, [StaleMarker(vectors_folder(index.path))], Limits.from_settings(settings)
        ),
        engine=SearchEngine(index, catalog, tz),
        tz=tz,
    )


def wipe_index() -> None:
    """Delete the index and catalog so `reindex` can rebuild them (call it holding the writer lock)."""
    shutil.rmtree(locations.index_dir(), ignore_errors=True)
    (locations.data_dir() / JOURNAL_NAME).unlink(missing_ok=True)
    for suffix in ("", "-wal", "-shm"):
        p = locations.catalog_file().with_name(locations.catalog_file().name + suffix)
        if p.exists():
            p.unlink()
