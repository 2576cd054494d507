"""Shared fixtures: a real embedded index over a small synthetic corpus. The index, the search
tools and the graph are real; only the LLM is a test double (tests/doubles.py), because no
model server runs in unit tests (the vLLM end-to-end test is separate).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from playscout.corpus import Corpus
from playscout.tools import SEARCH_TOOLS, ToolContext


@dataclass
class SynthIndex:
    corpus_dir: Path
    index_dir: Path
    backend: Any

    def ctx(self, mode: str = "oracle") -> ToolContext:
        return ToolContext(backend=self.backend, sport="basketball", mode=mode)  # type: ignore[arg-type]

    def questions(self) -> list[Any]:
        return [q for q in Corpus(self.corpus_dir).questions("basketball") if q.gold]


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthIndex:
    from playscout.indexer.build import build_from_corpus
    from playscout.search import open_backend
    from playscout.synthetic import generate_corpus, generate_questions

    root = tmp_path_factory.mktemp("agent-synth")
    corpus, index = root / "corpus", root / "index"
    generate_corpus(corpus, games=3, seed=1)
    generate_questions(corpus, per_sport=3, seed=1)
    build_from_corpus(corpus, index, sports=["basketball"], caption_embedder="minilm")
    return SynthIndex(corpus, index, open_backend(index))


@pytest.fixture
def search_tools() -> tuple[Any, ...]:
    return SEARCH_TOOLS
