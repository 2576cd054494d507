"""Typed records of the SVI-Bench T9 release layout (docs/reference.md §1).

Two layers: *file models* mirror the JSON files exactly (so the synthetic generator and the
validator agree on one schema), *records* are the flattened rows the index and tools use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The sports, their periods' words and every other sport fact: playscout/corpus/sports/.
GAME_DOC_TYPES: tuple[str, ...] = ("espn_report", "game_stat_player", "game_stat_team")
SEASON_DOC_TYPES: tuple[str, ...] = ("season_stat_player", "season_stat_team")
DOC_TYPES: tuple[str, ...] = GAME_DOC_TYPES + SEASON_DOC_TYPES
DocType = Literal[
    "espn_report", "game_stat_player", "game_stat_team", "season_stat_player", "season_stat_team"
]

# Paper (Fig. 46) and reference names that stand for several doc types.
DOC_TYPE_FAMILIES: dict[str, tuple[str, ...]] = {
    "game_report": ("espn_report",),
    "report": ("espn_report",),
    "statistics": ("game_stat_player", "game_stat_team"),
    "game_statistics": ("game_stat_player", "game_stat_team"),
    "season_statistics": ("season_stat_player", "season_stat_team"),
}

_CLOCK = re.compile(r"^(\d{1,3}):([0-5]\d)(?:\.\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SEASON_CODE = re.compile(r"^(\d{2})-(\d{2})$")


def clock_to_seconds(value: str | None) -> float:
    """'MM:SS' -> seconds; -1.0 for missing values, as the reference stores them."""
    if not value:
        return -1.0
    m = _CLOCK.match(value.strip())
    if not m:
        raise ValueError(f"game clock {value!r} is not MM:SS")
    return float(int(m.group(1)) * 60 + int(m.group(2)))


def seconds_to_clock(seconds: float) -> str:
    s = max(0, round(seconds))
    return f"{s // 60:02d}:{s % 60:02d}"


def season_code_to_year(code: str | int) -> int:
    """'18-19' -> 2019 (the year the season ends); plain integers pass through."""
    if isinstance(code, int):
        return code
    m = _SEASON_CODE.match(code)
    if m:
        return 2000 + int(m.group(2))
    if code.isdigit():
        return int(code)
    raise ValueError(f"season code {code!r} is neither 'YY-YY' nor a year")


def season_year_to_code(year: int) -> str:
    return f"{(year - 1) % 100:02d}-{year % 100:02d}"


def split_clip_id(clip_id: str) -> tuple[str, int]:
    """'617912_285' -> ('617912', 285). The game id may itself contain underscores."""
    game_id, sep, index = clip_id.rpartition("_")
    if not sep or not game_id or not index.isdigit():
        raise ValueError(f"clip id {clip_id!r} is not '<game_id>_<index>'")
    return game_id, int(index)


# ---------------------------------------------------------------- file models


class _File(BaseModel):
    model_config = ConfigDict(extra="allow")


class GameFiles(_File):
    """One value of data/{sport}/metadata.json: relative paths of a game's files."""

    clips_metadata: str | None = None
    clip_paths: str | None = None
    game_info: str | None = None
    espn_report: str | None = None
    game_stat_player: str | None = None
    game_stat_team: str | None = None


class GameInfo(_File):
    date: str
    season: int
    season_type: str = "regular-season"
    home_team: str
    away_team: str

    @field_validator("date")
    @classmethod
    def _iso_date(cls, v: str) -> str:
        if not _DATE.match(v):
            raise ValueError(f"date {v!r} is not YYYY-MM-DD")
        return v


class VideoWindow(_File):
    start: float = -1.0
    end: float = -1.0


class GameClockWindow(_File):
    start_remaining: str | None = None
    end_remaining: str | None = None
    start_elapsed: str | None = None
    end_elapsed: str | None = None


class ClipEvent(_File):
    caption: str


class WindowMetadata(_File):
    teams: dict[str, str] = Field(default_factory=dict)
    players: dict[str, str] = Field(default_factory=dict)
    events: dict[str, ClipEvent] = Field(default_factory=dict)
    game_clock_window: GameClockWindow = Field(default_factory=GameClockWindow)
    # Observed by the video indexer (ASR, audio-event model); absent from the T9 release files.
    transcript: str = ""
    audio_events: list[str] = Field(default_factory=list)


class ClipWindow(_File):
    window_id: str
    period: int = 0
    video_window: VideoWindow = Field(default_factory=VideoWindow)
    event_ids: list[int] = Field(default_factory=list)
    metadata: WindowMetadata = Field(default_factory=WindowMetadata)


class ClipsFile(_File):
    """The clips_metadata JSON of one game."""

    windows: dict[str, ClipWindow]
    teams: dict[str, str] = Field(default_factory=dict)
    players: dict[str, str] = Field(default_factory=dict)


class SeasonFiles(_File):
    """One season entry of metadata_season_{player,team}.json."""

    season_stat_player: str | None = None
    season_stat_team: str | None = None
    entity_info: str | None = None


class EntityInfo(_File):
    entity_name: str
    team_name: str | None = None


class GoldEvidence(BaseModel):
    """What a generated question needs: the real release carries none of this."""

    game_id: str
    doc_ids: list[str] = Field(default_factory=list)
    clip_ids: list[str] = Field(default_factory=list)


class Question(_File):
    """One entry of questions/{sport}.json. Only id, question and answer exist in the release."""

    id: str
    question: str
    answer: str
    sport: str | None = None
    answer_type: str | None = None
    primitives: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    gold: GoldEvidence | None = None


# ---------------------------------------------------------------- records


class DocumentRecord(BaseModel):
    """A document as the index and tools see it; ids follow the reference conventions."""

    doc_id: str
    sport: str
    doc_type: DocType
    text: str
    game_id: str | None = None
    date: str | None = None
    season: int | None = None
    season_type: str | None = None
    home_team: str | None = None
    away_team: str | None = None
    teams: list[str] = Field(default_factory=list)
    players: list[str] = Field(default_factory=list)
    entity_type: Literal["player", "team"] | None = None
    entity_id: str | None = None
    entity_name: str | None = None


def observed_text(transcript: str, audio_events: Sequence[str]) -> str:
    """A clip's searchable text in default mode: what was heard, never the oracle caption."""
    return " ".join(p for p in (" ".join(t.split()) for t in (transcript, *audio_events)) if p)


class ClipRecord(BaseModel):
    """A clip window as the index and tools see it. `caption` is oracle-only ground truth;
    `transcript` and `audio_events` were observed from the video, so default mode may show them."""

    clip_id: str
    sport: str
    game_id: str
    index: int
    period: int
    video_start: float
    video_end: float
    clock_remaining_start: float = -1.0
    clock_remaining_end: float = -1.0
    clock_elapsed_start: float = -1.0
    clock_elapsed_end: float = -1.0
    teams: list[str] = Field(default_factory=list)
    players: list[str] = Field(default_factory=list)
    caption: str = ""
    transcript: str = ""
    audio_events: list[str] = Field(default_factory=list)
    clip_path: str | None = None
    date: str | None = None
    season: int | None = None

    def observed_text(self) -> str:
        return observed_text(self.transcript, self.audio_events)
