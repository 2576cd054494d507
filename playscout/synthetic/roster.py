"""Teams, players and season rosters of one sport.

Built once in the parent process (cheap) so every worker sees the same league; season-to-season
turnover is what makes the corpus reach the paper's unique-player counts (Table 37).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from .vocab import (
    EPL_TEAMS,
    FIRST_NAMES,
    LALIGA_TEAMS,
    LAST_NAMES,
    NBA_TEAMS,
    NHL_TEAMS,
    PAPER_GAMES,
    SPECS,
)


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
    team_league: dict[str, str]  # team_id -> league name (soccer: EPL / La Liga)
    seasons: list[int]
    active: dict[int, list[str]]  # season -> team ids playing it
    rosters: dict[int, dict[str, list[Player]]] = field(default_factory=dict)


_POS_MIX: dict[str, tuple[str, ...]] = {
    "basketball": ("PG", "SG", "SF", "PF", "C"),
    "hockey": (
        "C",
        "C",
        "C",
        "C",
        "LW",
        "LW",
        "LW",
        "LW",
        "RW",
        "RW",
        "RW",
        "RW",
        "D",
        "D",
        "D",
        "D",
        "D",
        "D",
        "D",
        "G",
        "G",
        "G",
    ),
    "soccer": ("GK",) * 3 + ("DF",) * 11 + ("MF",) * 11 + ("FW",) * 7,
}


def scaled_seasons(sport: str, games: int) -> list[int]:
    """Fewer seasons for small corpora so each team still plays several games per season."""
    spec = SPECS[sport]
    n = max(1, min(len(spec.seasons), round(len(spec.seasons) * games / PAPER_GAMES[sport])))
    return list(spec.seasons[-n:])


def _team_pool(sport: str) -> list[tuple[str, str]]:
    if sport == "basketball":
        return [(n, "NBA") for n in NBA_TEAMS]
    if sport == "hockey":
        return [(n, "NHL") for n in NHL_TEAMS]
    return [(n, "Premier League") for n in EPL_TEAMS] + [(n, "La Liga") for n in LALIGA_TEAMS]


def _soccer_active(k: int, epl: list[str], liga: list[str]) -> list[str]:
    """20 + 20 teams per season: 17 fixed clubs plus 3 rotating (promotion / relegation)."""
    out: list[str] = []
    for pool in (epl, liga):
        core, rot = pool[:17], pool[17:]
        out += core + [rot[(3 * k + j) % len(rot)] for j in range(3)]
    return out


def build_league(sport: str, games: int, seed: int) -> League:
    spec = SPECS[sport]
    rng = random.Random(f"playscout-synth:{seed}:{sport}:league")
    seasons = scaled_seasons(sport, games)
    pool = _team_pool(sport)
    teams = {str(spec.team_id_base + i): n for i, (n, _) in enumerate(pool)}
    team_league = {str(spec.team_id_base + i): lg for i, (_, lg) in enumerate(pool)}
    ids = list(teams)
    per_season = max(1, math.ceil(games / len(seasons)))
    active: dict[int, list[str]] = {}
    for k, season in enumerate(seasons):
        if sport == "soccer":
            epl = [t for t in ids if team_league[t] == "Premier League"]
            liga = [t for t in ids if team_league[t] == "La Liga"]
            full = _soccer_active(k, epl, liga)
        else:
            full = ids
        want = min(len(full), max(4, 2 * math.ceil(per_season / 6)))
        active[season] = full if want >= len(full) else full[:want]
    used = sorted({t for ts in active.values() for t in ts}, key=int)
    league = League(sport, {t: teams[t] for t in used}, team_league, seasons, active)
    _build_rosters(league, rng)
    return league


def _build_rosters(league: League, rng: random.Random) -> None:
    spec = SPECS[league.sport]
    names = [f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES]
    rng.shuffle(names)
    next_pid = [spec.player_id_base]

    def new_player(pos: str, taken: set[int]) -> Player:
        number = rng.choice(
            [n for n in range(0 if league.sport == "basketball" else 1, 99) if n not in taken]
        )
        taken.add(number)
        pid = str(next_pid[0])
        next_pid[0] += 1
        rating = round(rng.lognormvariate(0.0, 0.45), 3)
        return Player(pid, names.pop(), number, pos, rating)

    mix = _POS_MIX[league.sport]
    current: dict[str, list[Player]] = {}
    for season in league.seasons:
        league.rosters[season] = {}
        for tid in league.active[season]:
            prev = current.get(tid)
            if prev is None:
                taken: set[int] = set()
                roster = [new_player(mix[i % len(mix)], taken) for i in range(spec.roster_size)]
            else:
                roster = list(prev)
                n_out = sum(1 for _ in roster if rng.random() < spec.turnover)
                for _ in range(n_out):
                    gone = roster.pop(rng.randrange(len(roster)))
                    taken = {p.number for p in roster}
                    roster.append(new_player(gone.position, taken))
            current[tid] = roster
            league.rosters[season][tid] = roster
