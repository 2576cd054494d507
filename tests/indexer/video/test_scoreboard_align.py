"""Placement rules of the aligner on a scripted hockey broadcast (no video, no OCR): the clock,
score and hidden stretches are simulated exactly, read at 5 fps and aligned."""

from __future__ import annotations

import math
from typing import Any

import pytest

from playscout.corpus.match_state import MatchState, format_clock
from playscout.corpus.pbp import PbpGame
from playscout.indexer.video.errors import PlayByPlayMismatchError
from playscout.indexer.video.scoreboard import align_events
from playscout.indexer.video.scoreboard.models import (
    Box,
    ReaderStats,
    Reading,
    ScoreboardLayout,
    StateTimeline,
)
from playscout.indexer.video.scoreboard.timeline import build_timeline

PLEN = 1200.0
# (t0, t1, running): the clock runs, stops at a whistle, restarts at the faceoff, stops at a goal
SPANS = [
    (0.0, 10.4, True),
    (10.4, 40.4, False),
    (40.4, 45.3, True),
    (45.3, 75.3, False),
    (75.3, 130.0, True),
]
HIDDEN = [(60.0, 70.0), (80.0, 86.0)]  # a replay in the goal stoppage, a banner during play
GOAL_T = 45.3
# (type, true video time)
SCRIPT = [
    ("pass", 3.3),
    ("shot on goal", 10.4),
    ("faceoff", 40.4),
    ("goal", GOAL_T),
    ("faceoff", 75.3),
    ("hit", 83.5),  # hidden, clock running: interpolated
    ("pass", 100.2),
]


def _elapsed(t: float) -> float:
    c = 500.0  # the excerpt starts with 700 s left in the period
    for t0, t1, running in SPANS:
        if t <= t0:
            break
        if running:
            c += min(t, t1) - t0
    return c


def _display(t: float) -> int:
    return math.ceil(PLEN - _elapsed(t) - 1e-9)


def _state(t: float) -> MatchState:
    return MatchState(period=2, clock=_display(t), home=3 + (t >= GOAL_T), away=1)


def _timeline(duration: float = 120.0) -> StateTimeline:
    readings = []
    for i in range(int(duration * 5)):
        t = i / 5
        hidden = any(a <= t < b for a, b in HIDDEN)
        readings.append(
            Reading(t=t, state=None if hidden else _state(t), status="hidden" if hidden else "ok")
        )
    tl = build_timeline(readings, sport="hockey", sample_interval=0.2, duration=duration)
    layout = ScoreboardLayout(
        box=Box(x0=12, y0=12, x1=332, y1=46),
        text_rows=(8, 26),
        order=["home_code", "home_score", "away_code", "away_score", "period", "clock"],
        home_code="FLA",
        away_code="HUR",
        ink_threshold=130,
        background=20.0,
        sample_text="",
    )
    return StateTimeline(
        video="game.mp4",
        sport="hockey",
        duration=duration,
        sample_fps=5.0,
        engine="ppocr",
        layout=layout,
        readings=readings,
        segments=tl.segments,
        clocks=tl.clocks,
        stats=ReaderStats(frames_decoded=len(readings)),
    )


def _game(script: list[tuple[str, float]], shift: int = 0, **kw: Any) -> PbpGame:
    events = []
    for i, (etype, t) in enumerate(script, 1):
        st = _state(t + 1e-6)
        events.append(
            {
                "event_id": i,
                "period": 2,
                "clock": format_clock(st.clock),
                "type": etype,
                "home_score": st.home + shift,
                "away_score": st.away,
            }
        )
    # one event long after the excerpt ends
    events.append(
        {
            "event_id": 99,
            "period": 3,
            "clock": "10:00",
            "type": "pass",
            "home_score": 4,
            "away_score": 1,
        }
    )
    base = {
        "game_id": "g1",
        "sport": "hockey",
        "date": "2024-01-01",
        "season": 2024,
        "home_team": "Calgary Flames",
        "away_team": "Carolina Hurricanes",
        "home_team_id": "1",
        "away_team_id": "2",
        "events": events,
    }
    base.update(kw)
    return PbpGame.model_validate(base)


def test_display_rules_place_every_event_within_a_second() -> None:
    res = align_events(_timeline(), _game(SCRIPT))
    got = {e.event_id: e for e in res.events}
    for i, (_etype, t) in enumerate(SCRIPT, 1):
        e = got[i]
        assert e.video_time is not None and abs(e.video_time - t) <= 1.0, (e, t)
    assert abs((got[4].video_time or 0) - GOAL_T) <= 0.2  # the score change itself
    assert got[3].status == got[5].status == "aligned"  # faceoffs: end of the stopped clock
    assert got[6].reason.startswith("interpolated")
    assert got[99].status == "unaligned" and got[99].reason == "outside the video"
    assert res.covered == len(SCRIPT)


def test_another_games_play_by_play_is_refused() -> None:
    tl = _timeline()
    with pytest.raises(PlayByPlayMismatchError, match="scoreboard shows FLA v HUR"):
        align_events(tl, _game(SCRIPT, home_team="Boston Bruins"))
    with pytest.raises(PlayByPlayMismatchError, match="do not match the scoreboard"):
        align_events(tl, _game(SCRIPT, shift=5))  # same teams, scores the screen never shows
