"""Hybrid ranking: run both branches with an explicit window, fuse rows by RRF (k=60).

Scores are kept per row (not zipped by position), so a hit's bm25/dense evidence is always its own
(reference defect 1)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from playscout.search.base import RRF_K, HitScores, SearchMode, rrf_fuse


@dataclass
class Ranked:
    """Rows in final order with their per-branch evidence."""

    rows: list[int] = field(default_factory=list)
    scores: list[HitScores] = field(default_factory=list)

    def primary(self, i: int) -> float | None:
        s = self.scores[i]
        return s.rrf if s.rrf is not None else (s.bm25 if s.bm25 is not None else s.dense)


def fuse(
    mode: SearchMode,
    bm25: tuple[np.ndarray, np.ndarray] | None,
    dense: tuple[np.ndarray, np.ndarray] | None,
    key: Callable[[int], str],
) -> Ranked:
    """`key(row)` is the id whose string order breaks RRF ties, as base.rrf_fuse does."""
    b_rows, b_scores = bm25 if bm25 is not None else (np.zeros(0, np.int64), np.zeros(0))
    d_rows, d_scores = dense if dense is not None else (np.zeros(0, np.int64), np.zeros(0))
    b_rank = {int(r): i for i, r in enumerate(b_rows)}
    d_rank = {int(r): i for i, r in enumerate(d_rows)}

    def evidence(row: int, rrf: float | None) -> HitScores:
        bi, di = b_rank.get(row), d_rank.get(row)
        return HitScores(
            rrf=rrf,
            bm25=float(b_scores[bi]) if bi is not None else None,
            bm25_rank=bi + 1 if bi is not None else None,
            dense=float(d_scores[di]) if di is not None else None,
            dense_rank=di + 1 if di is not None else None,
        )

    out = Ranked()
    if mode == "hybrid":
        keys = {int(r): key(int(r)) for r in np.concatenate([b_rows, d_rows])}
        row_of = {v: r for r, v in keys.items()}
        fused = rrf_fuse([[keys[int(r)] for r in b_rows], [keys[int(r)] for r in d_rows]], k=RRF_K)
        for name, score in fused:
            out.rows.append(row_of[name])
            out.scores.append(evidence(row_of[name], score))
    else:
        rows = b_rows if mode == "bm25" else d_rows
        for r in rows:
            out.rows.append(int(r))
            out.scores.append(evidence(int(r), None))
    return out
