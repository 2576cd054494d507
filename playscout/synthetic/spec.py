"""What a sport is, as data: every sport-specific choice of the synthetic simulator, documents,
questions and broadcast renderer is a field of one SportSpec.

Shared code looks a sport's behaviour up here instead of branching on its name, so a new sport
is one new package under playscout/synthetic/sports/ plus its record in playscout/corpus/sports/
(name, scoreboard Board, period word: what every other layer reads too), which the spec refers
to. Where sports truly differ in algorithm (the game simulator, the box-score tally, caption and
commentary wording, the playing-surface drawing) the spec references a function; everything else
is tables and templates.

This module imports nothing of the simulator (game_sim, roster, schedule) or the registry, so
those can import it without an import circle.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from playscout.corpus.sports import Board, SportRecord

from .cue import Talk
from .vocab import TeamRef, split_city

Event = dict[str, Any]
Stats = dict[str, int]
RGB = tuple[int, int, int]
Fields = tuple[tuple[str, str], ...]  # (stat key, printed label), in print order


@dataclass(frozen=True)
class LeagueShape:
    """Teams, calendar, rosters and the paper's calibration targets (Table 37)."""

    teams: tuple[tuple[str, str], ...]  # (team name, league name) in team-id order
    seasons: tuple[int, ...]  # season end years, oldest first
    season_start: tuple[int, int]  # (month, day) in the start year
    season_days: int
    paper_games: int  # games of the sport in the T9 release (split_games weights)
    roster_size: int  # players per team-season
    turnover: float  # share of a roster replaced by new players each season
    position_mix: tuple[str, ...]  # positions of a new roster, cycled
    first_number: int  # lowest jersey number (basketball allows 0)
    dressed: int  # players dressed for a game
    # per league, (fixed clubs, rotating clubs) each season (promotion / relegation);
    # None: every team plays every season
    league_slots: tuple[int, int] | None
    draws: bool  # games can end level: records are W-D-L, else W-L
    game_id_base: int
    team_id_base: int
    player_id_base: int
    clip_mean: float  # mean clip duration (s), in [10, 15]
    keep_window: float  # share of covered windows kept (missing footage)
    clip_game_share: float  # share of games with video
    report_share: float  # share of games with an ESPN recap


@dataclass(frozen=True)
class Naming:
    """How a writer names a team after (or instead of) its full name."""

    article: bool  # franchises take 'the' ('the Boston Celtics'); clubs do not ('Arsenal')
    # a club name takes a plural verb ('Arsenal have lost', British usage); otherwise only
    # 'The Raptors' does ('Toronto has lost')
    plural_verb: bool
    # clubs' short forms ('Spurs'); None: the nickname, then the city where it names one team
    short: Mapping[str, tuple[str, ...]] | None


@dataclass(frozen=True)
class Split:
    """A made-attempted shooting line: '5-9 FG' in stat lines, 'Field goals: 5-9 (55.6%)'."""

    made: str
    attempts: str
    short: str
    long: str


@dataclass(frozen=True)
class StatSheet:
    """The box score and how the stat documents print it."""

    # adds one event to the box: (event, its player's stats, every player's stats)
    tally: Callable[[Event, Stats, dict[str, Stats]], None]
    player_fields: Fields
    goalie_fields: Fields
    goalie_position: str | None  # the position that prints goalie_fields
    splits: tuple[Split, ...]
    plus_minus: bool  # skaters' '+/-' column
    time_on_ice: bool  # game lines show 'm:ss TOI' (else whole minutes)
    team_fields: Fields
    player_only: frozenset[str]  # player stats not summed into the team's totals
    team_events: tuple[str, ...]  # event types counted per team ('timeout' -> 'timeouts')
    score_word: str  # 'points' / 'goals'
    # recap performer phrase: (stat, noun, shown from this value); the first is always shown
    headline: tuple[tuple[str, str, int], ...]
    goalie_headline: tuple[tuple[str, str, int], ...]
    rank: tuple[tuple[str, float], ...]  # weights that pick a team's top performers
    goalie_rank: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Feat:
    """A recap sentence for a big number, written once the number reaches `at`.

    Sentence keys: {team}, {v} (the number), {a} ('a' / 'an' for it), {words} (spelled out, up
    to ten) and {period} ('third quarter'). `parse` reads the sentence back from a report as a
    game-identifying fact ({T}: the team; groups: the number, the period), and `phrase` is how a
    question restates it ({value}, {a}, {period}); None: questions do not use this sentence.
    """

    at: int
    sentence: str
    parse: str | None = None
    phrase: str = ""


@dataclass(frozen=True)
class Recap:
    """Wording of the ESPN-style recap."""

    rout_margin: int  # winning margin written as 'routed'
    close_margin: int  # ... and as 'held off'
    big_period: Feat  # a team's best period
    run: Feat  # the longest unanswered scoring run


