"""The broadcast scoreboard contract shared by the renderer and the reader.

A match state is what the scoreboard shows: period, game clock (whole seconds, as displayed) and
score. Countdown sports (basketball, hockey) show the time remaining rounded up; soccer shows the
elapsed time of the match rounded down, so an event at clock c first appears on screen when the
displayed value becomes c. Period labels follow common broadcast usage.

Each sport's rules are the `Board` of its record (playscout/corpus/sports/), so the renderer, the
reader and a new sport all read the same data; an unknown sport fails at that one lookup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from playscout.corpus.sports import Board, sport


@dataclass(frozen=True, slots=True)
class MatchState:
    period: int
    clock: int  # displayed game clock in whole seconds (remaining or elapsed, Board.countdown)
    home: int
    away: int


def period_label(sport_name: str, period: int) -> str:
    """Q1..Q4 / OT, 2OT (basketball); 1ST..3RD / OT (hockey); 1H, 2H / ET1, ET2 (soccer)."""
    return board(sport_name).period_label(period)


def board(sport_name: str) -> Board:
    """The scoreboard rules of a sport (UnknownSport for a name with no record)."""
    return sport(sport_name).board


@cache
def _labels(b: Board) -> dict[str, int]:
    return {b.period_label(p): p for p in range(1, b.regulation_periods + 5)}


def parse_period(sport_name: str, text: str) -> int | None:
    """Inverse of period_label; None when the text is not a period label of this sport."""
    return _labels(board(sport_name)).get(text.strip().upper())


def format_clock(seconds: int) -> str:
    """MM:SS as broadcasts show it (minutes may exceed 59 for soccer's elapsed clock)."""
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


_CLOCK_RE = re.compile(r"^(\d{1,3}):([0-5]\d)$")


def parse_clock(text: str) -> int | None:
    m = _CLOCK_RE.match(text.strip())
    return int(m.group(1)) * 60 + int(m.group(2)) if m else None


_CODE_STOP = frozenset({"FC", "CF", "AFC", "SC", "THE", "OF", "DE", "CITY"})


def team_code(name: str) -> str:
    """Three-letter scoreboard code of a team name: the first three letters of its most
    distinctive word (the last word that is not a club suffix), upper case."""
    words = [w for w in re.findall(r"[A-Za-z]+", name) if w.upper() not in _CODE_STOP]
    word = words[-1] if words else (re.sub(r"[^A-Za-z]", "", name) or "TMX")
    return (word[:3].upper() + "XXX")[:3]


def team_codes(home: str, away: str) -> tuple[str, str]:
    """Codes of both teams, made distinct (the away code takes its first two letters plus the
    next distinct letter of its name) so the scoreboard can tell them apart."""
    h, a = team_code(home), team_code(away)
    if h != a:
        return h, a
    letters = re.sub(r"[^A-Za-z]", "", away).upper()
    for ch in letters[3:] + "XYZ":
        if a[:2] + ch != h:
            return h, a[:2] + ch
    return h, "AWY"


def period_length(sport_name: str, period: int) -> int:
    return board(sport_name).period_length(period)


def remaining_and_elapsed(sport_name: str, period: int, clock: int) -> tuple[int, int]:
    """(time remaining in the period, elapsed game time) of a displayed clock value; soccer's
    elapsed clock runs over the whole match (45:00 at the start of the second half)."""
    b = board(sport_name)
    length = b.period_length(period)
    if b.countdown:
        return clock, max(0, length - clock)
    start = sum(b.period_length(p) for p in range(1, period))
    return max(0, start + length - clock), clock
