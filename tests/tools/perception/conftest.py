"""Perception tools run on `media_corpus` (tests/conftest.py): a copy of the shared synthetic
corpus whose first basketball clips are real mp4s made in the test session. The perception
tools read files through the corpus only; the context's backend is the shared index, built
over the same records."""

from __future__ import annotations

import pytest

from playscout.search.embedded import EmbeddedBackend
from playscout.tools.tool import ToolContext
from tests.media.samples import MediaCorpus


@pytest.fixture
def ctx(media_corpus: MediaCorpus, synth_backend: EmbeddedBackend) -> ToolContext:
    return ToolContext(backend=synth_backend, sport=media_corpus.sport, corpus=media_corpus.corpus)
