"""Queries off the rows' manifold, made from the rows themselves, for tuning an IVF index
when the build has no sample of what users send (no `--tune-queries` file).

Why: sampled rows sit where the lists are and find their own near-copies, so a setting tuned
on them flatters the index for exactly the queries that matter most: text across a modality
gap from video vectors, a question rather than a caption. Such a query is far from every
centroid: its centroid similarities are low and flat, and its exact top k is spread over more
lists than a row's. At 200,000 rows of near-duplicate groups a row-tuned build gave queries
across a gap recall 0.90 (p5 0.70) at its fixed probe count, and its filtered budgets, tuned
on rows too, gave them 0.91-0.93 at 1.76M rows where the build recorded 0.98.

Each query keeps part of a sampled row's direction (cosine FAR_COSINE) and turns the rest
toward a direction off the data: a blend, in a random proportion per query, of a direction
shared with other queries (a modality gap moves every query of one kind the same way) and one
of its own (a query is not a copy of a row). Both are random: the build does not know the gap
of the queries to come, and a random direction in hundreds of dimensions is nearly orthogonal
to the data, i.e. off its manifold. How hard a gap is depends on its direction (on a small
mixture, sets of 100 such queries along one direction each ranged 0.943-0.971 in recall on
the same index), so the queries are spread over FAR_GAPS shared directions rather than one:
the build's estimate averages over gaps instead of drawing one. The range of cosines spans
queries a little off the data to queries that keep under half of a row's direction, so the
setting is chosen for a spread of distances, not for one; but the queries of one kind sit at
about one distance, and how hard a distance is varies too (on the wide mixture at 1.76M rows,
far queries at cosine 0.45-0.55 got 0.987 on the served path, at 0.65-0.75 0.951: nearer
ones are widened less by the per-query rule). So each query's group is its gap and its band
of FAR_BANDS of the cosine range, and the lower bound allows for the spread between groups
(recall.lower_bound): the estimate is for one kind of query the build did not draw, one gap
at one distance, not for the average over kinds.
"""

from __future__ import annotations

import numpy as np

FAR_COSINE = (0.45, 0.75)  # the cosine between a query and the row it was made from
FAR_GAPS = 8  # shared directions, each taken by every FAR_GAPS-th query
FAR_BANDS = 3  # equal bands of FAR_COSINE, each taken by every FAR_BANDS-th run of FAR_GAPS
FAR_NAME = "far"


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


def far_queries(rows: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One query off the manifold per row of `rows` (sampled rows, unit or not): float32 unit
    vectors whose cosine with their row is drawn from its band of FAR_COSINE, and each one's
    group: its gap (the shared direction it took, 0..FAR_GAPS-1) plus FAR_GAPS times its
    band (0..FAR_BANDS-1)."""
    x = _unit(np.asarray(rows, dtype=np.float32))
    n, dim = x.shape
    gaps = np.arange(n) % FAR_GAPS
    bands = (np.arange(n) // FAR_GAPS) % FAR_BANDS
    shared = _unit(rng.standard_normal((FAR_GAPS, dim)))[gaps]
    own = _unit(rng.standard_normal((n, dim)))
    mix = rng.uniform(0.0, 1.0, (n, 1))
    away = mix * shared + (1.0 - mix) * own
    away -= np.sum(away * x, axis=1, keepdims=True) * x  # the part orthogonal to the row
    away = _unit(away)
    low, high = FAR_COSINE
    width = (high - low) / FAR_BANDS
    cos = low + width * (bands[:, None] + rng.uniform(0.0, 1.0, (n, 1)))
    return _unit(cos * x + np.sqrt(1.0 - cos**2) * away), gaps + FAR_GAPS * bands


def describe(count: int) -> str:
    low, high = FAR_COSINE
    return (
        f"{count} sampled rows turned off the data (cosine {low}-{high} with the row) toward "
        f"one of {FAR_GAPS} shared random directions and one of their own, in "
        f"{FAR_GAPS * FAR_BANDS} groups of one direction and one third of the cosines"
    )
