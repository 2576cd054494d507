"""Default-mode clip search over what was heard (transcript + audio events): BM25 on the visual
channel, alone when an index has no video vectors, fused with them by RRF when it has both; and
never a word of the oracle captions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playscout.corpus import Corpus
from playscout.search.backend_api import SearchError, rrf_fuse
from playscout.search.conformance import all_captions, corpus
from playscout.search.core.rules import visual_mode
from playscout.search.embedded import EmbeddedBackend, open_index
from playscout.search.embedded.build import SportSource, build_index
from playscout.tools import SEARCH_TOOLS, ToolContext, call_tool
from tests.synthdata import copy_corpus, index_corpus

TOOLS = {t.name: t for t in SEARCH_TOOLS}
HEARD = {  # clip index -> (transcript, audio events)
    5: ("Oh what a helicopter spin move in the lane, the rookie finishes!", []),
    9: ("Timeout on the floor, we will be right back.", ["crowd cheering", "buzzer"]),
    12: ("He has been the best defender in the league this season.", []),
}


@pytest.fixture(scope="module")
def heard_corpus(
    synth_corpus: Corpus, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Corpus, str]:
    """A copy of the shared synthetic corpus (one game per sport; a copy, because this writes)
    whose basketball game has heard text in 3 clips, written into clips_metadata as the video
    indexer writes it."""
    c = copy_corpus(synth_corpus, tmp_path_factory.mktemp("heard") / "corpus")
    game = c.games_in_order("basketball")[0]
    path = c.game_path("basketball", game, "clips_metadata")
    assert path is not None
    data = json.loads(path.read_text())
    for i, (transcript, events) in HEARD.items():
        meta = data["windows"][f"{game}_{i}"]["metadata"]
        meta["transcript"], meta["audio_events"] = transcript, events
    path.write_text(json.dumps(data))
    return Corpus(c.root), game


@pytest.fixture(scope="module")
def text_only(heard_corpus: tuple[Corpus, str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    c, _ = heard_corpus
    index = tmp_path_factory.mktemp("idx") / "idx"
    return index_corpus(c.root, index, doc_embedder=None, caption_embedder=None)


def videos(backend: Any, query: str, sport: str = "basketball") -> Any:
    ctx = ToolContext(backend=backend, sport=sport)  # default mode
    return call_tool(TOOLS, ctx, "search_videos", {"query": query})


def test_transcript_word_finds_its_clip_without_video_vectors(
    text_only: EmbeddedBackend, heard_corpus: tuple[Corpus, str], monkeypatch: Any
) -> None:
    c, game = heard_corpus
    for sport in text_only.sports():  # the visual channel must never read a caption
        monkeypatch.setattr(text_only._sport(sport).clips.captions, "get", _forbidden)
    r = videos(text_only, "helicopter spin")
    assert r.error is None, r.observation
    hits = r.data.hits
    assert hits[0].clip_id == f"{game}_5" and hits[0].record.transcript.startswith("Oh what")
    assert hits[0].scores.bm25_rank == 1 and hits[0].scores.dense_rank is None
    assert "via speech/audio text" in r.observation
    assert 'heard: "Oh what a helicopter spin move' in r.observation
    caption = next(x for x in c.clips_of_game("basketball", game) if x.clip_id == hits[0].clip_id)
    assert caption.caption and caption.caption[:40] not in r.observation
    assert all(h.record.caption == "" for h in hits)
    sounds = videos(text_only, "buzzer")
    assert [h.clip_id for h in sounds.data.hits] == [f"{game}_9"]


def test_text_only_index_channels_modes_and_sports_without_text(
    text_only: EmbeddedBackend, heard_corpus: tuple[Corpus, str]
) -> None:
    _, game = heard_corpus
    manifest = json.loads((text_only.path / "manifest.json").read_text())
    assert manifest["sports"]["basketball"]["observed_clips"] == len(HEARD)
    assert text_only.channels("basketball") == ["visual"]
    assert text_only.channels("hockey") == []  # no heard text, no vectors: no video channel
    bm25 = text_only.search_clips("basketball", "defender league", mode="bm25")
    assert bm25[0].clip_id == f"{game}_12" and bm25[0].highlights[0].startswith("He has been")
    with pytest.raises(SearchError, match="no video vectors"):
        text_only.search_clips("basketball", "defender", mode="dense")
    r = videos(text_only, "defender", sport="hockey")
    assert r.error is not None and "no video embeddings or speech transcripts" in r.error


def _forbidden(*_: Any) -> Any:
    raise AssertionError("the visual channel read caption text")


@pytest.mark.parametrize(
    ("mode", "text", "vectors", "embedder", "runs"),
    [
        ("hybrid", True, True, True, "hybrid"),
        ("hybrid", False, True, True, "dense"),  # the T9 case: video vectors only
        ("hybrid", True, False, False, "bm25"),  # transcripts, no vectors
        ("hybrid", True, True, False, "bm25"),  # vectors, but no query text tower
        ("bm25", True, True, True, "bm25"),
        ("dense", True, True, True, "dense"),
        ("bm25", False, True, True, "BM25 is unavailable"),
        ("dense", True, False, False, "no video vectors"),
        ("dense", False, True, False, "no query embedder"),
        ("hybrid", False, True, False, "no query embedder"),
    ],
)
def test_visual_mode(mode: Any, text: bool, vectors: bool, embedder: bool, runs: str) -> None:
    if runs in ("hybrid", "dense", "bm25"):
        assert visual_mode(mode, text=text, vectors=vectors, embedder=embedder) == runs
    else:
        with pytest.raises(SearchError, match=runs):
            visual_mode(mode, text=text, vectors=vectors, embedder=embedder)


def test_hybrid_fuses_heard_text_with_video_vectors(minilm: Any, tmp_path: Path) -> None:
    path = tmp_path / "idx"
    visual = corpus.CaptionVideoVectors(minilm, all_captions())
    build_index(path, [SportSource("basketball", [], corpus.heard_clips())], None, None, visual)
    backend = open_index(path, {"visual": corpus.VideoTextTower(minilm)})
    q, kw = "buzzer beater", {"top_k": 30, "window": 60}
    bm25 = backend.search_clips("basketball", q, mode="bm25", **kw)
    dense = backend.search_clips("basketball", q, mode="dense", **kw)
    hybrid = backend.search_clips("basketball", q, **kw)  # default: hybrid
    assert {h.clip_id for h in bm25} == {"401001_3", "401002_17", "401003_8"}
    fused = rrf_fuse([[h.clip_id for h in bm25], [h.clip_id for h in dense]])[:30]
    assert [h.clip_id for h in hybrid] == [k for k, _ in fused]
    assert hybrid[0].clip_id == "401002_17"  # heard it AND looks like it
    assert hybrid[0].scores.bm25_rank and hybrid[0].scores.dense_rank
    assert hybrid[0].highlights == ["listen to this crowd, a buzzer beater from the logo! buzzer"]
    no_tower = open_index(path)  # vectors but no query text tower: hybrid runs BM25 alone
    assert [h.clip_id for h in no_tower.search_clips("basketball", q, **kw)] == [
        h.clip_id for h in bm25
    ]
    with pytest.raises(SearchError, match="no query embedder"):
        no_tower.search_clips("basketball", q, mode="dense")
