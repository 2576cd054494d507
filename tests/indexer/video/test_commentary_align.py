"""Events that share one stopped-clock state are placed by the commentary line naming them."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from playscout.corpus.match_state import MatchState
from playscout.corpus.pbp import PbpEvent, PbpGame
from playscout.indexer.video.commentary_align import refine_with_commentary, utterances
from playscout.indexer.video.scoreboard.models import AlignmentResult, EventAlignment
from playscout.indexer.video.speech import Word


def _game() -> PbpGame:
    def ev(i: int, etype: str, player: str) -> PbpEvent:
        return PbpEvent(
            event_id=i,
            period=2,
            clock="05:10",
            type=etype,
            home_score=40,
            away_score=38,
            player=player,
        )

    return PbpGame(
        game_id="g1",
        sport="basketball",
        date="2023-01-02",
        season=2023,
        home_team="Atlanta Hawks",
        away_team="Boston Celtics",
        home_team_id="1",
        away_team_id="2",
        events=[
            ev(1, "foul", "Leo Garner"),
            ev(2, "free throw missed", "Cole Fischer"),
            ev(3, "free throw missed", "Cole Fischer"),
        ],
    )


def _words(text: str, start: float) -> list[Word]:
    """Times as numpy floats, as faster-whisper gives them."""
    t = np.float64(start)
    return [Word(t + 0.3 * k, t + 0.3 * k + 0.25, w) for k, w in enumerate(text.split())]


def _alignment(times: dict[int, float]) -> AlignmentResult:
    events = [
        EventAlignment(
            event_id=i,
            type="x",
            period=2,
            clock=310,
            video_time=t,
            status="aligned" if i == 1 else "ambiguous",
        )
        for i, t in times.items()
    ]
    return AlignmentResult(
        video="v.mp4",
        game_id="g1",
        sport="basketball",
        events=events,
        counts={"aligned": 1, "ambiguous": 2},
        covered=3,
    )


TIMELINE = SimpleNamespace(
    segments=[SimpleNamespace(t_start=100.0, t_end=130.0, state=MatchState(2, 310, 40, 38))]
)


def test_lines_are_split_at_pauses() -> None:
    lines = utterances(_words("Foul on Garner.", 100.0) + _words("Fischer misses", 110.0))
    assert [round(u.start, 1) for u in lines] == [100.0, 110.0]
    assert {"garn", "foul"} <= lines[0].keys


def test_each_event_takes_its_own_line_in_order() -> None:
    words = (
        _words("Foul on Garner.", 100.2)
        + _words("Fischer misses the free throw.", 110.4)
        + _words("Fischer misses the free throw.", 118.1)
    )
    out = refine_with_commentary(
        _alignment({1: 100.0, 2: 100.5, 3: 101.0}), TIMELINE, _game(), words
    )
    placed = {e.event_id: e for e in out.events}
    assert placed[2].video_time == 110.4 and placed[3].video_time == 118.1
    assert type(placed[2].video_time) is float  # written to JSON by orjson
    assert placed[2].status == placed[3].status == "aligned"
    assert placed[1].video_time == 100.0  # already aligned: untouched
    assert out.counts == {"aligned": 3}


def test_wrong_player_or_outside_the_interval_keeps_the_estimate() -> None:
    words = _words("Garner misses the free throw.", 110.0) + _words(
        "Fischer misses the free throw.", 140.0
    )
    out = refine_with_commentary(
        _alignment({1: 100.0, 2: 100.5, 3: 101.0}), TIMELINE, _game(), words
    )
    placed = {e.event_id: e for e in out.events}
    assert placed[2].video_time == 100.5 and placed[2].status == "ambiguous"
