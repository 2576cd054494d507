"""Place play-by-play events on the video by the match state the scoreboard shows (ASAP §3.3).

An event's state key is (period, clock, home score, away score) after the event. The display
semantics fix where inside that state's interval the event lies:
  * a scoring event happens when the score changes on screen (the start of its state);
  * with a running clock an event at clock c lies in the ~1 s the display shows c (its middle);
  * when the clock stopped at c, the stop (the whistle, the foul) happened in the first second of
    that interval, and a restart event (faceoff, kickoff, jump ball) when the clock resumed, at
    its end;
  * several events sharing one state in a stoppage keep play-by-play order; free throws are
    placed at a fixed cadence back from the end of their state (the display gives no finer
    cue), and reported `ambiguous`.
Clock values hidden by a replay or a banner are interpolated when the clock ran through the gap.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from playscout.corpus.match_state import MatchState, board, format_clock, period_label
from playscout.corpus.pbp import PbpEvent, PbpGame
from playscout.indexer.video.errors import PlayByPlayMismatchError
from playscout.indexer.video.scoreboard.models import (
    AlignmentResult,
    ClockSpan,
    EventAlignment,
    StateTimeline,
)

RESTART_TYPES = frozenset({"faceoff", "face-off", "kickoff", "kick-off", "jump ball", "tip-off"})
MAX_GAP = 90.0  # s: longest hidden gap interpolated with the running clock
STOP_OFFSET = 0.5  # the clock stopped somewhere in the first second of its value: the middle


@dataclass(frozen=True)
class StoppageModel:
    """Timing of events that happen *during* a stoppage, where the screen shows nothing new.

    Defaults follow basketball free throws: one attempt about every 8 s, the last about 2 s
    before play (and the clock) resumes. Only used for events flagged `ambiguous`."""

    during: tuple[str, ...] = ("free throw",)
    cadence: float = 8.0
    lead: float = 10.0  # the stop -> the first attempt
    tail_restart: float = 2.5  # last attempt -> the display's next clock value
    tail_score: float = 8.0  # a missed attempt -> the next (made) attempt changing the score

    def is_during(self, etype: str) -> bool:
        t = etype.lower()
        return any(d in t for d in self.during)


def _key(e: PbpEvent) -> tuple[int, int, int, int]:
    return (e.period, e.clock_seconds, e.home_score, e.away_score)


def _codes_match(a: str, b: str) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) <= 1


class _Index:
    """Lookups over the timeline: state -> segment, clock value -> span, game-time order, and
    the clock-driven time estimates the placement rules need."""

    def __init__(self, tl: StateTimeline) -> None:
        self.sport = tl.sport
        self.countdown = board(tl.sport).countdown
        self.segments = tl.segments
        self.by_state: dict[MatchState, int] = {}
        for i, s in enumerate(tl.segments):
            self.by_state.setdefault(s.state, i)
        self.seg_order = [self.skey(s.state) for s in tl.segments]
        self.clocks = tl.clocks
        self.by_clock: dict[tuple[int, int], int] = {}
        for i, c in enumerate(tl.clocks):
            self.by_clock.setdefault((c.period, c.clock), i)
        self.order = [self.gkey(c.period, c.clock) for c in tl.clocks]

    def gkey(self, period: int, clock: int) -> tuple[int, int]:
        """Game-time order of a displayed (period, clock)."""
        return (period, -clock if self.countdown else clock)

    def skey(self, s: MatchState) -> tuple[int, int, int]:
        return (*self.gkey(s.period, s.clock), s.home + s.away)

    def covered(self, period: int, clock: int) -> bool:
        return bool(self.order) and self.order[0] <= self.gkey(period, clock) <= self.order[-1]

    def _anchor_before(self, k: int, period: int) -> ClockSpan | None:
        """The nearest span before index k whose start was seen, reached through running spans
        only: the clock ran from there, so its position is known exactly."""
        for j in range(k - 1, max(-1, k - 60), -1):
            p = self.clocks[j]
            if p.period != period or not p.running:
                return None
            if p.start_seen:
                return p
        return None

    def _anchor_after(self, k: int, period: int) -> ClockSpan | None:
        """The nearest span from index k on whose end was seen, through running spans only."""
        for j in range(k, min(len(self.clocks), k + 60)):
            n = self.clocks[j]
            if n.period != period or not n.running:
                return None
            if n.end_seen:
                return n
        return None

    def stop_time(self, ci: int) -> tuple[float, str]:
        """When the clock stopped at span ci's value: within its first second (the middle), or,
        when that second was hidden, extrapolated from the last value seen starting before."""
        c = self.clocks[ci]
        if c.start_seen:
            return c.t_start + STOP_OFFSET, ""
        p = self._anchor_before(ci, c.period)
        if p is not None:
            t = p.t_start + abs(p.clock - c.clock) + STOP_OFFSET
            if t <= c.t_start + STOP_OFFSET and c.t_start - t <= MAX_GAP:
                return t, "clock stop hidden; extrapolated from the running clock"
        return c.t_start, "clock stop hidden; placed at first sight"

    def resume_time(self, ci: int) -> tuple[float, str]:
        """When the clock restarted after being stopped at span ci's value: in the last second
        of the span, or extrapolated back from the first value seen ending after it."""
        c = self.clocks[ci]
        if c.end_seen:
            return c.t_end - STOP_OFFSET, ""
        n = self._anchor_after(ci + 1, c.period)
        if n is not None:
            t = n.t_end - abs(n.clock - c.clock) - STOP_OFFSET
            if t >= c.t_end - STOP_OFFSET and t - c.t_end <= MAX_GAP:
                return t, "restart hidden; extrapolated from the running clock"
        return c.t_end, "restart hidden; placed at last sight"

    def clock_time(self, period: int, clock: int) -> tuple[float | None, str]:
        """When the display showed (period, clock): the middle of a running second, the first
        second of a stopped one, or interpolated across a gap the clock ran through."""
        i = self.by_clock.get((period, clock))
        if i is not None:
            c = self.clocks[i]
            if c.running:
                return (c.t_start + c.t_end) / 2, ""
            return self.stop_time(i)
        k = bisect.bisect_left(self.order, self.gkey(period, clock))
        if k == 0 or k == len(self.clocks):
            return None, "clock value never shown (outside the video)"
        prev, nxt = self.clocks[k - 1], self.clocks[k]
        if prev.period != period or nxt.period != period:
            return None, "clock value never shown (period boundary)"
        # extrapolate with the running clock from the nearest exactly known tick on either
        # side; each estimate must fall between the last sight before and the first after
        cands: list[tuple[int, float]] = []
        b = self._anchor_before(k, period)
        if b is not None:
            t = b.t_start + abs(clock - b.clock) + 0.5
            if prev.t_end - 0.5 <= t <= nxt.t_start + 0.5:
                cands.append((abs(clock - b.clock), t))
        a = self._anchor_after(k, period)
        if a is not None:
            t = a.t_end - abs(clock - a.clock) - 0.5
            if prev.t_end - 0.5 <= t <= nxt.t_start + 0.5:
                cands.append((abs(clock - a.clock), t))
        if not cands:
            return None, "hidden while the clock was stopped"
        dist, t = min(cands)
        if dist > MAX_GAP:
            return None, f"hidden for {dist} s of game clock"
        return t, "interpolated over a hidden gap"


def align_events(
    timeline: StateTimeline, game: PbpGame, *, stoppage: StoppageModel | None = None
) -> AlignmentResult:
    """Video time of every play-by-play event, or why it has none.

    Raises PlayByPlayMismatchError when the scoreboard's teams are not the game's, or when most
    events inside the clock range the video shows cannot be placed or contradict the screen."""
    model = stoppage or StoppageModel()
    video = timeline.video
    if game.sport != timeline.sport:
        raise PlayByPlayMismatchError(
            f"{video}: play-by-play {game.game_id} is {game.sport}, the video was read as {timeline.sport}"
        )
    home, away = game.codes()
    seen = (timeline.layout.home_code, timeline.layout.away_code)
    if not (_codes_match(seen[0], home) and _codes_match(seen[1], away)):
        raise PlayByPlayMismatchError(
            f"{video}: scoreboard shows {seen[0]} v {seen[1]}, play-by-play {game.game_id} is "
            f"{home} v {away}"
        )
    ix = _Index(timeline)
    out: dict[int, EventAlignment] = {}
    events = game.events
    prev_total = 0  # games start 0-0
    during_at: dict[tuple[int, int], int] = {}  # stoppage events so far per (period, clock)
    i = 0
    while i < len(events):
        j = i + 1
        while j < len(events) and _key(events[j]) == _key(events[i]):
            j += 1
        group = events[i:j]
        scoring = group[0].home_score + group[0].away_score > prev_total
        pc = (group[0].period, group[0].clock_seconds)
        for ea in _place_group(ix, group, scoring, model, during_at.get(pc, 0)):
            out[ea.event_id] = ea
        during_at[pc] = during_at.get(pc, 0) + sum(model.is_during(e.type) for e in group)
        prev_total = group[-1].home_score + group[-1].away_score
        i = j
    result = [out[e.event_id] for e in events]
    counts = {
        s: sum(1 for e in result if e.status == s) for s in ("aligned", "ambiguous", "unaligned")
    }
    covered = [e for e in result if ix.covered(e.period, e.clock)]
    _check(video, game, ix, covered)
    return AlignmentResult(
        video=video,
        game_id=game.game_id,
        sport=game.sport,
        events=result,
        counts=counts,
        covered=len(covered),
        sample_fps=timeline.sample_fps,
        segments=timeline.segments,
    )


def _ea(e: PbpEvent, t: float | None, status: str, reason: str = "") -> EventAlignment:
    return EventAlignment(
        event_id=e.event_id,
        type=e.type,
        period=e.period,
        clock=e.clock_seconds,
        video_time=None if t is None else round(max(0.0, t), 3),
        status=status,
        reason=reason,
    )


def _place_group(
    ix: _Index, group: list[PbpEvent], scoring: bool, model: StoppageModel, prior: int = 0
) -> list[EventAlignment]:
    """Times of one group of consecutive events sharing a state; `prior` counts the stoppage
    events (free throws) already placed at this clock value."""
    first = group[0]
    p, c, h, a = _key(first)
    state = MatchState(period=p, clock=c, home=h, away=a)
    si = ix.by_state.get(state)
    if si is None:
        return _place_unseen(ix, group, state, scoring)
    seg = ix.segments[si]
    ci = ix.by_clock[(p, c)]
    stopped = not ix.clocks[ci].running

    def restart(ev: PbpEvent) -> EventAlignment:
        t, why = ix.resume_time(ci)
        return _ea(ev, t, "ambiguous" if why.endswith("last sight") else "aligned", why)

    res: list[EventAlignment] = []
    # the first event: a score change on screen, else the clock
    e = first
    if stopped and c == 0 and ix.countdown and not scoring:
        # the period is over on screen: a feed that logs plays after the buzzer (a last
        # rebound) gives the display nothing to tell them apart
        t0, _ = ix.stop_time(ci)
        why = "logged at 00:00: placed at the buzzer"
        return [_ea(ev, t0, "ambiguous", why) for ev in group]
    if stopped and e.type.lower() in RESTART_TYPES:
        res.append(restart(e))
        t0 = res[-1].video_time or seg.t_start
    elif scoring and seg.start_seen:
        t0 = seg.t_start
        res.append(_ea(e, t0, "aligned"))
    elif scoring and stopped and model.is_during(e.type) and si > 0:
        # a free throw scored while the board was hidden: the cadence from the stop, kept
        # inside the gap between the last sight of the old score and the first of the new
        lo = ix.segments[si - 1].t_end
        stop, _ = ix.stop_time(ci)
        t0 = min(max(stop + model.lead + prior * model.cadence, lo), seg.t_start)
        res.append(_ea(e, t0, "ambiguous", "score change hidden: cadence estimate"))
    else:
        t_opt, why = ix.clock_time(p, c)
        t0 = seg.t_start if t_opt is None else max(t_opt, seg.t_start if scoring else -1.0)
        if not scoring and seg.start_seen and t0 < seg.t_start - 0.6:
            # the state was seen beginning after the clock estimate (a score change earlier
            # in the same stoppage): the event cannot precede it
            t0 = seg.t_start + (STOP_OFFSET if stopped else 0.0)
        if scoring and not why:
            why = "score change hidden; placed by the clock"
        res.append(_ea(e, t0, "ambiguous" if why.endswith("first sight") else "aligned", why))
    rest = group[1:]
    if not rest:
        return res
    if not stopped:
        if scoring and seg.start_seen:  # the rest came with the score change (and-one foul)
            return res + [_ea(e, t0, "aligned") for e in rest]
        # running clock: the group lies within the value's ~1 s; spread it there in order
        lo, hi = max(seg.t_start, ix.clocks[ci].t_start), min(seg.t_end, ix.clocks[ci].t_end)
        n = len(group)
        first_status, first_reason = res[0].status, res[0].reason
        res = [_ea(e, lo + (k + 1) * (hi - lo) / (n + 1), "aligned") for k, e in enumerate(group)]
        res[0] = res[0].model_copy(update={"status": first_status, "reason": first_reason})
        return res
    end = seg.t_end
    during = [e for e in rest if model.is_during(e.type)]
    nxt = ix.segments[si + 1] if si + 1 < len(ix.segments) else None
    score_next = nxt is not None and (nxt.state.period, nxt.state.clock) == (p, c)
    tail = model.tail_score if score_next else model.tail_restart
    when: dict[int, float] = {}
    for k, d in enumerate(reversed(during)):
        when[d.event_id] = max(t0, end - tail - k * model.cadence)
    for e in rest:
        if e.type.lower() in RESTART_TYPES:
            res.append(restart(e))
        elif e.event_id in when:
            res.append(_ea(e, when[e.event_id], "ambiguous", "during a stoppage: cadence estimate"))
        else:
            res.append(_ea(e, t0, "ambiguous", "shares a stopped state; placed with the stop"))
    return res


def _place_unseen(
    ix: _Index, group: list[PbpEvent], state: MatchState, scoring: bool
) -> list[EventAlignment]:
    """The event's state never appeared (shown for less than a sample, or hidden): place it
    between the states shown before and after it, or say why not."""
    p, c = state.period, state.clock
    if not ix.covered(p, c):
        return [_ea(e, None, "unaligned", "outside the video") for e in group]
    k = bisect.bisect_right(ix.seg_order, ix.skey(state))
    before = ix.segments[k - 1] if k > 0 else None
    after = ix.segments[k] if k < len(ix.segments) else None
    ok = (
        before is None or (before.state.home <= state.home and before.state.away <= state.away)
    ) and (after is None or (after.state.home >= state.home and after.state.away >= state.away))
    if not ok:
        why = f"score contradicts the screen at {_where(ix, p, c)}"
        return [_ea(e, None, "unaligned", why) for e in group]
    lo = before.t_start if before is not None else 0.0
    hi = after.t_start if after is not None else float("inf")
    if (
        scoring
        and after is not None
        and before is not None
        and before.end_seen
        and after.start_seen
    ):
        # the new score first showed with the next state: it changed within a sample of that
        t, why = after.t_start, "state shown too briefly; placed at the score change"
    else:
        t_opt, why = ix.clock_time(p, c)
        if t_opt is None:
            return [_ea(e, None, "unaligned", why) for e in group]
        t = min(max(t_opt, lo), hi)
        why = why or "state shown too briefly; placed by the clock"
    return [_ea(e, t, "aligned", why) for e in group]


def _where(ix: _Index, period: int, clock: int) -> str:
    try:
        label = period_label(ix.sport, period)
    except KeyError:
        label = f"P{period}"
    return f"{label} {format_clock(clock)}"


def _check(video: str, game: PbpGame, ix: _Index, covered: list[EventAlignment]) -> None:
    """Raise when the play-by-play does not describe this video."""
    if not ix.segments:
        return
    first, last = ix.clocks[0], ix.clocks[-1]
    span = f"{_where(ix, first.period, first.clock)} .. {_where(ix, last.period, last.clock)}"
    if not covered:
        game_secs = abs(last.clock - first.clock) if first.period == last.period else 60
        if game_secs >= 30 and game.events:
            raise PlayByPlayMismatchError(
                f"{video}: no event of play-by-play {game.game_id} falls in the clock range the "
                f"video shows ({span})"
            )
        return
    lost = [e for e in covered if e.status == "unaligned"]
    if len(lost) * 2 > len(covered):  # most of them
        bad = sum("contradicts" in e.reason for e in lost)
        raise PlayByPlayMismatchError(
            f"{video}: {len(lost)} of {len(covered)} play-by-play events of {game.game_id} in the "
            f"video's clock range ({span}) do not match the scoreboard ({bad} contradict its score)"
        )
