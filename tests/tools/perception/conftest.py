"""A one-game basketball corpus whose clip files are real mp4s made in the test session:
clip 0 scoreboard video without audio, clip 1 the same with espeak-ng speech, clip 2 a tone,
clip 3 a broken file, clip 4 listed but never written."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from dataclasses import dataclass
from pathlib import Path

import pytest

from playscout.corpus import Corpus
from playscout.indexer.build import build_from_corpus
from playscout.search import open_backend
from playscout.synthetic import generate_corpus
from playscout.tools.tool import ToolContext
from tests.tools.perception import media

SPORT = "basketball"


@dataclass(frozen=True)
class MediaCorpus:
    corpus: Corpus
    board: str  # clip ids
    speech: str
    tone: str
    broken: str
    missing: str
    speech_seconds: float


@pytest.fixture(scope="session")
def media_corpus(tmp_path_factory: pytest.TempPathFactory) -> MediaCorpus:
    root = tmp_path_factory.mktemp("media_corpus")
    generate_corpus(root, games=1, seed=1, sports=[SPORT], workers=1)
    corpus = Corpus(root)
    game_id = next(iter(corpus.games(SPORT)))
    ids = sorted(corpus.clip_paths(SPORT, game_id), key=lambda c: int(c.rsplit("_", 1)[1]))[:5]
    board, speech, tone, broken, missing = ids

    def path(clip_id: str) -> Path:
        p = corpus.clip_path(SPORT, clip_id)
        assert p is not None and p.is_relative_to(root)
        return p

    wav = media.espeak_wav(media.SPEECH, root / "speech.wav")
    audio, sr = media.read_wav(wav)
    media.scoreboard_clip(path(board))
    media.speech_clip(path(speech), wav)
    media.tone_clip(path(tone))
    media.broken_clip(path(broken))
    assert not path(missing).exists()
    return MediaCorpus(corpus, board, speech, tone, broken, missing, audio.size / sr)


@pytest.fixture(scope="session")
def media_backend(media_corpus: MediaCorpus, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    index = tmp_path_factory.mktemp("media_index") / "idx"
    build_from_corpus(media_corpus.corpus.root, index, doc_embedder=None, caption_embedder=None)
    return open_backend(index)


@pytest.fixture
def ctx(media_corpus: MediaCorpus, media_backend) -> ToolContext:  # type: ignore[no-untyped-def]
    return ToolContext(backend=media_backend, sport=SPORT, corpus=media_corpus.corpus)
