"""Agent test fixtures: services over the small archive of `helpers.agent`."""

from __future__ import annotations

import pytest
from helpers.agent import ARCHIVE

from refind_desktop.services import build_services


@pytest.fixture
def svc():
    services = build_services()
    services.ingestor.apply_sessions(ARCHIVE, "agent-tests", "generic")
    yield services
    services.close()
