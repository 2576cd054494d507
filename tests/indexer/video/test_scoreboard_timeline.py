"""Scoreboard field parsing and the monotone filter, on hand-made readings (no video, no OCR)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from playscout.corpus.match_state import MatchState
from playscout.indexer.video.scoreboard.layout import (
    classify,
    read_clock,
    read_period,
    read_score,
    words,
)
from playscout.indexer.video.scoreboard.models import Reading
from playscout.indexer.video.scoreboard.timeline import build_timeline

S = MatchState


def _readings(states: Sequence[MatchState | None], fps: float = 5.0) -> list[Reading]:
    return [
        Reading(t=round(i / fps, 3), state=s, status="ok" if s else "hidden")
        for i, s in enumerate(states)
    ]


def _running(
    period: int, start: int, seconds: int, home: int = 10, away: int = 8
) -> list[MatchState]:
    """A countdown clock running from `start` for `seconds`, five samples per value."""
    return [S(period, start - k, home, away) for k in range(seconds) for _ in range(5)]


def test_clean_run_gives_one_second_running_spans() -> None:
    tl = build_timeline(
        _readings(_running(3, 432, 10)), sport="basketball", sample_interval=0.2, duration=10
    )
    assert tl.rejected == 0
    assert [c.clock for c in tl.clocks] == list(range(432, 422, -1))
    inner = tl.clocks[1:-1]
    assert all(c.running and abs((c.t_end - c.t_start) - 1.0) < 1e-6 for c in inner)
    assert tl.clocks[1].t_start == 0.9  # midway between the last 432 and the first 431 sample


def test_stale_replay_readings_are_rejected() -> None:
    live = _running(3, 432, 6, home=10)
    goal = [S(3, 426, 12, 8)] * 40  # scored, clock stopped
    stale = [S(3, 429, 10, 8)] * 25  # replay burns in the old clock and score
    after = [S(3, 426, 12, 8)] * 10 + _running(3, 425, 3, home=12)
    tl = build_timeline(
        _readings(live + goal + stale + after), sport="basketball", sample_interval=0.2, duration=30
    )
    assert tl.rejected == 25
    states = [s.state for s in tl.segments]
    assert S(3, 429, 10, 8) in states  # the live one, before the goal
    stopped = [c for c in tl.clocks if c.clock == 426]
    assert len(stopped) == 1 and not stopped[0].running  # one span across the replay
    assert stopped[0].t_end - stopped[0].t_start > 14


def test_ocr_misreads_are_rejected() -> None:
    seq = _running(1, 600, 8)
    seq[12] = S(1, 100, 10, 8)  # "01:40" misread of a 09:5x clock: too far to run in 0.2 s
    seq[23] = S(1, 596, 10, 80)  # score misread (then back down)
    seq[31] = S(2, 594, 10, 8)  # period misread (then back to 1)
    tl = build_timeline(_readings(seq), sport="hockey", sample_interval=0.2, duration=8)
    assert tl.rejected == 3
    assert all(s.state.period == 1 and s.state.home == 10 for s in tl.segments)
    assert [c.clock for c in tl.clocks] == list(range(600, 592, -1))


def test_soccer_clock_counts_up_and_hidden_gaps_keep_the_state() -> None:
    seq: list[MatchState | None] = [S(1, 1200 + k // 5, 0, 0) for k in range(25)]
    seq += [None] * 15  # commercial: the scoreboard is gone
    seq += [S(1, 1208 + k // 5, 0, 1) for k in range(10)]
    tl = build_timeline(_readings(seq), sport="soccer", sample_interval=0.2, duration=10)
    assert tl.rejected == 0
    after = tl.segments[5]
    assert after.state == S(1, 1208, 0, 1) and not after.start_seen
    # a clock that runs backwards is not soccer
    bad = build_timeline(
        _readings([S(1, 1200, 0, 0)] * 5 + [S(1, 1190, 0, 0)] * 2 + [S(1, 1201, 0, 0)] * 5),
        sport="soccer",
        sample_interval=0.2,
        duration=3,
    )
    assert bad.rejected == 2


def test_field_parsing_tolerates_ocr_noise() -> None:
    assert read_clock("07:12") == 432
    assert read_clock("07:12.") == 432
    assert read_clock("0712") == 432
    assert read_clock("O7:I2") == 432
    assert read_clock("93:05") == 93 * 60 + 5
    assert read_clock("7:") is None
    assert read_score("1O4") == 104 and read_score("12a4") is None
    assert read_period("basketball", "Q3") == 3
    assert read_period("basketball", "0T") == 5  # digit-shaped letters
    assert read_period("basketball", "01") == 1
    assert read_period("basketball", "41") is None  # a score, not Q1
    assert read_period("hockey", "2ND") == 2 and read_period("soccer", "2H") == 2
    assert read_period("soccer", "Q3") is None
    assert [classify("hockey", t) for t in ("CGY", "3", "1ST", "12:40")] == [
        "code",
        "score",
        "period",
        "clock",
    ]


def test_words_split_on_spaces_not_inside_glyph_runs() -> None:
    ink = np.zeros((10, 60), bool)
    for a, b in ((2, 5), (6, 9), (10, 13), (20, 24), (25, 28), (40, 50)):
        ink[2:8, a:b] = True
    assert words(ink, 4) == [(2, 13), (20, 28), (40, 50)]
    assert words(np.zeros((4, 4), bool), 2) == []


def test_slow_motion_stale_replay_loses_to_the_live_readings_it_repeats() -> None:
    """A slow-motion replay burns in the clock run up to a goal at half speed: more frames than
    the live run it repeats, and consistent in itself. It starts (after the wipe) older than
    what was on screen, so it is the one rejected."""
    live = _running(1, 300, 6, home=0, away=0)  # 300..295
    goal = [S(1, 294, 0, 0)] * 3 + [S(1, 294, 1, 0)] * 12
    wipe: list[MatchState | None] = [None] * 2
    replay = [S(1, 297 - k // 10, 0, 0) for k in range(30)] + [S(1, 294, 1, 0)] * 10
    after = [S(1, 294, 1, 0)] * 10 + _running(1, 293, 3, home=1, away=0)
    tl = build_timeline(
        _readings(live + goal + wipe + replay + wipe + after),
        sport="hockey",
        sample_interval=0.2,
        duration=30,
    )
    assert tl.rejected == 30
    scored = [s for s in tl.segments if s.state == S(1, 294, 1, 0)]
    assert len(scored) == 1 and abs(scored[0].t_start - 6.5) < 0.11  # the live change
