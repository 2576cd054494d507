"""T3 ranking metrics. A rank is 1-based; None means the positive was not retrieved at all
(it counts as a miss at every K and as rank pool+1 for the median)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

DEFAULT_KS = (1, 5, 10, 50, 100, 200, 300, 400, 500)


def recall_at_k(ranks: Sequence[int | None], ks: Sequence[int] = DEFAULT_KS) -> dict[int, float]:
    if not ranks:
        return {k: 0.0 for k in ks}
    return {k: sum(1 for r in ranks if r is not None and r <= k) / len(ranks) for k in ks}


def median_rank(ranks: Sequence[int | None], pool_size: int) -> float | None:
    if not ranks:
        return None
    return float(statistics.median(r if r is not None else pool_size + 1 for r in ranks))
