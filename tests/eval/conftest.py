"""Eval settings over the shared synthetic corpus and index (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from playscout.config import EvalSettings, Settings
from tests.synthdata import SynthIndex


@pytest.fixture
def settings(synth_index: SynthIndex) -> Settings:
    return Settings(corpus_dir=synth_index.corpus_dir, index=str(synth_index.index_dir))


@pytest.fixture
def eval_settings(tmp_path: Path) -> EvalSettings:
    return EvalSettings(cache_db=tmp_path / "cache.sqlite")
