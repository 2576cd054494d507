"""A small 64-d Gaussian mixture and "gap" queries built as benchmarks/search_data.py builds
them (data draws blurred by a random unit vector and moved along one shared direction, as text
queries sit relative to video vectors), for the tests of the IVF tuning."""

from __future__ import annotations

import numpy as np

DIM, CENTRES, NOISE, ROWS, K = 64, 128, 1.3, 16_384, 20


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


CENTRE = unit(np.random.default_rng(0).standard_normal((CENTRES, DIM)))
GAP = unit(np.random.default_rng(7).standard_normal((1, DIM)))


def draw_rows(n: int, seed: int) -> np.ndarray:
    """`n` rows of the mixture."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((n, DIM)) * NOISE / np.sqrt(DIM)
    return unit(CENTRE[rng.integers(0, CENTRES, n)] + noise)


def gap_queries(n: int, seed: int) -> np.ndarray:
    """`n` queries across the gap: far from every centre."""
    blur = unit(np.random.default_rng(seed + 1).standard_normal((n, DIM)))
    return unit(0.6 * draw_rows(n, seed) + 0.5 * blur + 0.6 * GAP)
