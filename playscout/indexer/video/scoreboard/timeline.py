"""Readings -> a monotone match-state timeline (ASAP §3.3).

Within a game the true scoreboard only moves one way: the period never decreases, the clock
moves one way within a period and never faster than real time, and scores never decrease. Stale
replay graphics and OCR misreads break that, so instead of thresholds on individual readings we
keep the heaviest chain of reading runs that is consistent pairwise (a longest weighted
increasing subsequence under this partial order, O(n·K) dynamic programming with a look-back of
K runs) and drop the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from playscout.corpus.match_state import MatchState, board
from playscout.indexer.video.scoreboard.models import ClockSpan, Reading, Segment

LOOKBACK = 400  # runs; a stale or garbled stretch longer than this cannot be bridged
RATE_SLACK = 1.02  # the clock cannot run faster than real time (2% for timestamp jitter)
CLOCK_SLACK = 1.5  # seconds: display rounding plus sampling
BACKSTEP = 1  # s: a clock correction (put back) the filter accepts
REWIND_DISCOUNT = 0.2  # weight of readings in a stretch that starts older than the one before
RUNNING_MAX = 2.2  # a clock value shown longer than this (s) was stopped (a 2 s value is
# usually a one-second clock correction, not a stoppage)


@dataclass
class Timeline:
    segments: list[Segment]
    clocks: list[ClockSpan]
    rejected: int


@dataclass
class _Run:
    state: MatchState
    idx: list[int]  # reading indices


def _runs(readings: list[Reading]) -> list[_Run]:
    runs: list[_Run] = []
    for i, r in enumerate(readings):
        if r.status != "ok" or r.state is None:
            continue
        if runs and runs[-1].state == r.state:
            runs[-1].idx.append(i)
        else:
            runs.append(_Run(r.state, [i]))
    return runs


def _older(a: MatchState, b: MatchState, countdown: bool) -> bool:
    """Whether state a lies before state b in any game (beyond a one-second clock correction)."""
    if a.home < b.home or a.away < b.away or a.period < b.period:
        return True
    if a.period > b.period:
        return False
    moved = (b.clock - a.clock) if countdown else (a.clock - b.clock)  # b -> a in game time
    return moved < -BACKSTEP


def rewind_weights(readings: list[Reading], runs: list[_Run], countdown: bool) -> np.ndarray:
    """Run weights (readings per run), discounted for stretches that rewind.

    A stretch is a run of readable frames between gaps (hidden, occluded, unreadable). A replay
    with a burnt-in scoreboard is such a stretch that starts *older* than what was on screen
    just before the gap, and in slow motion it can hold more frames than the live readings it
    contradicts. Live broadcasts show a state before any replay repeats it, so a rewinding
    stretch is discounted (not dropped: the chain can still take it when nothing contradicts
    it, e.g. after an OCR glitch right before a gap)."""
    weight = np.array([len(r.idx) for r in runs], float)
    run_of = {}
    for k, r in enumerate(runs):
        for i in r.idx:
            run_of[i] = k
    last_state: MatchState | None = None
    flagged = False
    prev_ok = False
    for i in range(len(readings)):
        ok = i in run_of
        if ok and not prev_ok:  # a stretch starts
            state = runs[run_of[i]].state
            flagged = last_state is not None and _older(state, last_state, countdown)
        if ok:
            if flagged:
                weight[run_of[i]] = len(runs[run_of[i]].idx) * REWIND_DISCOUNT
            else:
                last_state = runs[run_of[i]].state
        prev_ok = ok
    return weight


def consistent_chain(
    runs: list[_Run],
    times: np.ndarray,
    countdown: bool,
    lookback: int = LOOKBACK,
    weight: np.ndarray | None = None,
) -> list[int]:
    """Indices of the heaviest pairwise-consistent chain of runs (default weight: readings in a
    run)."""
    n = len(runs)
    if n == 0:
        return []
    per = np.array([r.state.period for r in runs])
    clk = np.array([r.state.clock for r in runs])
    home = np.array([r.state.home for r in runs])
    away = np.array([r.state.away for r in runs])
    first = np.array([times[r.idx[0]] for r in runs])
    last = np.array([times[r.idx[-1]] for r in runs])
    if weight is None:
        weight = np.array([len(r.idx) for r in runs], float)
    best = weight.copy()
    prev = np.full(n, -1)
    sign = 1 if countdown else -1  # countdown: earlier clock >= later clock
    for i in range(1, n):
        j0 = max(0, i - lookback)
        p, c = per[j0:i], clk[j0:i]
        dt = np.maximum(0.0, first[i] - last[j0:i])
        same = p == per[i]
        moved = sign * (c - clk[i])  # clock movement from run j to run i, in game direction
        h, a = home[j0:i], away[j0:i]
        # officials sometimes put a second back on the clock: allowed while the score holds
        back = (moved == -BACKSTEP) & (h == home[i]) & (a == away[i])
        run_ok = ((moved >= 0) | back) & (moved <= dt * RATE_SLACK + CLOCK_SLACK)
        ok = (h <= home[i]) & (a <= away[i]) & ((p < per[i]) | (same & run_ok))
        if ok.any():
            cand = np.where(ok, best[j0:i], -1.0)
            k = int(np.argmax(cand))
            best[i] = weight[i] + cand[k]
            prev[i] = j0 + k
    i = int(np.argmax(best))
    chain = []
    while i >= 0:
        chain.append(i)
        i = int(prev[i])
    return chain[::-1]


def build_timeline(
    readings: list[Reading], *, sport: str, sample_interval: float, duration: float
) -> Timeline:
    """Filter readings to the consistent chain (marking the others `rejected`) and cut the
    result into state segments and per-clock-value spans."""
    times = np.array([r.t for r in readings])
    runs = _runs(readings)
    countdown = board(sport).countdown
    weight = rewind_weights(readings, runs, countdown)
    chain = consistent_chain(runs, times, countdown, weight=weight)
    kept = np.zeros(len(readings), bool)
    for k in chain:
        kept[runs[k].idx] = True
    rejected = 0
    for i, r in enumerate(readings):
        if r.status == "ok" and r.state is not None and not kept[i]:
            r.status = "rejected"
            rejected += 1
    half = sample_interval / 2
    segments: list[Segment] = []
    for k in chain:
        idx = runs[k].idx
        a, b = idx[0], idx[-1]
        # a boundary is seen when the neighbouring sample is a kept reading of another state
        start_seen = a > 0 and bool(kept[a - 1])
        end_seen = b + 1 < len(readings) and bool(kept[b + 1])
        t0 = (readings[a - 1].t + readings[a].t) / 2 if start_seen else readings[a].t - half
        t1 = (readings[b].t + readings[b + 1].t) / 2 if end_seen else readings[b].t + half
        if segments and segments[-1].state == runs[k].state:
            # the same state on both sides of a hidden or rejected stretch: it never changed
            segments[-1].t_end = round(t1, 3)
            segments[-1].samples += len(idx)
            segments[-1].end_seen = end_seen
            continue
        segments.append(
            Segment(
                t_start=round(max(0.0, t0), 3),
                t_end=round(min(duration, t1) if duration > 0 else t1, 3),
                state=runs[k].state,
                samples=len(idx),
                start_seen=start_seen,
                end_seen=end_seen,
            )
        )
    return Timeline(segments, clock_spans(segments), rejected)


def clock_spans(segments: list[Segment]) -> list[ClockSpan]:
    """Group consecutive segments by displayed (period, clock): one span per clock value."""
    out: list[ClockSpan] = []
    for s in segments:
        key = (s.state.period, s.state.clock)
        if out and (out[-1].period, out[-1].clock) == key:
            last = out[-1]
            last.t_end = s.t_end
            last.end_seen = s.end_seen
        else:
            out.append(
                ClockSpan(
                    period=key[0],
                    clock=key[1],
                    t_start=s.t_start,
                    t_end=s.t_end,
                    running=True,
                    start_seen=s.start_seen,
                    end_seen=s.end_seen,
                )
            )
    for c in out:
        c.running = (c.t_end - c.t_start) <= RUNNING_MAX
    return out
