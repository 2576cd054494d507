"""T3 ranking metrics as the SVI-Bench reference computes them (its T3 `retrieval.py`,
compute_metrics): ranks are 0-based (0 = the positive came first), R@K is the percentage of
queries with rank < K rounded to 4 places, and MedR is `int(median(ranks))`, the 0-based median
truncated toward zero (so ranks [0, 1] give MedR 0). No queries give R@K 0.0, MedR 0, n 0, as
there. docs/metrics.md works the cases by hand."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

DEFAULT_KS = (1, 5, 10, 50, 100, 200, 300, 400, 500)


def retrieval_metrics(
    ranks: Sequence[int], ks: Sequence[int] = DEFAULT_KS
) -> dict[str, float | int]:
    """{"n", "R@1", ..., "MedR"} over 0-based ranks."""
    if not ranks:
        return {"n": 0} | {f"R@{k}": 0.0 for k in ks} | {"MedR": 0}
    out: dict[str, float | int] = {"n": len(ranks)}
    for k in ks:
        out[f"R@{k}"] = round(100.0 * sum(r < k for r in ranks) / len(ranks), 4)
    out["MedR"] = int(statistics.median(ranks))
    return out


def zero_based_rank(rank: int | None, pool_size: int) -> int:
    """A stored 1-based rank as the reference's 0-based one. The reference scores every
    candidate, so its positive always has a rank; a positive our search did not return
    (None) is placed last in the pool, the worst rank it could have."""
    return rank - 1 if rank is not None else max(0, pool_size - 1)
