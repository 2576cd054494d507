"""Documents for benchmarks/search.py's `docs` part: the generated corpus's documents
(`playscout corpus synth`, every sport filed under one), replicated under new ids until they
hold --passages passages, with their real MiniLM passage vectors (cached under var/, see
search_data.cached_vectors); a replica's vectors are the real ones moved by noise of
norm 0.05 and re-normalised. Queries are 3-8 word windows of passages, embedded live by
MiniLM at search time, so the timing includes the query embedding."""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from search_data import SPORT, cached_vectors, corpus_texts

from playscout.corpus import Corpus
from playscout.corpus.models import DocumentRecord
from playscout.search.core.passages import split_passages
from playscout.search.embedded.build import SportSource, build_index
from playscout.search.embedded.recall import describe_setting

NOISE = 0.05


def _documents(corpus: Path) -> list[DocumentRecord]:
    c = Corpus(corpus)
    return [d for sport in c.sports() for d in c.iter_documents(sport)]


def _passage_vectors(cache: Path, corpus: Path, minilm: Any) -> dict[str, np.ndarray]:
    ids, texts = corpus_texts(corpus, "passages")
    return dict(zip(ids, cached_vectors(cache, texts, minilm), strict=True))


class ReplicaPassages:
    """The document embedder of the build: hands out the cached MiniLM vector of each passage
    in the order the index writer asks for them (checked against the text), plus noise for
    replicas. Its spec is MiniLM's, since the vectors are MiniLM's."""

    def __init__(self, minilm: Any, expected: list[tuple[str, np.ndarray, int]]) -> None:
        self.minilm, self.expected, self.at = minilm, expected, 0
        self.dim = minilm.dim

    def spec(self) -> Any:
        return self.minilm.spec()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for text in texts:
            want, vector, replica = self.expected[self.at]
            if text != want:
                raise ValueError(f"passage {self.at} out of order")
            if replica:
                rng = np.random.default_rng((replica, self.at))
                noisy = vector + rng.standard_normal(len(vector)) * (NOISE / math.sqrt(self.dim))
                vector = noisy / np.linalg.norm(noisy)
            out.append(vector)
            self.at += 1
        return np.asarray(out, dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.minilm.embed_queries(texts))


def _replicas(
    docs: list[DocumentRecord], vectors: dict[str, np.ndarray], passages: int
) -> tuple[list[DocumentRecord], list[tuple[str, np.ndarray, int]]]:
    records: list[DocumentRecord] = []
    expected: list[tuple[str, np.ndarray, int]] = []
    replica = 0
    while len(expected) < passages:
        for doc in docs:
            spans = split_passages(doc.text)
            ids = [f"{doc.doc_id}#{i}" for i in range(len(spans))]
            if any(i not in vectors for i in ids):
                continue
            game = f"{doc.game_id}{replica:02d}" if doc.game_id else None
            records.append(
                doc.model_copy(
                    update={"doc_id": f"{doc.doc_id}-r{replica}", "sport": SPORT, "game_id": game}
                )
            )
            expected += [
                (doc.text[s:e], vectors[i], replica) for (s, e), i in zip(spans, ids, strict=True)
            ]
            if len(expected) >= passages:
                break
        replica += 1
    return records, expected


def build_docs(base: Path, args: argparse.Namespace, minilm: Any) -> dict[str, Any]:
    docs = _documents(args.corpus)
    records, expected = _replicas(
        docs, _passage_vectors(args.cache, args.corpus, minilm), args.passages
    )
    embedder = ReplicaPassages(minilm, expected)
    t0 = time.perf_counter()
    summary = build_index(
        base,
        [SportSource(SPORT, records, [])],
        doc_embedder=embedder,
        caption_embedder=None,
        overwrite=True,
    )
    info = summary.sports[SPORT]
    return {
        "description": f"{info['documents']} documents, {info['passages']} passages "
        f"({len(docs)} distinct documents, real MiniLM vectors, replicas with noise {NOISE})",
        "build_s": round(time.perf_counter() - t0, 1),
        "setting": describe_setting(info["channels"]["documents"]["ann"]),
    }


def doc_queries(n: int, corpus: Path, seed: int = 3) -> list[str]:
    """3-8 word windows of the generated documents' text."""
    rng = random.Random(seed)
    docs = _documents(corpus)
    out = []
    while len(out) < n:
        words = rng.choice(docs).text.split()
        size = rng.randint(3, 8)
        start = rng.randint(0, max(0, len(words) - size))
        if words:
            out.append(" ".join(words[start : start + size]))
    return out
