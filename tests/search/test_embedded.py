"""The embedded backend: conformance suite (full, and the rules on an index without document
vectors, the shape the osmem ES run has) plus what only this backend has (ANN vs exact, index
files, spec checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from playscout.search.backend_api import ClipFilter, IndexOpenError, SearchBackend, SearchError
from playscout.search.conformance import BackendConformance, RulesConformance, corpus
from playscout.search.embedded.backend import EmbeddedBackend, open_index
from playscout.search.embedded.build import IndexExistsError, SportSource, build_index
from playscout.search.embedded.vectors import RowRange


class TestEmbeddedConformance(BackendConformance):
    kind = "embedded"

    def test_visual_never_reads_captions(self, backend: SearchBackend, monkeypatch: Any) -> None:
        assert isinstance(backend, EmbeddedBackend)

        def forbidden(*_: Any) -> Any:
            raise AssertionError("visual path read caption text")

        for sport in backend.sports():
            clips = backend._sport(sport).clips
            monkeypatch.setattr(clips.captions, "get", forbidden)
            monkeypatch.setattr(clips.captions, "raw", forbidden)
        assert backend.search_clips("basketball", "layup", ClipFilter(periods=[2]))
        assert backend.search_clips("basketball", None, ClipFilter(game_ids=["401001"]))
        assert backend.get_clips("basketball", ["401001_1"])[0] is not None

    def test_layout_and_manifest(self, index_path: Path) -> None:
        m = json.loads((index_path / "manifest.json").read_text())
        assert m["schema_version"] == 1 and m["build_seconds"] > 0
        bb = m["sports"]["basketball"]
        assert (bb["documents"], bb["clips"], bb["games"]) == (15, 120, 3)
        assert bb["passages"] > bb["documents"]  # reports span several passages
        assert bb["channels"]["documents"]["spec"]["kind"] == "minilm"
        assert bb["channels"]["visual"]["spec"]["model"] == "conformance-video"
        for channel in ("documents", "caption", "visual"):  # small: exact, and says so
            ann = bb["channels"][channel]["ann"]
            assert ann["kind"] == "exact" and ann["recall"] == 1.0
            assert "recall 1.0 by construction" in ann["reason"]
        assert not (index_path / "basketball/clips/visual/dense/ann.faiss").exists()
        assert "tantivy" in m["packages"]
        game_ptr = np.load(index_path / "basketball/clips/cols/game_ptr.npy")
        assert game_ptr.tolist() == [0, 40, 80, 120]  # games are contiguous row ranges
        vstart = np.load(index_path / "basketball/clips/cols/vstart.npy")
        assert (np.diff(vstart[:40]) > 0).all()  # input was shuffled; storage is time order

    def test_game_filter_is_a_row_range(self, backend: SearchBackend) -> None:
        assert isinstance(backend, EmbeddedBackend)
        clips = backend._sport("basketball").clips
        assert clips.resolve(ClipFilter(game_ids=["401002"])) == RowRange(40, 80)


class TestEmbeddedRules(RulesConformance):
    """The shared rules on an index with video vectors only (as the osmem ES index)."""

    kind = "embedded"
    doc_vectors = False


def _tiny_sources(with_clips: bool = True) -> list[SportSource]:
    return [
        SportSource(
            "basketball",
            corpus.documents("basketball")[:6],
            corpus.clips("basketball")[:30] if with_clips else [],
        )
    ]


def test_spec_mismatch_and_bad_index(minilm: Any, tmp_path: Path) -> None:
    path = tmp_path / "idx"
    build_index(path, _tiny_sources(), minilm, None)
    assert open_index(path, {"documents": minilm}).channels("basketball") == []

    class Other:
        dim = 384

        def spec(self) -> dict[str, Any]:
            return {"kind": "minilm", "model": "some-other-model", "dim": 384}

        def embed_queries(self, texts: Any) -> np.ndarray:
            raise AssertionError

    with pytest.raises(IndexOpenError, match="does not match"):
        open_index(path, {"documents": Other()})
    b = open_index(path)  # no embedder: bm25 works, dense says why it cannot
    assert b.search_documents("basketball", "Lakers", mode="bm25")
    with pytest.raises(SearchError, match="no query embedder"):
        b.search_documents("basketball", "Lakers", mode="dense")
    with pytest.raises(SearchError, match="not in the basketball index"):
        b.search_clips("basketball", "dunk", channel="caption", mode="bm25")

    with pytest.raises(IndexExistsError):
        build_index(path, _tiny_sources(), minilm, None)
    with pytest.raises(IndexOpenError, match="does not exist"):
        open_index(tmp_path / "missing")
    manifest = json.loads((path / "manifest.json").read_text())
    (path / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 99}))
    with pytest.raises(IndexOpenError, match="schema version 99"):
        open_index(path)
    (path / "manifest.json").write_text("{not json")
    with pytest.raises(IndexOpenError, match="corrupt"):
        open_index(path)


def test_overwrite_replaces_atomically(minilm: Any, tmp_path: Path) -> None:
    path = tmp_path / "idx"
    build_index(path, _tiny_sources(), None, None)
    build_index(path, _tiny_sources(with_clips=False), None, None, overwrite=True)
    b = open_index(path)
    assert b.get_clips("basketball", ["401001_0"]) == [None]
    assert b.get_documents("basketball", ["401001_espn_report"])[0] is not None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"]


def test_duplicate_ids_fail_the_build(tmp_path: Path) -> None:
    docs = corpus.documents("basketball")[:2]
    with pytest.raises(ValueError, match="duplicate doc_id"):
        build_index(tmp_path / "a", [SportSource("basketball", docs + docs[:1], [])], None, None)
    clips = corpus.clips("basketball")[:3]
    with pytest.raises(ValueError, match="duplicate clip id"):
        build_index(tmp_path / "b", [SportSource("basketball", [], clips + clips[:1])], None, None)
    assert list(tmp_path.iterdir()) == []
