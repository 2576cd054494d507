"""The index build as a pipeline (search/embedded/pipeline.py, issue 36): records handled in
worker processes, captions embedded in a background thread in calls of the device's size, BM25
fed as records arrive, the ANN measurement in the background. Whatever runs where, the index
is the one a single process writes: same files byte for byte, same vectors, same answers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from playscout.corpus import Corpus
from playscout.corpus.models import ClipRecord
from playscout.embed import MiniLMEmbedder, PrecomputedVectors, write_consolidated
from playscout.embed.keyed import KeyedEmbedder
from playscout.search import open_backend
from playscout.search.embedded import pipeline, writers
from playscout.search.embedded.build import SportSource, build_index
from playscout.search.embedded.recall import AnnOptions
from tests.synthdata import make_corpus

SPORT = "basketball"
QUERIES = ("three pointer", "free throw", "turnover", "layup in transition", "timeout")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Four basketball games (about a thousand clips): four shards of one game each."""
    return Corpus(make_corpus(tmp_path_factory.mktemp("pipe") / "c", 4, 7, [SPORT], 0))


@pytest.fixture(scope="module")
def keyed(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> KeyedEmbedder:
    """A distinct random unit vector per clip, looked up by id: the order of the stored
    vectors is checked row by row, at no model's cost (MiniLM only embeds queries)."""
    ids = [c.clip_id for c in corpus.iter_clips(SPORT)]
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(ids), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    out = tmp_path_factory.mktemp("vectors")
    write_consolidated(out, SPORT, ids, vectors)
    return KeyedEmbedder(PrecomputedVectors(out), MiniLMEmbedder())


def source(corpus: Corpus, reverse: bool = False) -> SportSource:
    """The sport's records with one-game shards; `reverse`: games in reverse date order (the
    index must still store them in date order)."""
    shards = corpus.clip_shards(SPORT, 1)
    clips: Iterable[ClipRecord] = corpus.iter_clips(SPORT)
    if reverse:
        shards = shards[::-1]
        clips = [c for shard in shards for c in shard()]
    return SportSource(SPORT, corpus.iter_documents(SPORT), clips, None, None, shards)


def build(out: Path, src: SportSource, emb: KeyedEmbedder, workers: int, **kw: object) -> Path:
    build_index(out, [src], None, emb, workers=workers, **kw)  # type: ignore[arg-type]
    return out


def files(root: Path) -> dict[str, bytes]:
    """Every file of an index but the manifest (times) and tantivy's (segment names vary)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "manifest.json" and "bm25" not in p.parts
    }


def answers(root: Path) -> list[list[str]]:
    backend = open_backend(root)
    return [
        [h.clip_id for h in backend.search_clips(SPORT, q, channel="caption", mode=m, top_k=30)]
        for q in QUERIES
        for m in ("bm25", "dense", "hybrid")
    ]


@pytest.fixture
def small_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many embedding calls and record batches, so the pipe's queue fills and drains."""
    monkeypatch.setattr(pipeline, "CPU_CALL", 100)
    monkeypatch.setattr(writers, "BATCH", 64)


@pytest.mark.usefixtures("small_calls")
def test_worker_processes_write_the_index_one_process_writes(
    corpus: Corpus, keyed: KeyedEmbedder, tmp_path: Path
) -> None:
    one = build(tmp_path / "one", source(corpus), keyed, workers=0)
    two = build(tmp_path / "two", source(corpus), keyed, workers=2)
    assert files(one) == files(two)
    assert answers(one) == answers(two)
    # the stored vectors are each stored clip's own, in storage order
    stored = np.load(one / SPORT / "clips/caption/dense/vectors.npy")
    n = len(stored)
    np.testing.assert_array_equal(stored, keyed.vectors_for(SPORT, _clip_ids(one, n)))
    stages = json.loads((two / "manifest.json").read_text())["sports"][SPORT]["stages"]
    assert stages["records_processes"] == 2
    assert stages["records"]["items"] == n == stages["embed"]["items"]
    assert not [t for t in threading.enumerate() if t.name.startswith("embed-pipe")]


def _clip_ids(root: Path, n: int) -> list[str]:
    from playscout.search.embedded.blobs import BlobReader

    records = BlobReader(root / SPORT / "clips", "records")
    return [records.get(i)["clip_id"] for i in range(n)]


@pytest.mark.usefixtures("small_calls")
def test_clips_that_arrive_out_of_order_are_stored_and_found_as_in_order(
    corpus: Corpus, keyed: KeyedEmbedder, tmp_path: Path
) -> None:
    """The captions' BM25 is fed in arrival order; when that is not storage order the build
    indexes them again in storage order, so BM25 hits name the right rows."""
    ordered = build(tmp_path / "ordered", source(corpus), keyed, workers=0)
    shuffled = build(tmp_path / "shuffled", source(corpus, reverse=True), keyed, workers=0)
    assert files(ordered) == files(shuffled)
    assert answers(ordered) == answers(shuffled)


def _wrong_sport() -> list[ClipRecord]:
    """A shard whose second clip is filed under another sport (module level: picklable)."""
    clip = ClipRecord(
        clip_id="1_0", sport=SPORT, game_id="1", index=0, period=1, video_start=0, video_end=5
    )
    return [clip, clip.model_copy(update={"clip_id": "1_1", "index": 1, "sport": "hockey"})]


def test_a_bad_record_in_a_worker_fails_the_build_in_one_line_and_leaves_nothing(
    corpus: Corpus, keyed: KeyedEmbedder, tmp_path: Path
) -> None:
    src = source(corpus)
    src = src._replace(clip_shards=[*(src.clip_shards or []), _wrong_sport])
    out = tmp_path / "index"
    with pytest.raises(ValueError, match=r"^clip 1_1 has sport 'hockey', not 'basketball'$"):
        build(out, src, keyed, workers=2)
    assert list(tmp_path.iterdir()) == []  # no index, no staging folder, no lock left
    assert not [t for t in threading.enumerate() if t.name.startswith("embed-pipe")]


def test_the_ann_measurement_runs_in_the_background_and_is_recorded(
    corpus: Corpus, keyed: KeyedEmbedder, tmp_path: Path
) -> None:
    """Keyed vectors compute nothing on this CPU, so the channel's IVF training and recall
    measurement run on the build's background thread: the setting is recorded all the same,
    in the manifest and in ann.json, and the index searches with it."""
    opts = AnnOptions(target_recall=0.9, min_rows=500, queries=20, compare_exact=False)
    out = build(tmp_path / "index", source(corpus), keyed, workers=0, ann=opts)
    manifest = json.loads((out / "manifest.json").read_text())
    ann = manifest["sports"][SPORT]["channels"]["caption"]["ann"]
    assert ann["kind"] == "faiss-ivf-sq8"
    assert manifest["sports"][SPORT]["stages"]["ann"]["seconds"] > 0
    recorded = json.loads((out / SPORT / "clips/caption/dense/ann.json").read_text())
    assert recorded["nprobe"] == ann["nprobe"]
    assert (out / SPORT / "clips/caption/dense/ann.faiss").is_file()
    assert all(answers(out))
