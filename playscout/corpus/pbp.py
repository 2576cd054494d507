"""The play-by-play a user brings with raw video (`index videos --pbp FILE`).

One JSON file: `{"format": "playscout-pbp/1", "games": [GAME, ...]}` or a single GAME object.
Events carry period, clock and running score, never video time: placing them on the video is the
aligner's job. Extra fields are kept (a real feed has many) and ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from playscout.corpus.errors import PlayByPlayError
from playscout.corpus.match_state import parse_clock, team_codes
from playscout.corpus.sports import sport

FORMAT = "playscout-pbp/1"


class PbpEvent(BaseModel):
    model_config = ConfigDict(extra="allow")

    event_id: int
    period: int = Field(ge=1)
    clock: str  # as the feed prints it: MM:SS remaining (countdown sports) or elapsed (soccer)
    type: str
    home_score: int = Field(ge=0)
    away_score: int = Field(ge=0)
    caption: str = ""
    team_id: str | None = None
    team: str | None = None
    player_id: str | None = None
    player: str | None = None
    number: int | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)

    @field_validator("clock")
    @classmethod
    def _clock(cls, v: str) -> str:
        if parse_clock(v) is None:
            raise ValueError(f"clock {v!r} is not MM:SS")
        return v

    @property
    def clock_seconds(self) -> int:
        return parse_clock(self.clock) or 0


class PbpPlayer(BaseModel):
    model_config = ConfigDict(extra="allow")

    player_id: str
    name: str
    number: int | None = None
    team_id: str | None = None


class PbpGame(BaseModel):
    model_config = ConfigDict(extra="allow")

    game_id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    sport: str
    date: str
    season: int
    season_type: str = "regular-season"
    home_team: str
    away_team: str
    home_team_id: str
    away_team_id: str
    home_code: str | None = None  # scoreboard abbreviations; derived from the names if absent
    away_code: str | None = None
    video: str | None = None  # file name under --videos; default: {game_id}.{mp4,mkv,mov,...}
    players: list[PbpPlayer] = Field(default_factory=list)
    events: list[PbpEvent]

    @field_validator("sport")
    @classmethod
    def _sport(cls, v: str) -> str:
        return sport(v).name

    def codes(self) -> tuple[str, str]:
        derived = team_codes(self.home_team, self.away_team)
        return (self.home_code or derived[0]).upper(), (self.away_code or derived[1]).upper()


def load_pbp(path: Path | str) -> list[PbpGame]:
    """Every game of a play-by-play file, validated; one-line PlayByPlayError otherwise."""
    p = Path(path)
    try:
        raw = orjson.loads(p.read_bytes())
    except FileNotFoundError:
        raise PlayByPlayError(f"{p}: play-by-play file not found") from None
    except (OSError, orjson.JSONDecodeError) as e:
        raise PlayByPlayError(f"{p}: not a readable JSON file ({e})") from None
    items = raw.get("games") if isinstance(raw, dict) and "games" in raw else [raw]
    if not isinstance(items, list) or not items:
        raise PlayByPlayError(f"{p}: expected a game object or {{'games': [...]}} with games")
    games: list[PbpGame] = []
    for i, item in enumerate(items):
        try:
            games.append(PbpGame.model_validate(item))
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            raise PlayByPlayError(f"{p}: game {i}: {where}: {err['msg']}") from None
    ids = [g.game_id for g in games]
    dup = sorted({g for g in ids if ids.count(g) > 1})
    if dup:
        raise PlayByPlayError(f"{p}: game ids repeated: {', '.join(dup)}")
    return games


def dump_pbp(games: list[PbpGame] | list[dict[str, Any]]) -> bytes:
    items = [g.model_dump(mode="json") if isinstance(g, PbpGame) else g for g in games]
    return orjson.dumps({"format": FORMAT, "games": items}, option=orjson.OPT_INDENT_2)
