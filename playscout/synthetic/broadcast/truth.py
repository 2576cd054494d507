"""Ground truth of a rendered excerpt: where the events are in the output video and what the
scoreboard shows (and whether it can be read) at every moment.

`visibility_pieces` is the single classification of broadcast time that both the frame
compositor and the truth use, so the truth describes exactly the pixels written.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

from .plan import BREAK, REPLAY, WIPE, Ad, Plan, Segment
from .timeline import GameClock

VISIBLE, HIDDEN, OCCLUDED, STALE = "visible", "hidden", "occluded", "stale"
FORMAT = "playscout-render-truth/1"
STATE_FIELDS = ["t0", "t1", "period", "clock", "home", "away", "visibility"]


def wipe_len(seg: Segment) -> float:
    return min(WIPE, (seg.t1 - seg.t0) / 2)


def ad_at(plan: Plan, starts: list[float], t: float) -> Ad | None:
    i = bisect.bisect_right(starts, t) - 1
    if i >= 0 and plan.ads[i].t0 <= t < plan.ads[i].t1:
        return plan.ads[i]
    return None


def visibility_pieces(plan: Plan) -> Iterator[tuple[float, float, str, Segment | None]]:
    """(t0, t1, visibility, replay segment whose recorded scoreboard is shown or None)."""
    ads = plan.ads
    k = 0
    for seg in plan.segments:
        if seg.kind == BREAK:
            yield seg.t0, seg.t1, HIDDEN, None
        elif seg.kind == REPLAY:
            w = wipe_len(seg)
            yield seg.t0, seg.t0 + w, OCCLUDED, None  # wipe band sweeping over the scoreboard
            yield (
                seg.t0 + w,
                seg.t1 - w,
                (STALE if seg.stale else HIDDEN),
                (seg if seg.stale else None),
            )
            yield seg.t1 - w, seg.t1, OCCLUDED, None
        else:
            t = seg.t0
            while k < len(ads) and ads[k].t0 < seg.t1:
                ad = ads[k]
                if ad.t1 > seg.t0:
                    yield t, ad.t0, VISIBLE, None
                    yield ad.t0, ad.t1, OCCLUDED, None
                    t = ad.t1
                k += 1
            yield t, seg.t1, VISIBLE, None


def state_rows(clock: GameClock, plan: Plan, start: float, end: float) -> list[list[Any]]:
    """[t0, t1, period, clock, home, away, visibility] in output seconds, merged."""
    rows: list[list[Any]] = []

    def put(a: float, b: float, st: tuple[int, int, int, int], vis: str) -> None:
        a, b = round(a - start, 4), round(b - start, 4)
        if b <= a:
            return
        if rows and rows[-1][2:] == [*st, vis] and abs(rows[-1][1] - a) < 1e-3:
            rows[-1][1] = b
        else:
            rows.append([a, b, *st, vis])

    for a, b, vis, seg in visibility_pieces(plan):
        a, b = max(a, start), min(b, end)
        if b <= a:
            continue
        if seg is None:
            for x, y, st in clock.pieces(a, b):
                put(x, y, st, vis)
        else:
            for x, y, st in clock.pieces(seg.source(a), seg.source(b)):
                put(seg.t0 + (x - seg.src0) / seg.rate, seg.t0 + (y - seg.src0) / seg.rate, st, vis)
    return rows


def clip(intervals: list[tuple[float, float]], start: float, end: float) -> list[list[float]]:
    out = []
    for a, b in intervals:
        a, b = max(a, start), min(b, end)
        if b > a:
            out.append([round(a - start, 4), round(b - start, 4)])
    return out


def build_truth(
    clock: GameClock,
    plan: Plan,
    pbp: dict[str, Any],
    *,
    start: float,
    end: float,
    fps: int,
    size: tuple[int, int],
    box: tuple[int, int, int, int],
    fields: dict[str, tuple[int, int, int, int]],
    commentary: list[list[Any]],
) -> dict[str, Any]:
    events = [
        {"event_id": int(e["event_id"]), "video_time": round(float(e["video_time"]) - start, 4)}
        for e in clock.events
        if start <= float(e["video_time"]) < end
    ]
    replays = [s for s in plan.segments if s.kind == REPLAY and s.t1 > start and s.t0 < end]
    ads = [a for a in plan.ads if a.t1 > start and a.t0 < end]
    return {
        "format": FORMAT,
        "game_id": pbp["game_id"],
        "sport": clock.sport,
        "fps": fps,
        "size": list(size),
        "start": start,
        "duration": round(end - start, 4),
        "video_duration": clock.video_duration,
        "events": events,
        "state_fields": STATE_FIELDS,
        "states": state_rows(clock, plan, start, end),
        "replays": clip([(s.t0, s.t1) for s in replays], start, end),
        "ads": clip([(a.t0, a.t1) for a in ads], start, end),
        "breaks": clip(plan.kinds(BREAK), start, end),
        "cuts": [round(t - start, 4) for t in plan.cuts if start < t < end],
        "scoreboard_box": list(box),
        "scoreboard_fields": {k: list(v) for k, v in fields.items()},
        "commentary": commentary,
        "replay_details": [
            {
                "t0": round(s.t0 - start, 4),
                "t1": round(s.t1 - start, 4),
                "event_id": s.event_id,
                "source_time": round(s.src0 - start, 4),
                "rate": s.rate,
                "stale": s.stale,
            }
            for s in replays
        ],
        "ad_details": [
            {
                "t0": round(a.t0 - start, 4),
                "t1": round(a.t1 - start, 4),
                "sponsor": a.sponsor,
                "cover": a.cover,
            }
            for a in ads
        ],
    }
