"""Hockey (NHL): three 20-minute periods on a countdown clock, a sudden-death overtime, goals,
goalies with their own stat line, W-L records.

Everything the shared simulator, documents, questions and renderer need to know about the sport
is in SPEC; the event-level functions are in plays.py, the game flow in sim.py, the rink in
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
    SportSpec,
    StatSheet,
    Talk,
)
from . import plays, surface
from .sim import HockeySim
from .words import TEAMS

SPEC = SportSpec(
    record=sport("hockey"),
    league=LeagueShape(
        teams=tuple((name, "NHL") for name in TEAMS),
        seasons=(2020, 2021, 2022, 2023),
        season_start=(10, 10),
        season_days=180,
        paper_games=2482,
        roster_size=34,
        turnover=0.175,
        position_mix=("C",) * 4 + ("LW",) * 4 + ("RW",) * 4 + ("D",) * 7 + ("G",) * 3,
        first_number=1,
        dressed=20,
        league_slots=None,
        draws=False,
        game_id_base=500000,
        team_id_base=101,
        player_id_base=30000,
        clip_mean=12.1,
        keep_window=0.85,
        clip_game_share=1.0,
        report_share=1.0,
    ),
    naming=Naming(article=True, plural_verb=False, short=None),
    simulator=HockeySim,
    action=plays.action,
    structured=plays.structured,
    stats=StatSheet(
        tally=plays.tally,
        player_fields=(
            ("g", "goals"),
            ("a", "assists"),
            ("p", "points"),
            ("sog", "shots"),
            ("pim", "PIM"),
            ("hits", "hits"),
            ("blk", "blocked shots"),
            ("fow", "faceoffs won"),
        ),
        goalie_fields=(("sv", "saves"), ("sa", "shots against"), ("ga", "goals against")),
        goalie_position="G",
        splits=(),
        plus_minus=True,
        time_on_ice=True,
        team_fields=(
            ("sog", "Shots on goal"),
            ("pim", "Penalty minutes"),
            ("hits", "Hits"),
            ("blk", "Blocked shots"),
            ("fow", "Faceoffs won"),
        ),
        # goalie and +/- numbers describe a player's time on the ice, not the team's game
        player_only=frozenset({"pm", "ga", "sa", "sv"}),
        team_events=(),
        score_word="goals",
        headline=(("g", "goal", 0), ("a", "assist", 0)),
        goalie_headline=(("sv", "save", 0),),
        rank=(("g", 2.0), ("a", 1.0), ("sog", 0.1)),
        goalie_rank=(("sv", 0.12),),
    ),
    recap=Recap(
        rout_margin=4,
        close_margin=1,
        big_period=Feat(
            3,
            "{team} scored {words} goals in the {period}.",
            parse=r"{T} scored (\w+) goals in the (\w+ \w+)\.",
            phrase="scored {value} goals in the {period}",
        ),
        run=Feat(3, "{team} scored {words} unanswered goals."),
    ),
    questions=Questions(
        stats=(("goals", 2), ("saves", 4), ("shots", 4), ("hits", 4)),
        references=(
            ("goal", frozenset({"goal"})),
            ("saved shot on goal", frozenset({"shot on goal"})),
        ),
        zone_key="zone",
        move_key="deke",
        area_word="area of the ice",
        move_word="deke",
    ),
    talk=Talk(line=plays.line, zero="nothing", tied="Tied at {n}.", lead="It's {hi} to {lo}."),
    broadcast=Broadcast(
        surface_size=(61.0, 26.0),
        surface=surface.SURFACE,
        paint=surface.paint,
        per_side=6,
        figure=24.0,
        keeper=True,
        legs="shorts",
        ball=(15, 15, 15),
        ball_bounces=False,
        minor_scores=frozenset(),
        widest_clock="88:88",
        timeout_title="TV TIMEOUT",
        break_titles={},
        end_title="END OF {label} PERIOD",
        overtime_end_title="END OF {label}",
    ),
)
