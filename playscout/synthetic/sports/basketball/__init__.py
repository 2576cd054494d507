"""Basketball (NBA): four 12-minute quarters on a countdown clock, points, W-L records.

Everything the shared simulator, documents, questions and renderer need to know about the sport
is in SPEC; the event-level functions are in plays.py, the game flow in sim.py, the court in
surface.py and the vocabulary in words.py.
"""

from __future__ import annotations

from playscout.corpus.sports import sport

from ...spec import (
    Broadcast,
    Feat,
    LeagueShape,
    Naming,
    Questions,
    Recap,
    Split,
    SportSpec,
    StatSheet,
    Talk,
)
from . import plays, surface
from .sim import BasketballSim
from .words import TEAMS

SPEC = SportSpec(
    record=sport("basketball"),
    league=LeagueShape(
        teams=tuple((name, "NBA") for name in TEAMS),
        seasons=(2019, 2020, 2021, 2022, 2023),
        season_start=(10, 22),
        season_days=170,
        paper_games=3307,
        roster_size=19,
        turnover=0.19,
        position_mix=("PG", "SG", "SF", "PF", "C"),
        first_number=0,
        dressed=13,
        league_slots=None,
        draws=False,
        game_id_base=400000,
        team_id_base=1,
        player_id_base=10000,
        clip_mean=10.9,
        keep_window=0.863,
        clip_game_share=1.0,
        report_share=1.0,
    ),
    naming=Naming(article=True, plural_verb=False, short=None),
    simulator=BasketballSim,
    action=plays.action,
    structured=plays.structured,
    stats=StatSheet(
        tally=plays.tally,
        player_fields=(
            ("pts", "points"),
            ("reb", "rebounds"),
            ("ast", "assists"),
            ("stl", "steals"),
            ("blk", "blocks"),
            ("tov", "turnovers"),
        ),
        goalie_fields=(),
        goalie_position=None,
        splits=(
            Split("fgm", "fga", "FG", "Field goals"),
            Split("tpm", "tpa", "3PT", "Three-pointers"),
            Split("ftm", "fta", "FT", "Free throws"),
        ),
        plus_minus=False,
        time_on_ice=False,
        team_fields=(
            ("reb", "Rebounds"),
            ("ast", "Assists"),
            ("stl", "Steals"),
            ("blk", "Blocks"),
            ("tov", "Turnovers"),
            ("pf", "Fouls"),
            ("timeouts", "Timeouts"),
        ),
        player_only=frozenset(),
        team_events=("timeout",),
        score_word="points",
        headline=(("pts", "point", 0), ("reb", "rebound", 5), ("ast", "assist", 5)),
        goalie_headline=(),
        rank=(("pts", 1.0), ("reb", 0.5), ("ast", 0.7)),
        goalie_rank=(),
    ),
    recap=Recap(
        rout_margin=20,
        close_margin=3,
        big_period=Feat(
            35,
            "{team} put up {a} {v}-point {period}.",
            parse=r"{T} put up an? (\d+)-point (\w+ quarter)\.",
            phrase="put up a {value}-point {period}",
        ),
        run=Feat(
            10,
            "{team} used {a} {v}-0 run in the {period}.",
            parse=r"{T} used an? (\d+)-0 run in the ([^.]+)\.",
            phrase="used {a} {value}-0 run in the {period}",
        ),
    ),
    questions=Questions(
        stats=(("points", 20), ("rebounds", 8), ("assists", 8)),
        references=(("made field goal", frozenset({"2PT made", "3PT made"})),),
        zone_key="zone",
        move_key="dribble_move",
        area_word="part of the court",
        move_word="dribble move",
    ),
    talk=Talk(line=plays.line, zero="nothing", tied="Tied at {n}.", lead="It's {hi} to {lo}."),
    broadcast=Broadcast(
        surface_size=(28.0, 15.0),
        surface=surface.SURFACE,
        paint=surface.paint,
        per_side=5,
        figure=30.0,
        keeper=False,
        legs="skin",
        ball=(230, 110, 30),
        ball_bounces=True,
        minor_scores=frozenset({"free throw made", "free throw missed"}),
        widest_clock="88:88",
        timeout_title="TIMEOUT",
        break_titles={2: "HALFTIME"},
        end_title="END OF {label}",
        overtime_end_title="END OF {label}",
    ),
)
