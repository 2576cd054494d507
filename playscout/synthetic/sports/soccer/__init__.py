"""Soccer (Premier League and La Liga): two 45-minute halves on an elapsed match clock with
stoppage time, goals, draws (W-D-L records), clubs named without an article.

Everything the shared simulator, documents, questions and renderer need to know about the sport
is in SPEC; the event-level functions are in plays.py, the game flow in sim.py, the pitch in
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
from .sim import SoccerSim
from .words import EPL_TEAMS, LALIGA_TEAMS, SHORT

SPEC = SportSpec(
    record=sport("soccer"),
    league=LeagueShape(
        teams=tuple((n, "Premier League") for n in EPL_TEAMS)
        + tuple((n, "La Liga") for n in LALIGA_TEAMS),
        seasons=(2020, 2021, 2022, 2023),
        season_start=(8, 12),
        season_days=280,
        paper_games=1641,
        roster_size=32,
        turnover=0.21,
        position_mix=("GK",) * 3 + ("DF",) * 11 + ("MF",) * 11 + ("FW",) * 7,
        first_number=1,
        dressed=20,
        league_slots=(17, 3),  # 20 clubs a season: 17 fixed, 3 promoted in rotation
        draws=True,
        game_id_base=6000000,
        team_id_base=201,
        player_id_base=60000,
        clip_mean=12.9,
        keep_window=0.875,
        clip_game_share=0.3,
        report_share=1070 / 1641,
    ),
    naming=Naming(article=False, plural_verb=True, short=SHORT),
    simulator=SoccerSim,
    action=plays.action,
    structured=plays.structured,
    stats=StatSheet(
        tally=plays.tally,
        player_fields=(
            ("g", "goals"),
            ("a", "assists"),
            ("sh", "shots"),
            ("sot", "on target"),
            ("pas", "passes"),
            ("tkl", "tackles"),
            ("yc", "yellow cards"),
            ("rc", "red cards"),
        ),
        goalie_fields=(
            ("g", "goals"),
            ("sv", "saves"),
            ("pas", "passes"),
            ("yc", "yellow cards"),
            ("rc", "red cards"),
        ),
        goalie_position="GK",
        splits=(),
        plus_minus=False,
        time_on_ice=False,
        team_fields=(
            ("sh", "Shots"),
            ("sot", "Shots on target"),
            ("pas", "Passes"),
            ("tkl", "Tackles"),
            ("fouls", "Fouls"),
            ("corners", "Corners"),
            ("offsides", "Offsides"),
            ("yc", "Yellow cards"),
            ("rc", "Red cards"),
        ),
        player_only=frozenset(),
        team_events=("corner", "offside"),
        score_word="goals",
        headline=(("g", "goal", 0), ("a", "assist", 0)),
        goalie_headline=(("sv", "save", 0),),
        rank=(("g", 2.0), ("a", 1.0), ("sot", 0.1)),
        goalie_rank=(("sv", 0.5),),
    ),
    recap=Recap(
        rout_margin=3,
        close_margin=1,
        big_period=Feat(
            2,
            "{team} scored {words} goals in the {period}.",
            parse=r"{T} scored (\w+) goals in the (\w+ \w+)\.",
            phrase="scored {value} goals in the {period}",
        ),
        run=Feat(3, "{team} scored {words} unanswered goals."),
    ),
    questions=Questions(
        stats=(("passes", 4), ("tackles", 4), ("saves", 4), ("shots", 4)),
        references=(("shot", frozenset(plays.SHOTS)),),
        zone_key="position",
        move_key="skill_move",
        area_word="position",
        move_word="skill move",
    ),
    talk=Talk(line=plays.line, zero="nil", tied="{N} all.", lead="{Hi} {lo}."),
    broadcast=Broadcast(
        surface_size=(105.0, 68.0),
        surface=surface.SURFACE,
        paint=surface.paint,
        per_side=8,
        figure=20.0,
        keeper=True,
        legs="jersey",
        ball=(250, 250, 250),
        ball_bounces=True,
        minor_scores=frozenset(),
        widest_clock="188:88",
        timeout_title="TV TIMEOUT",
        break_titles={1: "HALF-TIME"},
        end_title="FULL TIME",
        overtime_end_title="FULL TIME",
    ),
)
