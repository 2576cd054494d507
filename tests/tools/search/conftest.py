"""A real index over a small synthetic corpus, built once per test session."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pathlib import Path

import pytest

from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from playscout.search import open_backend
from playscout.search.embedded import EmbeddedBackend
from playscout.synthetic import generate_corpus, generate_questions


@pytest.fixture(scope="session")
def synth_corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("corpus")
    generate_corpus(root, games=6, seed=3, workers=1)
    generate_questions(root, per_sport=4, seed=3)
    return Corpus(root)


@pytest.fixture(scope="session")
def synth_backend(
    synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> EmbeddedBackend:
    index = tmp_path_factory.mktemp("index") / "idx"
    build_from_corpus(synth_corpus.root, index)
    return open_backend(Path(index))
