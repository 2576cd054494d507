"""Score a scoreboard read and an alignment against a renderer's ground truth
(`{gid}.truth.json`, format playscout-render-truth/1: events with their video time, and the
scoreboard state with its visibility for every stretch of the video)."""

from __future__ import annotations

import bisect
from collections import Counter
from pathlib import Path
from typing import Any

import orjson

from playscout.corpus.match_state import MatchState
from playscout.indexer.video.scoreboard.models import AlignmentResult, Reading, StateTimeline
from playscout.media.errors import VideoError

TOLERANCES = (0.5, 1.0, 2.0)
_EPS = 2e-3  # s: truth times are rounded to 0.1 ms, frame times are exact multiples of 1/fps


def evaluate_alignment(
    result: AlignmentResult,
    truth_json: Path | str | dict[str, Any],
    timeline: StateTimeline | None = None,
) -> dict[str, Any]:
    """Share of truth events placed within ±0.5/1/2 s (unplaced events count as misses), the
    misses (beyond ±1 s) per event type, and OCR match-state accuracy: the share of sampled
    times, among those where the truth says the scoreboard is visible, at which the result's
    scoreboard track shows the true state (with the timeline, at the reader's own sample
    times, plus the raw per-frame `reading_accuracy`)."""
    truth = _load(truth_json)
    placed = {e.event_id: e for e in result.events}
    errors: list[float | None] = []
    misses: Counter[str] = Counter()
    per_type: Counter[str] = Counter()
    worst: list[dict[str, Any]] = []
    for te in truth["events"]:
        ea = placed.get(int(te["event_id"]))
        t = ea.video_time if ea is not None else None
        err = None if t is None else abs(t - float(te["video_time"]))
        errors.append(err)
        kind = ea.type if ea is not None else "?"
        per_type[kind] += 1
        if err is None or err > 1.0:
            misses[kind] += 1
            worst.append(
                {
                    "event_id": int(te["event_id"]),
                    "type": kind,
                    "truth": float(te["video_time"]),
                    "placed": t,
                    "status": ea.status if ea is not None else "missing",
                    "reason": ea.reason if ea is not None else "",
                }
            )
    n = len(errors)
    out: dict[str, Any] = {
        "events": n,
        "placed": sum(e is not None for e in errors),
    }
    for tol in TOLERANCES:
        out[f"within_{tol:g}s"] = (
            sum(1 for e in errors if e is not None and e <= tol) / n if n else None
        )
    out["misses_by_type"] = dict(misses.most_common())
    out["events_by_type"] = dict(per_type.most_common())
    out["misses"] = worst
    out.update(state_accuracy(result, truth, timeline))
    return out


def state_accuracy(
    result: AlignmentResult, truth: dict[str, Any], timeline: StateTimeline | None = None
) -> dict[str, Any]:
    """Share of sampled times, among those the truth marks visible, at which the scoreboard
    track shows the true state. Sampled times are the reader's own (with the timeline, which
    also gives the raw per-frame `reading_accuracy`) or a grid at the reader's sample rate."""
    rows = truth["states"]
    fields = truth.get(
        "state_fields", ["t0", "t1", "period", "clock", "home", "away", "visibility"]
    )
    pos = {f: i for i, f in enumerate(fields)}
    starts = [float(r[pos["t0"]]) for r in rows]

    def state(row: list[Any]) -> MatchState:
        return MatchState(
            period=int(row[pos["period"]]),
            clock=int(row[pos["clock"]]),
            home=int(row[pos["home"]]),
            away=int(row[pos["away"]]),
        )

    samples: list[tuple[float, Reading | None]]
    if timeline is not None:
        samples = [(r.t, r) for r in timeline.readings]
    else:
        step = 1.0 / result.sample_fps
        n = int(float(truth.get("duration", rows[-1][pos["t1"]] if rows else 0.0)) / step)
        samples = [(round(k * step, 6), None) for k in range(n)]
    visible = good_track = good_read = 0
    for t, reading in samples:
        i = bisect.bisect_right(starts, t) - 1
        if i < 0 or t >= float(rows[i][pos["t1"]]):
            continue
        row = rows[i]
        if row[pos["visibility"]] != "visible":
            continue
        want = {state(row)}
        # a frame whose time falls on a display change (to float precision) may show either
        if i > 0 and t - starts[i] < _EPS:
            want.add(state(rows[i - 1]))
        if i + 1 < len(rows) and starts[i + 1] - t < _EPS:
            want.add(state(rows[i + 1]))
        visible += 1
        good_track += result.state_at(t) in want
        if reading is not None:
            good_read += reading.status == "ok" and reading.state in want
    return {
        "sampled_visible": visible,
        "state_accuracy": good_track / visible if visible else None,
        "reading_accuracy": good_read / visible if visible and timeline is not None else None,
    }


def _load(truth: Path | str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(truth, dict):
        return truth
    data = orjson.loads(Path(truth).read_bytes())
    if not isinstance(data, dict) or "events" not in data:
        raise VideoError(f"{truth}: not a render truth file (no 'events')")
    return data
