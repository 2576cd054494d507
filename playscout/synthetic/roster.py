"""Teams, players and season rosters of one sport.

Built once in the parent process (cheap) so every worker sees the same league; season-to-season
turnover is what makes the corpus reach the paper's unique-player counts (Table 37).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .spec import SportSpec
from .sports import SPECS
from .vocab import FIRST_NAMES, LAST_NAMES


@dataclass(frozen=True)
class Player:
    pid: str
    name: str
    number: int
    position: str
    rating: float  # usage / quality weight


@dataclass
class League:
    sport: str
    teams: dict[str, str]  # team_id -> name
    team_league: dict[str, str]  # team_id -> league name (soccer: Premier League / La Liga)
    seasons: list[int]
    active: dict[int, list[str]]  # season -> team ids playing it
    rosters: dict[int, dict[str, list[Player]]] = field(default_factory=dict)


def scaled_seasons(sport: str, games: int) -> list[int]:
    """Fewer seasons for small corpora so each team still plays several games per season."""
    lg = SPECS[sport].league
    n = max(1, min(len(lg.seasons), round(len(lg.seasons) * games / lg.paper_games)))
    return list(lg.seasons[-n:])


def _season_teams(
    spec: SportSpec, k: int, ids: list[str], team_league: dict[str, str]
) -> list[str]:
    """Teams of the k-th season: all of them, or per league its fixed clubs plus a rotating few
    (promotion / relegation), leagues in team-id order."""
    if spec.league.league_slots is None:
        return ids
    fixed, rotating = spec.league.league_slots
    out: list[str] = []
    for name in dict.fromkeys(team_league[t] for t in ids):
        pool = [t for t in ids if team_league[t] == name]
        core, rot = pool[:fixed], pool[fixed:]
        out += core + [rot[(rotating * k + j) % len(rot)] for j in range(rotating)]
    return out


def build_league(sport: str, games: int, seed: int) -> League:
    spec = SPECS[sport]
    rng = random.Random(f"playscout-synth:{seed}:{sport}:league")
    seasons = scaled_seasons(sport, games)
    pool = spec.league.teams
    base = spec.league.team_id_base
    teams = {str(base + i): n for i, (n, _) in enumerate(pool)}
    team_league = {str(base + i): lg for i, (_, lg) in enumerate(pool)}
    ids = list(teams)
    per_season = max(1, math.ceil(games / len(seasons)))
    active: dict[int, list[str]] = {}
    for k, season in enumerate(seasons):
        full = _season_teams(spec, k, ids, team_league)
        want = min(len(full), max(4, 2 * math.ceil(per_season / 6)))
        active[season] = full if want >= len(full) else full[:want]
    used = sorted({t for ts in active.values() for t in ts}, key=int)
    league = League(sport, {t: teams[t] for t in used}, team_league, seasons, active)
    _build_rosters(league, rng)
    return league


def _build_rosters(league: League, rng: random.Random) -> None:
    lg = SPECS[league.sport].league
    names = [f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(names)
    next_pid = [lg.player_id_base]

    def new_player(pos: str, taken: set[int]) -> Player:
        number = rng.choice([n for n in range(lg.first_number, 99) if n not in taken])
        taken.add(number)
        pid = str(next_pid[0])
        next_pid[0] += 1
        rating = round(rng.lognormvariate(0.0, 0.45), 3)
        return Player(pid, names.pop(), number, pos, rating)

    mix = lg.position_mix
    current: dict[str, list[Player]] = {}
    for season in league.seasons:
        league.rosters[season] = {}
        for tid in league.active[season]:
            prev = current.get(tid)
            if prev is None:
                taken: set[int] = set()
                roster = [new_player(mix[i % len(mix)], taken) for i in range(lg.roster_size)]
            else:
                roster = list(prev)
                n_out = sum(1 for _ in roster if rng.random() < lg.turnover)
                for _ in range(n_out):
                    gone = roster.pop(rng.randrange(len(roster)))
                    taken = {p.number for p in roster}
                    roster.append(new_player(gone.position, taken))
            current[tid] = roster
            league.rosters[season][tid] = roster
