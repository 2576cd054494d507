"""What the scoreboard shows at every moment of a synthetic game, from its play-by-play spans.

The display follows the simulator's rounding (`Sim.clock_at`), so at each event's video time it
shows exactly the event's clock and score. The state is kept as a step function (breakpoints and
values) that both the frame renderer and the ground truth read, so pixels and truth cannot drift.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from playscout.media.errors import VideoError
from playscout.synthetic.sports import SPECS

TAIL = 4.0  # seconds of post-game hold on the final scoreboard (walk-off goals end the video)
IDLE_SPEED = 0.15  # players drift at this fraction of live speed while the clock is stopped

State = tuple[int, int, int, int]  # period, displayed clock seconds, home score, away score


class RenderError(VideoError):
    """A render request that cannot be met (unknown sport, empty or out-of-game range)."""


def clock_display(sport: str, period: int, elapsed: float) -> int:
    """Displayed whole seconds at `elapsed` seconds into a period, rounded as the simulator rounds
    event clocks: remaining time (up, with 1 ms slack) for countdown sports, match time (down)
    for soccer."""
    board = SPECS[sport].board
    if board.countdown:
        return int(max(0.0, board.period_length(period) - elapsed) + 0.999)
    return int((period - 1) * board.period_seconds + elapsed)


def _elapsed_for(sport: str, period: int, shown: int) -> float:
    """An elapsed period time whose display is `shown` (inverse of clock_display)."""
    board = SPECS[sport].board
    if board.countdown:
        return float(board.period_length(period) - shown)
    return shown - (period - 1) * board.period_seconds + 0.5


@dataclass(frozen=True, slots=True)
class Span:
    t0: float
    t1: float
    period: int
    c0: float  # clock elapsed in the period at t0
    running: bool
    covered: bool


def parse_clock(text: str) -> int:
    m, s = text.split(":")
    return int(m) * 60 + int(s)


class GameClock:
    """Scoreboard state and player-motion time along the synthetic game timeline."""

    def __init__(self, pbp: dict[str, Any]) -> None:
        sport = pbp.get("sport")
        if not isinstance(sport, str) or sport not in SPECS:
            raise RenderError(f"game {pbp.get('game_id')}: unknown sport {sport!r}")
        for key in ("spans", "events", "video_duration", "game_id"):
            if key not in pbp:
                raise RenderError(
                    f"game {pbp.get('game_id')}: play-by-play lacks {key!r} "
                    "(a synthetic games/{gid}/play_by_play.json is needed)"
                )
        if any("video_time" not in e for e in pbp["events"]):
            raise RenderError(
                f"game {pbp['game_id']}: events lack 'video_time' "
                "(a synthetic games/{gid}/play_by_play.json is needed)"
            )
        self.sport: str = sport
        self.events = sorted(pbp["events"], key=lambda e: (e["video_time"], e["event_id"]))
        spans = [
            Span(float(a), float(b), int(p), float(c), bool(r), bool(v))
            for a, b, p, c, r, v in pbp["spans"]
        ]
        if not spans:
            raise RenderError(f"game {pbp['game_id']}: play-by-play has no spans")
        self.video_duration = float(pbp["video_duration"])
        spans.append(self._tail(spans[-1]))
        self.spans = spans
        self.end = spans[-1].t1
        self._starts = [s.t0 for s in spans]
        self._ev_times = [float(e["video_time"]) for e in self.events]
        self._build_states()
        self._build_tau()

    # ------------------------------------------------------------------ construction
    def _tail(self, last: Span) -> Span:
        """Post-game hold: the clock stays where the last event (or the last span) left it."""
        t = self.video_duration
        period = last.period
        c = last.c0 + (last.t1 - last.t0 if last.running else 0.0)
        late = [e for e in self.events if e["video_time"] >= t - 1e-6]
        if late:
            period = int(late[-1]["period"])
            c = _elapsed_for(self.sport, period, parse_clock(late[-1]["clock"]))
        return Span(t, t + TAIL, period, c, False, True)

    def _display(self, span: Span, t: float) -> int:
        c = span.c0 + (t - span.t0 if span.running else 0.0)
        return clock_display(self.sport, span.period, c)

    def _ticks(self, span: Span) -> list[float]:
        """Times inside a running span where the displayed clock changes."""
        if not span.running:
            return []
        board = SPECS[self.sport].board
        lo, hi = span.c0, span.c0 + (span.t1 - span.t0)
        if board.countdown:
            plen = board.period_length(span.period)
            # display changes where plen - c + 0.999 crosses an integer k >= 1
            ks = range(max(1, math.ceil(plen + 0.999 - hi)), math.floor(plen + 0.999 - lo) + 1)
            cs = [plen + 0.999 - k for k in ks]
        else:
            base = (span.period - 1) * board.period_seconds
            cs = [k - base for k in range(math.floor(base + lo) + 1, math.ceil(base + hi))]
        return sorted(span.t0 + (c - lo) for c in cs if lo < c < hi)

    def _overrides(self) -> dict[float, tuple[int, int]]:
        """Event times where the spans disagree with the event's own clock (the simulator lets a
        clock step back by a second after a missed free throw, and logs a rebound after the
        buzzer): the scoreboard shows the event's period and clock until its next change."""
        last: dict[float, dict[str, Any]] = {}
        for e in self.events:
            last[float(e["video_time"])] = e
        out: dict[float, tuple[int, int]] = {}
        for t, e in last.items():
            want = (int(e["period"]), parse_clock(e["clock"]))
            span = self.span_at(t)
            if t < self.end and (span.period, self._display(span, t)) != want:
                out[t] = want
        return out

    def _build_states(self) -> None:
        overrides = self._overrides()
        cuts = set(self._starts)
        for s in self.spans:
            cuts.update(self._ticks(s))
        cuts.update(t for t in self._ev_times if t < self.end)
        times = sorted(t for t in cuts if 0.0 <= t < self.end)
        ends = [*times[1:], self.end]
        self.times: list[float] = []
        self.values: list[State] = []
        for a, b in zip(times, ends, strict=True):
            st = self._state_exact((a + b) / 2)
            if a in overrides:
                st = (*overrides[a], st[2], st[3])
            if not self.values or self.values[-1] != st:
                self.times.append(a)
                self.values.append(st)

    def _state_exact(self, t: float) -> State:
        span = self.span_at(t)
        i = bisect.bisect_right(self._ev_times, t) - 1
        home, away = (
            (0, 0) if i < 0 else (self.events[i]["home_score"], self.events[i]["away_score"])
        )
        return (span.period, self._display(span, t), int(home), int(away))

    def _build_tau(self) -> None:
        self._tau0: list[float] = []
        acc = 0.0
        for s in self.spans:
            self._tau0.append(acc)
            acc += (s.t1 - s.t0) * (1.0 if s.running else IDLE_SPEED)

    # ------------------------------------------------------------------ queries
    def scoring_plays(self) -> list[dict[str, Any]]:
        """Events that changed the score and earn a replay and a cheer: made field goals and
        goals, not the sport's minor scores (Broadcast.minor_scores: free throws)."""
        minor = SPECS[self.sport].broadcast.minor_scores
        out, prev = [], (0, 0)
        for e in self.events:
            score = (e["home_score"], e["away_score"])
            if score != prev and str(e.get("type", "")) not in minor:
                out.append(e)
            prev = score
        return out

    def span_at(self, t: float) -> Span:
        i = max(0, bisect.bisect_right(self._starts, t) - 1)
        return self.spans[i]

    def state_at(self, t: float) -> State:
        i = max(0, bisect.bisect_right(self.times, t) - 1)
        return self.values[i]

    def pieces(self, t0: float, t1: float) -> list[tuple[float, float, State]]:
        """The step function restricted to [t0, t1)."""
        out: list[tuple[float, float, State]] = []
        i = max(0, bisect.bisect_right(self.times, t0) - 1)
        while i < len(self.times) and self.times[i] < t1:
            a = max(t0, self.times[i])
            b = min(t1, self.times[i + 1] if i + 1 < len(self.times) else self.end)
            if b > a:
                out.append((a, b, self.values[i]))
            i += 1
        return out

    def tau(self, t: float) -> float:
        """Motion time: advances with the game clock, slowly while it is stopped, so players
        never jump between live play and stoppages."""
        i = max(0, bisect.bisect_right(self._starts, t) - 1)
        s = self.spans[i]
        return self._tau0[i] + (t - s.t0) * (1.0 if s.running else IDLE_SPEED)

    def event_mismatches(self) -> list[int]:
        """Events whose clock or score the display does not show at their video time."""
        last: dict[float, dict[str, Any]] = {}
        for e in self.events:  # simultaneous events: the display shows the last one's score
            last[float(e["video_time"])] = e
        bad = []
        for t, e in last.items():
            want = (int(e["period"]), parse_clock(e["clock"]), e["home_score"], e["away_score"])
            if self.state_at(t) != want:
                bad.append(int(e["event_id"]))
        return bad
