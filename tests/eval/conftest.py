"""A small synthetic corpus + basketball index shared by the eval tests (session-scoped: the
build dominates the cost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playscout.config import EvalSettings, Settings


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from playscout.indexer.build import build_from_corpus
    from playscout.synthetic import generate_corpus, generate_questions

    root = tmp_path_factory.mktemp("evalcorpus")
    corpus, index = root / "corpus", root / "index"
    generate_corpus(corpus, games=3, seed=1)
    generate_questions(corpus, per_sport=3)
    build_from_corpus(corpus, index, sports=["basketball"])
    return corpus, index


@pytest.fixture(scope="session")
def backend(synth: tuple[Path, Path]):  # type: ignore[no-untyped-def]
    from playscout.search import open_backend

    return open_backend(str(synth[1]))


@pytest.fixture
def settings(synth: tuple[Path, Path]) -> Settings:
    return Settings(corpus_dir=synth[0], index=str(synth[1]))


@pytest.fixture
def eval_settings(tmp_path: Path) -> EvalSettings:
    return EvalSettings(cache_db=tmp_path / "cache.sqlite")
