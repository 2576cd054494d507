"""Client-side RRF (k=60) over the BM25 and kNN hit lists (ES's own rrf retriever needs an
Enterprise licence). Evidence is keyed by id, never zipped by position (reference defect 1)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from playscout.search.base import RRF_K, HitScores, SearchMode, rrf_fuse

# (key, score): key is the tie-break string (as the embedded backend's), score the branch's own.
Branch = Sequence[tuple[str, float]]


def knn_cosine(es_score: float) -> float:
    """ES reports cosine kNN scores as (1 + cos) / 2; the interface wants cos."""
    return 2.0 * es_score - 1.0


def ranked(hits: Branch) -> list[tuple[str, float]]:
    """ES orders equal scores by internal doc id; re-sort so ties break by key, as embedded."""
    return sorted(hits, key=lambda h: (-h[1], h[0]))


@dataclass
class Fused:
    keys: list[str]
    scores: list[HitScores]

    def primary(self, i: int) -> float | None:
        s = self.scores[i]
        return s.rrf if s.rrf is not None else (s.bm25 if s.bm25 is not None else s.dense)


def fuse(mode: SearchMode, bm25: Branch | None, dense: Branch | None) -> Fused:
    b, d = ranked(bm25 or []), ranked(dense or [])
    b_at = {k: (i, s) for i, (k, s) in enumerate(b)}
    d_at = {k: (i, s) for i, (k, s) in enumerate(d)}

    def evidence(key: str, rrf: float | None) -> HitScores:
        bi, di = b_at.get(key), d_at.get(key)
        return HitScores(
            rrf=rrf,
            bm25=bi[1] if bi else None,
            bm25_rank=bi[0] + 1 if bi else None,
            dense=di[1] if di else None,
            dense_rank=di[0] + 1 if di else None,
        )

    if mode == "hybrid":
        pairs = rrf_fuse([[k for k, _ in b], [k for k, _ in d]], k=RRF_K)
        return Fused([k for k, _ in pairs], [evidence(k, s) for k, s in pairs])
    keys = [k for k, _ in (b if mode == "bm25" else d)]
    return Fused(keys, [evidence(k, None) for k in keys])
