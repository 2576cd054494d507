"""Clip windows of 10-15 s (the T9 clip length) snapped to shot boundaries."""

from __future__ import annotations

import bisect
from collections.abc import Sequence


def plan_windows(
    duration: float,
    cuts: Sequence[float],
    *,
    min_s: float = 10.0,
    max_s: float = 15.0,
    target_s: float = 12.0,
    min_tail_s: float = 2.0,
) -> list[tuple[float, float]]:
    """Tile [0, duration) with windows of min_s..max_s seconds, each ending on the shot cut
    nearest to target_s when one falls in range, else at target_s. A tail shorter than
    min_tail_s is merged into the previous window, which may then exceed max_s slightly."""
    if not 0 < min_s <= target_s <= max_s:
        raise ValueError("window lengths must satisfy 0 < min_s <= target_s <= max_s")
    cuts = sorted(c for c in cuts if 0 < c < duration)
    out: list[tuple[float, float]] = []
    start = 0.0
    while duration - start > 1e-6:
        remaining = duration - start
        if remaining <= max_s:
            end = duration
        else:
            lo = bisect.bisect_left(cuts, start + min_s)
            hi = bisect.bisect_right(cuts, start + max_s)
            inside = cuts[lo:hi]
            if inside:
                end = min(inside, key=lambda c: abs(c - start - target_s))
            else:
                end = start + target_s
            if duration - end < min_s and duration - start <= 2 * max_s:
                # split what is left into two balanced windows instead of a runt
                end = start + remaining / 2 if remaining > max_s else duration
        out.append((round(start, 3), round(end, 3)))
        start = end
    if len(out) > 1 and out[-1][1] - out[-1][0] < min_tail_s:
        last = out.pop()
        out[-1] = (out[-1][0], last[1])
    return out
