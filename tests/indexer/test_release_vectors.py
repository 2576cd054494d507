"""An index built from the release's own vectors (indexer/build.py, search/core/units.py):
the document and caption node pickles and the InternVideo2 clip vectors as the reference
writes them (tests/release_layout.py), searched as the reference searches them. The query
models are scripted servers in the vectors' stand-in spaces (FakeEmbeddingServer for BGE-M3,
ScriptedTextTower for InternVideo2's text tower): a query that repeats a unit's embedded text
must find that unit first."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.corpus import Corpus
from playscout.embed.embedder import EmbeddingError
from playscout.embed.release_nodes import load_nodes, node_embed_text
from playscout.indexer.build import build_from_corpus
from playscout.search import open_backend
from playscout.search.backend_api import SearchError
from playscout.search.core.units import ReferenceUnits
from tests.embed.fake_server import Behaviour, FakeEmbeddingServer, fake_vector
from tests.embed.fake_tower import ScriptedTextTower
from tests.release_layout import write_video_vectors
from tests.synthdata import SPORT, copy_corpus


@pytest.fixture(scope="module")
def release(release_t9: tuple[Corpus, Path]) -> Corpus:
    """The shared corpus as a release: no simulator manifest, its own embeds/ folder."""
    return release_t9[0]


def _bge(server: FakeEmbeddingServer) -> str:
    return f"openai:{server.base_url}#bge-m3"


@pytest.fixture(scope="module")
def release_index(release_t9: tuple[Corpus, Path]) -> Path:
    return release_t9[1]


def _channels(index: Path) -> dict[str, Any]:
    manifest = json.loads((index / "manifest.json").read_text())
    return dict(manifest["sports"][SPORT]["channels"])


def test_each_channel_records_the_release_as_what_made_it(release_index: Path) -> None:
    channels = _channels(release_index)
    assert {k: (c["identity"]["model"], c["identity"]["how"]) for k, c in channels.items()} == {
        "documents": ("bge-m3", "release"),
        "caption": ("bge-m3", "release"),
        "visual": ("internvideo2", "release"),
    }
    assert channels["documents"]["units"] == "release" and channels["visual"]["dim"] == 512


def test_documents_are_the_release_sentences_searched_by_their_vectors(
    release: Corpus, release_index: Path, bge_stand_in: FakeEmbeddingServer
) -> None:
    nodes = load_nodes(release.root / "embeds/documents" / SPORT / "all_nodes_embedded.pkl")
    node = next(n for n in nodes if len(n.text) > 40)
    backend = open_backend(release_index)
    # the query's stand-in vector is the node's own: dense search finds its sentence first
    hits = backend.search_documents(SPORT, node_embed_text(node), top_k=3, mode="dense")
    assert hits[0].doc_id == node.metadata["doc_id"]
    assert node.text.rstrip(". ") in hits[0].highlights[0]
    doc = backend.get_documents(SPORT, [hits[0].doc_id])[0]
    assert doc is not None and ". \n" not in hits[0].highlights[0]  # the corpus' text


def test_captions_are_searched_by_the_release_vectors(release: Corpus, release_index: Path) -> None:
    nodes = load_nodes(release.root / "embeds/captions" / SPORT / "all_nodes_embedded.pkl")
    backend = open_backend(release_index)
    for node in nodes[:3]:
        hits = backend.search_clips(SPORT, node_embed_text(node), top_k=3, channel="caption",
                                    mode="dense")  # fmt: skip
        assert hits[0].clip_id == node.id


def test_video_vectors_need_their_text_tower(release: Corpus, release_index: Path) -> None:
    without = open_backend(release_index)
    assert without.unembedded(SPORT) == ["visual"]
    with pytest.raises(SearchError, match="no query embedder"):
        without.search_clips(SPORT, "a pass", channel="visual", mode="dense")
    clips = list(release.iter_clips(SPORT))[:3]
    with ScriptedTextTower() as tower:
        spec = {
            "kind": "text-tower",
            "model": "internvideo2-text",
            "options": {"base_url": tower.url},
        }
        backend = open_backend(release_index, {"visual": spec})
        assert backend.unembedded(SPORT) == []
        for clip in clips:
            hits = backend.search_clips(SPORT, clip.caption, top_k=5, channel="visual")
            assert hits[0].clip_id == clip.clip_id
        assert next(c["body"] for c in tower.embed_calls) == {"texts": [clips[0].caption]}


@pytest.mark.parametrize("bucketed", [True, False])
def test_flat_and_bucketed_video_vectors(release: Corpus, tmp_path: Path, bucketed: bool) -> None:
    corpus = copy_corpus(release, tmp_path / "T9")
    videos = corpus.root / "embeds" / "videos"
    for path in sorted(videos.rglob("*"), reverse=True):  # rewrite in the other layout
        path.unlink() if path.is_file() else path.rmdir()
    clips = {c.clip_id: fake_vector(c.caption, 512) for c in corpus.iter_clips(SPORT)}
    write_video_vectors(
        videos, SPORT, {k: v / np.linalg.norm(v) for k, v in clips.items()}, bucketed
    )
    out = tmp_path / "index"
    build_from_corpus(corpus.root, out, sports=[SPORT], doc_embedder=None, caption_embedder=None,
                      video_vectors=videos)  # fmt: skip
    assert _channels(out)["visual"]["identity"]["model"] == "internvideo2"
    # the same vectors in a folder named after the model, outside the layout: unknown origin
    named = tmp_path / "internvideo2_vectors"
    shutil.copytree(videos, named)
    build_from_corpus(corpus.root, tmp_path / "named", sports=[SPORT], doc_embedder=None,
                      caption_embedder=None, video_vectors=named)  # fmt: skip
    identity = _channels(tmp_path / "named")["visual"]["identity"]
    assert identity["model"] is None and identity["how"] == "unknown"
    assert "not the corpus' own embeds/videos" in identity["why"]


def test_reference_units_embed_what_the_reference_embedded(release: Corpus, tmp_path: Path) -> None:
    """--units reference: document sentences and captions, each with its metadata lines."""
    with _served(16) as srv:
        url = f"openai:{srv.base_url}#bge-m3"
        build_from_corpus(release.root, tmp_path / "ref", sports=[SPORT], doc_embedder=url,
                          caption_embedder=url, units="reference")  # fmt: skip
        sent = [t for r in srv.requests for t in r["body"]["input"]]
    clip = next(release.iter_clips(SPORT))
    assert ReferenceUnits().caption_text(clip) in sent
    assert any(t.startswith("game_id: ") and "\ndoc_type: espn_report\n" in t for t in sent)
    assert clip.caption not in sent  # never the bare caption
    assert _channels(tmp_path / "ref")["documents"]["units"] == "reference"


def test_release_vectors_of_another_corpus_are_refused(
    release: Corpus, synth_corpus: Corpus, tmp_path: Path, bge_stand_in: FakeEmbeddingServer
) -> None:
    other = copy_corpus(synth_corpus, tmp_path / "other")
    text = other.root / "data" / SPORT / "games"
    report = next(text.rglob("espn_report.txt"))
    report.write_text("An entirely different recap.\n")
    with pytest.raises(EmbeddingError, match="not of this corpus"):
        build_from_corpus(other.root, tmp_path / "x", sports=[SPORT], doc_embedder=_bge(bge_stand_in),
                          caption_embedder=None, doc_vectors=release.root / "embeds/documents")  # fmt: skip


class _served:
    """A FakeEmbeddingServer for one `with` block."""

    def __init__(self, dim: int) -> None:
        self.srv = FakeEmbeddingServer(Behaviour(dim=dim))

    def __enter__(self) -> FakeEmbeddingServer:
        return self.srv.start()

    def __exit__(self, *exc: object) -> None:
        self.srv.stop()
