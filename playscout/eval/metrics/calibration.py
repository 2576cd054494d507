"""T5 calibration: CE = sum_i (n_i/N) |acc_i - conf_i| over equal-width confidence bins (the
reference's weighted form; the paper's text writes 1/B, which over-weights empty bins)."""

from __future__ import annotations

from collections.abc import Sequence


def calibration_error(
    conf: Sequence[float], correct: Sequence[bool], bins: int = 5
) -> float | None:
    if len(conf) != len(correct):
        raise ValueError("conf and correct differ in length")
    n = len(conf)
    if n == 0:
        return None
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, c in enumerate(conf) if (lo <= c < hi) or (b == bins - 1 and c == hi)]
        if not idx:
            continue
        acc = sum(correct[i] for i in idx) / len(idx)
        avg = sum(conf[i] for i in idx) / len(idx)
        total += len(idx) / n * abs(acc - avg)
    return total


def brier_score(probs: Sequence[Sequence[float]], gold: Sequence[int]) -> float | None:
    """Mean over items of sum_k (p_k - [k == gold])^2."""
    if not probs:
        return None
    total = 0.0
    for p, g in zip(probs, gold, strict=True):
        total += sum((pk - (1.0 if k == g else 0.0)) ** 2 for k, pk in enumerate(p))
    return total / len(probs)
