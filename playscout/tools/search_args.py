"""The search tools' arguments (paper Fig. 46), in a module of their own that imports nothing
heavy: the CLI builds `playscout search` options from them at start-up (tools/options.py)."""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, Field, field_validator
from pydantic_core import PydanticCustomError

from playscout.tools.args import ToolArgs, one_or_many


def _as_list(value: Any) -> Any:
    """One id is a list of one (tools/args.one_or_many); an empty list is no filter."""
    return one_or_many(value) or None


class SearchDocumentsArgs(ToolArgs):
    query: str = Field("", description="What to look for; may be empty when filters are given.")
    game_ids: list[str] | None = Field(None, description="Only these games.")
    doc_type: str | list[str] | None = Field(
        None,
        description="espn_report (alias game_report), game_stat_player, game_stat_team, "
        "season_stat_player, season_stat_team; or statistics / season_statistics.",
    )
    doc_ids: list[str] | None = Field(None, description="Only these documents.")
    teams: list[str] | None = Field(None, description="Documents about any of these teams.")
    players: list[str] | None = Field(None, description="Statistics of any of these players.")
    season: int | str | None = Field(None, description="Season by its end year (2019 = 2018-19).")
    date: str | None = Field(None, description="YYYY-MM-DD, or a range A..B, A.. or ..B.")

    _lists = field_validator("game_ids", "doc_ids", "teams", "players", mode="before")(_as_list)


class SearchVideosArgs(ToolArgs):
    query: str = Field("", description="What happens in the clip; may be empty with filters.")
    game_ids: list[str] | None = Field(None, description="Only clips of these games.")
    quarter: int | list[int] | None = Field(
        None,
        validation_alias=AliasChoices("quarter", "period", "half"),
        description="Quarter (basketball), period (hockey) or half (soccer).",
    )
    teams: list[str] | None = Field(None, description="Clips involving any of these teams.")
    players: list[str] | None = Field(None, description="Clips involving any of these players.")
    temporal_boundary: str | None = Field(
        None, description="'START-END' seconds of the game video; clips overlapping it."
    )
    video_ids: list[str] | None = Field(None, description="Only these clip ids.")

    _lists = field_validator("game_ids", "teams", "players", "video_ids", mode="before")(_as_list)

    @field_validator("quarter")
    @classmethod
    def _counted_from_one(cls, value: int | list[int] | None) -> int | list[int] | None:
        """Periods count from 1: `quarter 0` is a mistake, said at once, not "no clips"
        (the index then says which periods it holds: tools/search.py)."""
        periods = [value] if isinstance(value, int) else value or []
        if bad := [p for p in periods if p < 1]:
            raise PydanticCustomError(
                "period", "counts from 1 (the first period), not {bad}", {"bad": bad[0]}
            )
        return value
