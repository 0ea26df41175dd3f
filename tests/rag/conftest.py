"""Raw-RAG fixtures: the stand-in embedder of `helpers.rag` and services over it."""

from __future__ import annotations

import pytest
from helpers.rag import FakeEmbedder

from refind_desktop.rag.dense import DenseRetriever
from refind_desktop.services import build_services


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def svc(fake):
    services = build_services()
    services.dense = DenseRetriever(
        services.index, services.catalog, embedder=fake, reranker=(None, "no cross-encoder configured (test)")
    )
    yield services
    services.dense.close()
    services.close()
