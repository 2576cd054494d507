"""Builds embed each distinct text once: a repeated text (an empty caption, a box-score line
two games share) costs no second model pass, and every row still gets its vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from playscout.embed.embedder import EmbedderSpec
from playscout.embed.keyed import caption_vectors, embed_distinct


class CountingEmbedder:
    """A real (hashing) text -> unit vector map that records what it was asked to embed."""

    dim = 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(kind="precomputed", model="counting", dim=self.dim)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=self.dim) for t in texts]
        out = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)


def test_repeated_texts_are_embedded_once_and_scattered_back() -> None:
    embedder = CountingEmbedder()
    texts = ["a dunk", "", "a block", "", "a dunk"]
    vectors = embed_distinct(embedder, texts)
    assert embedder.seen == ["a dunk", "", "a block"]
    assert vectors.shape == (5, 8)
    assert np.array_equal(vectors[0], vectors[4]) and np.array_equal(vectors[1], vectors[3])
    assert not np.array_equal(vectors[0], vectors[2])
    again = caption_vectors(CountingEmbedder(), "basketball", ["1", "2", "3", "4", "5"], texts)
    assert np.allclose(again, vectors)
