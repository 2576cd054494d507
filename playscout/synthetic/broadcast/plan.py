"""The director's plan of a whole game broadcast: live scene, replays, break cards, camera cuts
and sponsor overlays, all on the synthetic game timeline.

Planned once for the full game from one seeded RNG, so an excerpt shows exactly the frames the
full video has at the same times. Replays and breaks only use clock-stopped time, so the true
game timeline is never shifted.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass, field
from typing import Any

from playscout.synthetic.sports import SPECS

from .timeline import GameClock, Span

SCENE, REPLAY, BREAK = "scene", "replay", "break"
BREAK_MIN = 35.0  # uncovered stoppages longer than this go to commercial / studio cards
WIPE = 0.4  # replay wipe transition (seconds, at both ends)
CAMERAS = ("wide", "reverse", "close", "close-low", "close-reverse")
_LIVE_WEIGHTS = (50, 12, 18, 10, 10)
_REPLAY_CAMS = (2, 3, 4)
SPONSORS = 6  # number of sponsor brands (cards and overlay banners)


@dataclass(frozen=True, slots=True)
class Segment:
    t0: float
    t1: float
    kind: str  # SCENE, REPLAY or BREAK
    src0: float = 0.0  # replay: game time shown at t0
    rate: float = 1.0  # replay: game seconds per broadcast second (0.5 = slow motion)
    stale: bool = False  # replay: the recorded scoreboard is burnt in
    camera: int = 0  # replay camera
    card: str = ""  # break: "studio:TITLE" or "ad:N"
    event_id: int = 0  # replay: the event replayed

    def source(self, t: float) -> float:
        return self.src0 + self.rate * (t - self.t0)


@dataclass(frozen=True, slots=True)
class Ad:
    t0: float
    t1: float
    sponsor: int
    cover: str  # "full" covers the scoreboard, "left"/"right" part of it


@dataclass
class Plan:
    segments: list[Segment]
    cam_times: list[float] = field(default_factory=list)
    cam_ids: list[int] = field(default_factory=list)
    cuts: list[float] = field(default_factory=list)
    ads: list[Ad] = field(default_factory=list)

    def camera_at(self, t: float) -> int:
        i = bisect.bisect_right(self.cam_times, t) - 1
        return self.cam_ids[i] if i >= 0 else 0

    def kinds(self, kind: str) -> list[tuple[float, float]]:
        """Merged intervals of one segment kind."""
        out: list[tuple[float, float]] = []
        for s in self.segments:
            if s.kind != kind:
                continue
            if out and abs(out[-1][1] - s.t0) < 1e-9:
                out[-1] = (out[-1][0], s.t1)
            else:
                out.append((s.t0, s.t1))
        return out


def break_title(sport: str, span: Span, first_of_period: bool) -> str:
    """What the studio card says: end of a period, half-time, or a TV timeout (the sport's
    Broadcast titles)."""
    spec = SPECS[sport]
    titles = spec.broadcast
    if first_of_period and span.period > 1:
        ended = span.period - 1
        title = titles.break_titles.get(ended)
        if title is None:
            regulation = ended <= spec.board.regulation_periods
            title = titles.end_title if regulation else titles.overtime_end_title
        return title.format(label=spec.board.period_label(ended))
    return titles.timeout_title


class _Director:
    def __init__(self, clock: GameClock, rng: random.Random) -> None:
        self.clock = clock
        self.rng = rng
        self.segments: list[Segment] = []
        self.replayed: set[int] = set()
        self.scoring = clock.scoring_plays()
        self._ev_times = [float(e["video_time"]) for e in clock.events]

    def add(self, seg: Segment) -> None:
        if seg.t1 - seg.t0 <= 1e-9:
            return
        last = self.segments[-1] if self.segments else None
        if last and last.kind == SCENE and seg.kind == SCENE and abs(last.t1 - seg.t0) < 1e-9:
            self.segments[-1] = Segment(last.t0, seg.t1, SCENE)
        else:
            self.segments.append(seg)

    def quiet(self, span: Span) -> bool:
        """No event strictly inside the span (events sit on span boundaries)."""
        i = bisect.bisect_right(self._ev_times, span.t0 + 1e-6)
        return i >= len(self._ev_times) or self._ev_times[i] >= span.t1 - 1e-6

    def subject(self, span: Span, long: bool) -> dict[str, Any] | None:
        """The latest scoring play not yet replayed: recent, or (in a long break) of the
        period that just ended."""
        for e in reversed(self.scoring):
            t = float(e["video_time"])
            if t > span.t0 + 1e-6 or e["event_id"] in self.replayed:
                continue
            if span.t0 - t <= 45.0 or (long and span.t0 - t <= 3600.0):
                return e
            return None
        return None

    def replay(self, t0: float, length: float, ev: dict[str, Any]) -> float:
        rng = self.rng
        rate = 0.5 if rng.random() < 0.35 else 1.0
        et = float(ev["video_time"])
        src0 = max(0.0, et - 0.65 * length * rate)
        seg = Segment(
            t0,
            t0 + length,
            REPLAY,
            src0=src0,
            rate=rate,
            stale=rng.random() < 0.5,
            camera=rng.choice(_REPLAY_CAMS),
            event_id=int(ev["event_id"]),
        )
        self.replayed.add(int(ev["event_id"]))
        self.add(seg)
        return seg.t1

    def cards(self, t0: float, t1: float, title: str) -> None:
        rng = self.rng
        t = t0
        first = True
        while t < t1 - 1e-9:
            length = rng.uniform(8.0, 12.0) if first else rng.uniform(8.0, 15.0)
            end = t1 if t1 - (t + length) < 5.0 else t + length
            card = f"studio:{title}" if first else f"ad:{rng.randrange(SPONSORS)}"
            self.add(Segment(t, end, BREAK, card=card))
            t, first = end, False

    def span(self, span: Span, first_of_period: bool, sport: str) -> None:
        d = span.t1 - span.t0
        if span.running or span.covered or not self.quiet(span):
            self.add(Segment(span.t0, span.t1, SCENE))
            return
        rng = self.rng
        long = d > BREAK_MIN
        t = span.t0
        lead_in = rng.uniform(1.5, 3.0)
        ev = self.subject(span, long)
        if ev is not None:
            length = rng.uniform(4.0, 8.0)
            if not long:
                length = min(length, d - lead_in - 1.0)
            if length >= 4.0:
                self.add(Segment(t, t + lead_in, SCENE))
                t = self.replay(t + lead_in, length, ev)
        if long:
            lead_out = rng.uniform(2.0, 4.0)
            if t == span.t0:
                self.add(Segment(t, t + lead_in, SCENE))
                t += lead_in
            self.cards(t, span.t1 - lead_out, break_title(sport, span, first_of_period))
            t = span.t1 - lead_out
        self.add(Segment(t, span.t1, SCENE))


def _cameras(plan: Plan, rng: random.Random) -> None:
    """Camera per scene run: wide after a break, a new angle after a replay, then a hard cut to
    another angle every few seconds (close-ups are held shorter than wide shots)."""
    segs = plan.segments
    for i, s in enumerate(segs):
        prev = segs[i - 1].kind if i else None
        if i and (
            (s.kind == BREAK and prev in (SCENE, BREAK)) or (s.kind == SCENE and prev == BREAK)
        ):
            plan.cuts.append(s.t0)
        if s.kind != SCENE:
            continue
        if prev == REPLAY:
            cam = rng.choices(range(len(CAMERAS)), _LIVE_WEIGHTS)[0]
            plan.cam_times.append(s.t0 - WIPE)
        else:
            cam = 0
            plan.cam_times.append(s.t0)
        plan.cam_ids.append(cam)
        t = s.t0 + _hold(cam, rng)
        while t < s.t1 - 1.5:
            cam = rng.choices(
                [c for c in range(len(CAMERAS)) if c != cam],
                [w for c, w in enumerate(_LIVE_WEIGHTS) if c != cam],
            )[0]
            plan.cam_times.append(t)
            plan.cam_ids.append(cam)
            plan.cuts.append(t)
            t += _hold(cam, rng)


def _hold(cam: int, rng: random.Random) -> float:
    return rng.uniform(6.0, 20.0) if cam < 2 else rng.uniform(4.0, 9.0)


def _ads(plan: Plan, rng: random.Random) -> None:
    """A sponsor banner slides over the scoreboard every few minutes of scene time."""
    nxt = rng.uniform(30.0, 120.0)
    for a, b in plan.kinds(SCENE):
        while nxt + 8.5 < b:
            t = max(nxt, a + 1.0)
            length = rng.uniform(3.0, 8.0)
            if t + length + 0.5 > b:
                break
            cover = rng.choice(("full", "full", "left", "right"))
            plan.ads.append(Ad(t, t + length, rng.randrange(SPONSORS), cover))
            nxt = t + length + rng.uniform(90.0, 240.0)


def _windows(clock: GameClock) -> list[Span]:
    """Spans with back-to-back uncovered stoppages merged (a goal's stoppage followed by the
    next whistle's, with no event between them, is one break on air)."""
    at_event = {float(e["video_time"]) for e in clock.events}
    out: list[Span] = []
    for sp in clock.spans:
        last = out[-1] if out else None
        if (
            last is not None
            and not (last.running or last.covered or sp.running or sp.covered)
            and last.period == sp.period
            and sp.t0 not in at_event
        ):
            out[-1] = Span(last.t0, sp.t1, last.period, last.c0, False, False)
        else:
            out.append(sp)
    return out


def plan_broadcast(clock: GameClock, seed: int, game_id: str) -> Plan:
    rng = random.Random(f"playscout-render:{seed}:{game_id}")
    d = _Director(clock, rng)
    prev_period = 0
    for sp in _windows(clock):
        d.span(sp, sp.period != prev_period, clock.sport)
        prev_period = sp.period
    plan = Plan(d.segments)
    _cameras(plan, random.Random(f"playscout-render:{seed}:{game_id}:cameras"))
    _ads(plan, random.Random(f"playscout-render:{seed}:{game_id}:ads"))
    return plan
