"""A fourth sport, for tests only: futsal, declared the way a new sport is.

RECORD is what would be playscout/corpus/sports/futsal.py (every layer's facts about the sport)
and SPEC what would be playscout/synthetic/sports/futsal/__init__.py (its generator). The
generator borrows soccer's game flow, plays, stat sheet, recap and broadcast look; its league,
naming and every sport fact are its own. `registered()` adds both for the length of a test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from playscout.corpus.sports import (
    Board,
    Coverage,
    SportRecord,
    register_sport,
    unregister_sport,
)
from playscout.synthetic.spec import LeagueShape, Naming, SportSpec
from playscout.synthetic.sports import SPECS, register_spec, unregister_spec

NAME = "futsal"
TEAMS = (
    "Lisbon Lions",
    "Porto Dragons",
    "Madrid Bears",
    "Rome Wolves",
    "Kyiv Eagles",
    "Zagreb Falcons",
)

RECORD = SportRecord(
    name=NAME,
    leagues=("Liga Futsal",),
    board=Board(  # two 20-minute halves, elapsed clock: 1H, 2H / ET1, ET2
        countdown=False,
        regulation_periods=2,
        period_seconds=1200,
        overtime_seconds=300,
        period_format="{n}H",
        first_extra="ET1",
        extra_format="ET{n}",
    ),
    period_word="half",
    lead_stat="goals",
    forecast_margin=2,
    forecast_periods=1,
    coverage=Coverage(
        directionality="scored vs missed, won vs lost",
        numbers="goals, assists, saves, fouls, score",
        timing="a half, extra time, or sequence",
        examples='   - Example: "scored a lot" does NOT cover "scored 4 goals"',
    ),
    team_aliases={"the lions": "Lisbon Lions", "dragoes": "Porto Dragons"},
)


def _spec() -> SportSpec:
    soccer = SPECS["soccer"]
    league = LeagueShape(
        teams=tuple((t, "Liga Futsal") for t in TEAMS),
        seasons=(2023,),
        season_start=(9, 1),
        season_days=200,
        paper_games=100,
        roster_size=16,
        turnover=0.2,
        position_mix=("GK",) * 2 + ("DF",) * 5 + ("MF",) * 5 + ("FW",) * 4,
        first_number=1,
        dressed=14,
        league_slots=None,
        draws=True,
        game_id_base=9000000,
        team_id_base=901,
        player_id_base=90000,
        clip_mean=12.0,
        keep_window=0.25,  # few clips: a fast test
        clip_game_share=1.0,
        report_share=1.0,
    )
    naming = Naming(article=True, plural_verb=False, short=None)
    return dataclasses.replace(soccer, record=RECORD, league=league, naming=naming)


@contextmanager
def registered() -> Iterator[str]:
    """Futsal's record and generator, registered for the block (then removed)."""
    register_sport(RECORD)
    try:
        register_spec(_spec())
        yield NAME
    finally:
        unregister_spec(NAME)
        unregister_sport(NAME)
