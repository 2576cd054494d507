"""Shared fixtures (tests/conftest.py sets HF_HUB_OFFLINE before any model code runs: a hub
call would fail)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from playscout.embed import MiniLMEmbedder
from tests.embed.fake_server import Behaviour, FakeEmbeddingServer


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=8)


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    srv = FakeEmbeddingServer(Behaviour(dim=16)).start()
    yield srv
    srv.stop()
