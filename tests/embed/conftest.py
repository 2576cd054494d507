"""Shared fixtures. HF_HUB_OFFLINE is set before any model code runs: a hub call would fail."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

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
