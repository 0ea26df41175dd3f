"""Fixtures of the hardening suite: services on the test's REFIND_HOME."""

from __future__ import annotations

import pytest

from refind_desktop.services import build_services


@pytest.fixture
def svc(refind_home):
    """Services over an empty index in the test's home."""
    s = build_services()
    yield s
    s.close()
