"""Serialisable results of the scoreboard reader and the play-by-play aligner (pydantic, so the
pipeline can write them next to the corpus and tests can compare them as JSON)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from playscout.corpus.match_state import MatchState

FieldName = Literal["home_code", "home_score", "away_code", "away_score", "period", "clock"]


class Box(BaseModel):
    """Pixel rectangle in full-resolution frame coordinates (x1, y1 exclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0


class ScoreboardLayout(BaseModel):
    """Where the scoreboard is and what its fields are, found once per video by `locate`.

    `order` names the scoreboard's words left to right as the full OCR saw them; the reader
    re-segments words every frame (score widths change) and maps them through this order."""

    box: Box
    text_rows: tuple[int, int]  # rows of the box (relative) that ever hold text
    order: list[FieldName]
    home_code: str
    away_code: str
    ink_threshold: int  # luma above which a box pixel is text
    background: float  # median luma of the box background
    sample_text: str  # what the full OCR read during locating (for messages and debugging)


class Reading(BaseModel):
    """One sampled frame: the state it showed, or why it gave none."""

    t: float
    state: MatchState | None = None
    status: Literal["ok", "hidden", "occluded", "unreadable", "rejected"] = "ok"


class Segment(BaseModel):
    """A run of one match state on screen. `t_start`/`t_end` estimate when the display began and
    ended; `start_seen`/`end_seen` say whether the change itself was observed (a neighbouring
    sample showed another readable state) or fell in a hidden/occluded gap."""

    t_start: float
    t_end: float
    state: MatchState
    samples: int
    start_seen: bool = True
    end_seen: bool = True


class ClockSpan(BaseModel):
    """How long one displayed clock value was on screen: ~1 s when the clock ran, longer when it
    was stopped at that value."""

    period: int
    clock: int
    t_start: float
    t_end: float
    running: bool
    start_seen: bool = True
    end_seen: bool = True


class ReaderStats(BaseModel):
    frames_decoded: int = 0
    frames_sampled: int = 0
    crops_ocr: int = 0  # field crops sent to the recogniser
    crops_glyph: int = 0  # changed field crops read from the per-video glyph bank instead
    crops_unchanged: int = 0  # sampled boxes skipped whole: text rows as at the last read
    fields_unchanged: int = 0  # words of a changed box that had not changed themselves
    crops_occluded: int = 0  # sampled boxes rejected against the reference template
    readings_rejected: int = 0  # readings dropped by the monotone filter
    seconds: dict[str, float] = Field(default_factory=dict)  # per stage


class StateTimeline(BaseModel):
    """The scoreboard of one video as a monotone sequence of match states."""

    video: str
    sport: str
    duration: float
    sample_fps: float
    engine: str
    layout: ScoreboardLayout
    readings: list[Reading]
    segments: list[Segment]
    clocks: list[ClockSpan]
    stats: ReaderStats

    def state_at(self, t: float) -> MatchState | None:
        """The state the timeline says was on screen at video time t (None in gaps)."""
        return _state_at(self.segments, t)


def _state_at(segments: list[Segment], t: float) -> MatchState | None:
    lo, hi = 0, len(segments)
    while lo < hi:
        mid = (lo + hi) // 2
        if segments[mid].t_end <= t:
            lo = mid + 1
        else:
            hi = mid
    if lo < len(segments) and segments[lo].t_start <= t:
        return segments[lo].state
    return None


class EventAlignment(BaseModel):
    event_id: int
    type: str
    period: int
    clock: int
    video_time: float | None
    status: Literal["aligned", "ambiguous", "unaligned"]
    reason: str = ""


class AlignmentResult(BaseModel):
    """Every event of the game with its video time (or why none), plus the scoreboard track it
    was placed on: `segments` tell the game state at any video time (`state_at`)."""

    video: str
    game_id: str
    sport: str
    events: list[EventAlignment]
    counts: dict[str, int]  # per status
    covered: int  # events whose (period, clock) falls inside what the video shows
    sample_fps: float = 5.0
    segments: list[Segment] = Field(default_factory=list)

    def times(self) -> dict[int, float]:
        return {e.event_id: e.video_time for e in self.events if e.video_time is not None}

    def state_at(self, t: float) -> MatchState | None:
        return _state_at(self.segments, t)
