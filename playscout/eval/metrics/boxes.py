"""T7/T8 box metrics: IoU, tracks matched on their first frame by the Hungarian algorithm (as
the paper matches MixSort tracks), and mean IoU over matched frames. Boxes are (x1, y1, x2, y2)
normalised to [0, 1], as in the MOT-style release files."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.optimize import linear_sum_assignment

Box = tuple[float, float, float, float]
Track = Mapping[int, Box]  # frame -> box


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match_tracks(gold: Mapping[str, Track], pred: Mapping[str, Track]) -> list[tuple[str, str]]:
    """Pairs (gold id, pred id) maximising first-frame IoU; zero-IoU pairs are dropped."""
    g_ids, p_ids = list(gold), list(pred)
    if not g_ids or not p_ids:
        return []
    cost = np.zeros((len(g_ids), len(p_ids)))
    for i, g in enumerate(g_ids):
        first = min(gold[g])
        for j, p in enumerate(p_ids):
            box = pred[p].get(first)
            cost[i, j] = -iou(gold[g][first], box) if box else 0.0
    rows, cols = linear_sum_assignment(cost)
    return [(g_ids[r], p_ids[c]) for r, c in zip(rows, cols, strict=True) if cost[r, c] < 0]


def track_miou(gold: Mapping[str, Track], pred: Mapping[str, Track]) -> float:
    """Mean over gold tracks of the mean per-frame IoU with the matched prediction (frames the
    prediction lacks and unmatched gold tracks score 0)."""
    if not gold:
        return 0.0
    matched = dict(match_tracks(gold, pred))
    scores = []
    for g, track in gold.items():
        p = pred.get(matched[g]) if g in matched else None
        per = [iou(box, p[f]) if p and f in p else 0.0 for f, box in track.items()]
        scores.append(sum(per) / len(per) if per else 0.0)
    return sum(scores) / len(scores)
