"""Session fixtures every test package shares: one small synthetic corpus, one embedded index
over it (built once, on first use), and a copy of the corpus with real media files. How they are
made: tests/synthdata.py. The chat-model double is in tests/doubles.py.

Shared data is read-only: each fixture checks at the end of the session that no test wrote
into it. A test that needs to change a corpus copies it (synthdata.copy_corpus).
"""

from __future__ import annotations

import os
import tempfile

# No model code may reach the hub: the weights come from installed packages.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every `ask` is recorded in agent.trajectory_dir (var/trajectories by default): a test that
# names no folder records into a temporary one, never into the checkout.
os.environ.setdefault(
    "PLAYSCOUT_AGENT__TRAJECTORY_DIR", tempfile.mkdtemp(prefix="playscout-test-asks-")
)

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from playscout.corpus import Corpus
from playscout.search.embedded import EmbeddedBackend
from tests.synthdata import SPORT, Fingerprint, SynthIndex, copy_corpus, index_corpus, make_corpus

if TYPE_CHECKING:
    from tests.media.samples import MediaCorpus


@pytest.fixture(scope="session")
def synth_corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    """The shared synthetic corpus: one game per sport, 3 questions per sport (read-only)."""
    root = make_corpus(tmp_path_factory.mktemp("synth") / "corpus")
    seal = Fingerprint(root)
    yield Corpus(root)
    seal.check("synthetic corpus")


@pytest.fixture(scope="session")
def synth_index(
    synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SynthIndex]:
    """The shared corpus' basketball index: BM25 + MiniLM document and caption vectors, no
    video vectors (read-only)."""
    index_dir = tmp_path_factory.mktemp("synth_index") / "index"
    backend = index_corpus(synth_corpus.root, index_dir, sports=[SPORT])
    seal = Fingerprint(index_dir)
    yield SynthIndex(synth_corpus.root, index_dir, backend)
    seal.check("index")


@pytest.fixture(scope="session")
def synth_backend(synth_index: SynthIndex) -> EmbeddedBackend:
    return synth_index.backend


@pytest.fixture(scope="session")
def media_corpus(synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> MediaCorpus:
    """A copy of the shared corpus with real mp4s at the first basketball clips' paths:
    a scoreboard video, the same with espeak-ng speech, a tone, a broken file, and one clip
    listed but never written. Its records are the shared corpus' records, so the shared
    index serves it."""
    from tests.media.samples import add_media_clips

    copy = copy_corpus(synth_corpus, tmp_path_factory.mktemp("media") / "corpus")
    return add_media_clips(copy, SPORT)


@pytest.fixture(scope="session")
def bge_stand_in() -> Iterator[Any]:
    """A scripted OpenAI /v1/embeddings server of BGE-M3's width (1,024), in the stand-in space
    the release-layout vectors of tests/release_layout.py are made in."""
    from tests.embed.fake_server import Behaviour, FakeEmbeddingServer

    server = FakeEmbeddingServer(Behaviour(dim=1024)).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def release_t9(
    synth_corpus: Corpus, bge_stand_in: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Corpus, Any]]:
    """(corpus, index): the shared corpus' basketball as the SVI-Bench release lays it out (no
    simulator manifest, its own embeds/: tests/release_layout.py) and an index of those
    vectors, text queries by `bge_stand_in` (read-only)."""
    from tests.release_layout import build_release_index, release_copy

    root = tmp_path_factory.mktemp("release_t9")
    corpus = release_copy(synth_corpus, root / "T9", SPORT)
    index = build_release_index(corpus, root / "index", SPORT, bge_stand_in.base_url)
    seal = Fingerprint(root)
    yield corpus, index
    seal.check("release-layout corpus and index")
