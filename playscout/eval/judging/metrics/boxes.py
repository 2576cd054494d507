"""T7/T8 box metrics as the SVI-Bench reference computes them (its T7 `eval/video_miou.py`, the
"holistic" video mIoU): tracks are matched greedily at IoU >= 0.5 on the frame where each
ground-truth track first appears, then intersections and unions are summed over every frame
and pair, and the video's score is one ratio, sum(intersection) / sum(union). A missed
ground-truth box adds its area to the union, and so does a predicted box with no ground truth
(a false-positive track lowers the score). Boxes are (x1, y1, x2, y2), normalised to [0, 1] as
in the MOT-style release files; frames are 0-based.

docs/metrics.md works the reference's edge cases by hand; tests/eval/judging/test_metrics.py checks
each of them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel

Box = tuple[float, float, float, float]
Track = Mapping[int, Box]  # frame -> box
TrackId = TypeVar("TrackId", bound=Hashable)  # int in release files, any label elsewhere

IOU_THRESHOLD = 0.5  # the reference's --iou_threshold
MAX_FRAMES = 81  # the reference's --max_frames: frames 0..80 (5.4 s at 15 fps)


def area(b: Box) -> float:
    return (b[2] - b[0]) * (b[3] - b[1])


def intersection(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    return ix * iy


def iou(a: Box, b: Box) -> float:
    inter = intersection(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


class VideoMiou(BaseModel):
    """One video's score and what it was computed from (the reference's per-video row)."""

    miou: float  # holistic: total_intersection / total_union
    frame_miou: float  # the reference's "avg_frame_miou": mean over frames of the per-pair IoUs
    total_intersection: float
    total_union: float
    pairs: int
    frames: int
    matched_tracks: int


def _by_frame(tracks: Mapping[TrackId, Track]) -> dict[int, list[tuple[TrackId, Box]]]:
    """frame -> [(track, box)], boxes in the order of the tracks (the reference keeps file
    order; a release file written frame by frame lists tracks in the same order)."""
    out: dict[int, list[tuple[TrackId, Box]]] = {}
    for tid, track in tracks.items():
        for frame, box in track.items():
            out.setdefault(frame, []).append((tid, box))
    return out


def greedy_match(
    pred: Sequence[tuple[TrackId, Box]],
    gold: Sequence[tuple[TrackId, Box]],
    threshold: float = IOU_THRESHOLD,
) -> dict[TrackId, TrackId]:
    """pred track -> gold track: pairs at IoU >= threshold, best first; equal IoUs go to the
    later boxes first, as the reference sorts (iou, pred index, gold index) descending."""
    pairs = [
        (iou(pb, gb), i, j)
        for i, (_, pb) in enumerate(pred)
        for j, (_, gb) in enumerate(gold)
        if iou(pb, gb) >= threshold
    ]
    pairs.sort(reverse=True)
    used_p: set[int] = set()
    used_g: set[int] = set()
    mapping: dict[TrackId, TrackId] = {}
    for _, i, j in pairs:
        if i not in used_p and j not in used_g:
            mapping[pred[i][0]] = gold[j][0]
            used_p.add(i)
            used_g.add(j)
    return mapping


def _dynamic_mapping(
    pred: dict[int, list[tuple[TrackId, Box]]],
    gold: dict[int, list[tuple[TrackId, Box]]],
    frames: list[int],
    threshold: float,
) -> dict[TrackId, TrackId]:
    """Each gold track is matched once, on the frame where it first appears, against the
    predicted tracks not matched yet (the reference's establish_dynamic_id_mapping)."""
    first: dict[TrackId, int] = {}
    for frame in sorted(gold):
        for tid, _ in gold[frame]:
            first.setdefault(tid, frame)
    mapping: dict[TrackId, TrackId] = {}
    mapped_gold: set[TrackId] = set()
    for frame in frames:
        new = [(t, b) for t, b in gold.get(frame, []) if first[t] == frame and t not in mapped_gold]
        unmapped = [(t, b) for t, b in pred.get(frame, []) if t not in mapping]
        if new and unmapped:
            found = greedy_match(unmapped, new, threshold)
            mapping.update(found)
            mapped_gold.update(found.values())
    return mapping


def _frame_pairs(
    pred: list[tuple[TrackId, Box]],
    gold: list[tuple[TrackId, Box]],
    mapping: dict[TrackId, TrackId],
) -> list[tuple[float, float]]:
    """(intersection, union) of every pair the frame contributes: matched pairs (a side that is
    absent adds the other's area), then unmatched gold boxes (missed) and unmatched predicted
    boxes (false positives), each adding its own area."""
    p_at, g_at = dict(pred), dict(gold)
    out: list[tuple[float, float]] = []
    for pt, gt in mapping.items():
        pb, gb = p_at.get(pt), g_at.get(gt)
        if pb is not None and gb is not None:
            inter = intersection(pb, gb)
            out.append((inter, area(pb) + area(gb) - inter))
        elif pb is not None:
            out.append((0.0, area(pb)))
        elif gb is not None:
            out.append((0.0, area(gb)))
    matched_gold = set(mapping.values())
    out += [(0.0, area(gb)) for gt, gb in g_at.items() if gt not in matched_gold]
    out += [(0.0, area(pb)) for pt, pb in p_at.items() if pt not in mapping]
    return out


def video_miou(
    gold: Mapping[TrackId, Track],
    pred: Mapping[TrackId, Track],
    *,
    threshold: float = IOU_THRESHOLD,
    max_frames: int | None = MAX_FRAMES,
    frame0_only: bool = True,
) -> VideoMiou | None:
    """The reference's per-video holistic mIoU. `frame0_only` keeps the gold tracks present on
    frame 0 (its default). None when no track could be matched: the reference counts such a
    video as failed and leaves it out of the mean (see `mean_video_miou`)."""
    g = _by_frame(gold)
    if frame0_only:
        at0 = {t for t, _ in g.get(0, [])}
        g = {f: kept for f, boxes in g.items() if (kept := [x for x in boxes if x[0] in at0])}
    p = _by_frame(pred)
    frames = sorted(set(g) | set(p))
    if max_frames is not None:
        frames = [f for f in frames if f < max_frames]
    mapping = _dynamic_mapping(p, g, frames, threshold)
    if not mapping:
        return None
    per_frame = [_frame_pairs(p.get(f, []), g.get(f, []), mapping) for f in frames]
    inter_sum = sum(i for pairs in per_frame for i, _ in pairs)
    union_sum = sum(u for pairs in per_frame for _, u in pairs)
    frame_means = [
        sum(i / u if u > 0 else 0.0 for i, u in pairs) / len(pairs) for pairs in per_frame if pairs
    ]
    return VideoMiou(
        miou=inter_sum / union_sum if union_sum > 0 else 0.0,
        frame_miou=sum(frame_means) / len(frame_means) if frame_means else 0.0,
        total_intersection=inter_sum,
        total_union=union_sum,
        pairs=sum(len(pairs) for pairs in per_frame),
        frames=len(frames),
        matched_tracks=len(mapping),
    )


def mean_video_miou(scores: Sequence[float | None]) -> dict[str, float | int | None]:
    """The reference's summary over per-video mIoUs: the mean over evaluated videos, failed
    ones (None: no track matched) counted apart."""
    done = [s for s in scores if s is not None]
    return {
        "video_miou": sum(done) / len(done) if done else None,
        "evaluated": len(done),
        "failed": len(scores) - len(done),
    }
