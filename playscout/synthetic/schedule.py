"""Season schedules in date order.

Game index order is date order, so records and streaks in the recaps can be computed by one
sequential pass over game results.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from dataclasses import dataclass

from .roster import League
from .sports import SPECS


@dataclass(frozen=True)
class GameSpec:
    index: int  # position in the sport's date-ordered schedule
    game_id: str
    season: int
    date: str
    home: str
    away: str
    has_clips: bool
    has_report: bool


def build_schedule(
    league: League, games: int, seed: int, clip_games: int | None = None
) -> list[GameSpec]:
    """`clip_games`: at most this many games keep the clips the draw gave them (the earliest
    ones); the draws themselves are unchanged, so every other game is the same game."""
    lg = SPECS[league.sport].league
    rng = random.Random(f"playscout-synth:{seed}:{league.sport}:schedule")
    n_seasons = len(league.seasons)
    counts = [games // n_seasons + (1 if k < games % n_seasons else 0) for k in range(n_seasons)]
    out: list[GameSpec] = []
    for season, n in zip(league.seasons, counts, strict=True):
        teams = league.active[season]
        pairs = [
            (h, a)
            for h in teams
            for a in teams
            if h != a and league.team_league[h] == league.team_league[a]
        ]
        rng.shuffle(pairs)
        chosen = [pairs[i % len(pairs)] for i in range(n)]
        start = dt.date(season - 1, *lg.season_start)
        days = sorted(rng.randrange(lg.season_days) for _ in range(n))
        for (home, away), day in zip(chosen, days, strict=True):
            idx = len(out)
            out.append(
                GameSpec(
                    index=idx,
                    game_id=str(lg.game_id_base + idx),
                    season=season,
                    date=(start + dt.timedelta(days=day)).isoformat(),
                    home=home,
                    away=away,
                    has_clips=rng.random() < lg.clip_game_share,
                    has_report=rng.random() < lg.report_share,
                )
            )
    return out if clip_games is None else cap_clip_games(out, clip_games)


def cap_clip_games(schedule: list[GameSpec], most: int) -> list[GameSpec]:
    """The first `most` games with clips keep them; later ones become documents-only games
    (a small corpus that still has a season of documents, e.g. `make demo`)."""
    kept, out = 0, []
    for gs in schedule:
        if gs.has_clips and kept >= most:
            gs = dataclasses.replace(gs, has_clips=False)
        kept += gs.has_clips
        out.append(gs)
    return out
