"""Accuracy, agreement and regression error. Empty inputs give None, never 0 or NaN, so a
report can tell "nothing scored" from "all wrong"."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def accuracy(correct: Sequence[bool]) -> float | None:
    return mean([1.0 if c else 0.0 for c in correct])


def grouped_accuracy(pairs: Sequence[tuple[Hashable, bool]]) -> dict[Hashable, float]:
    """Accuracy per group (question type, distractor type, entity type...)."""
    groups: dict[Hashable, list[bool]] = defaultdict(list)
    for group, ok in pairs:
        groups[group].append(ok)
    return {g: accuracy(v) or 0.0 for g, v in groups.items()}


def mean_abs_error(pred: Sequence[float], gold: Sequence[float]) -> float | None:
    """LCric's regression "L1 norm" (lower is better, whatever its table's arrow says)."""
    if len(pred) != len(gold):
        raise ValueError("pred and gold differ in length")
    return mean([abs(p - g) for p, g in zip(pred, gold, strict=True)])


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[float | None, float | None]:
    """(kappa, raw agreement) of two raters over the same items. kappa is None when chance
    agreement is 1 (both raters constant), where it is undefined."""
    if len(a) != len(b):
        raise ValueError("raters judged different numbers of items")
    n = len(a)
    if n == 0:
        return None, None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb.get(k, 0) for k in ca) / (n * n)
    if expected >= 1.0:
        return None, observed
    return (observed - expected) / (1 - expected), observed