@dataclass(frozen=True)
class Questions:
    """What the T9-style question generator asks about."""

    stats: tuple[tuple[str, int], ...]  # (stat label, smallest value worth a fact)
    # how a question names a player's k-th event of a period: (noun, event types)
    references: tuple[tuple[str, frozenset[str]], ...]
    zone_key: str  # event attribute answering 'from what area'
    move_key: str  # event attribute answering 'what move'
    area_word: str  # 'part of the court'
    move_word: str  # 'dribble move'


class Canvas(Protocol):
    """What a sport's surface painter draws on: coordinates in metres on the playing surface."""

    length: float
    width: float
    home: RGB  # the home team's colour (painted areas)

    def apron(self, color: RGB, margin: float) -> None: ...

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: float = 0.0,
    ) -> None: ...

    def poly(
        self,
        pts: list[tuple[float, float]],
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: float = 0.0,
    ) -> None: ...

    def line(self, pts: list[tuple[float, float]], color: RGB, width: float) -> None: ...

    def arc(
        self, cx: float, cy: float, r: float, a0: float, a1: float, n: int = 48
    ) -> list[tuple[float, float]]: ...


@dataclass(frozen=True)
class Broadcast:
    """Layout choices of the synthetic broadcast renderer."""

    surface_size: tuple[float, float]  # playing surface (length, width) in metres
    surface: RGB
    paint: Callable[[Canvas], None]  # apron, surface and markings
    per_side: int  # figures drawn per team
    figure: float  # figure height at 360p, far side
    keeper: bool  # each side's first figure is a goalkeeper / goaltender
    legs: Literal["skin", "shorts", "jersey"]  # what colour a figure's legs are
    ball: RGB
    ball_bounces: bool
    minor_scores: frozenset[str]  # scoring event types without a replay or a cheer
    widest_clock: str  # the widest clock text the scoreboard must fit
    timeout_title: str  # studio card of a long stoppage
    # studio card after a period: by ended period, else end_title in regulation and
    # overtime_end_title after it ({label}: the scoreboard's period label)
    break_titles: Mapping[int, str]
    end_title: str
    overtime_end_title: str


class SimRun(Protocol):
    """One game's simulation (a game_sim.Sim): run it, then read its result."""

    def run(self) -> None: ...

    def result(self) -> dict[str, Any]: ...


# A sport's game flow: a game_sim.Sim subclass, called with (spec, game_sim.GameSpec,
# roster.League, rng); those two are Any here so this module imports neither.
Simulator = Callable[["SportSpec", Any, Any, random.Random], SimRun]


@dataclass(frozen=True)
class SportSpec:
    """One sport's generator: league, simulator, documents, questions and broadcast; the sport's
    own facts (name, clock rules, period word) are its record's."""

    record: SportRecord  # playscout/corpus/sports/<name>.py, shared with every other layer
    league: LeagueShape
    naming: Naming
    simulator: Simulator
    action: Callable[[Event], str]  # an event's caption clause ('X made a layup ...')
    structured: Callable[[Event], str]  # a shot's 'X performed ...' sentence
    stats: StatSheet
    recap: Recap
    questions: Questions
    talk: Talk
    broadcast: Broadcast

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def board(self) -> Board:
        """Clock and scoreboard rules (shared with the indexer's reader)."""
        return self.record.board

    @property
    def period_word(self) -> str:
        """Caption wording: 'quarter', 'period', 'half'."""
        return self.record.period_word

    def period_label(self, period: int) -> str:
        """'4th quarter', 'overtime', '2OT', '2nd period', '1st half': caption wording."""
        regulation = self.board.regulation_periods
        if period > regulation:
            n = period - regulation
            return "overtime" if n == 1 else f"{n}OT"
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(period, "th")
        return f"{period}{suffix} {self.period_word}"

    def full_ref(self, name: str) -> TeamRef:
        """The full name: North American franchises take an article, clubs do not."""
        return TeamRef(name, self.naming.article)

    def short_refs(self, name: str) -> tuple[TeamRef, ...]:
        """Nickname first ('Celtics', 'Spurs'), then the city where it names one team only."""
        if self.naming.short is not None:
            return tuple(TeamRef(s, False) for s in self.naming.short.get(name, ()))
        city, nick = split_city(name)
        out = [TeamRef(nick, True)]
        if sum(1 for t, _ in self.league.teams if split_city(t)[0] == city) == 1:
            out.append(TeamRef(city, False))
        return tuple(out)

    def team_refs(self, name: str) -> tuple[TeamRef, ...]:
        """Every form a document or question may use for the team, full name first."""
        return (self.full_ref(name), *self.short_refs(name))
