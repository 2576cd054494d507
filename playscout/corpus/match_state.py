"""The broadcast scoreboard contract shared by the renderer and the reader.

A match state is what the scoreboard shows: period, game clock (whole seconds, as displayed) and
score. Countdown sports (basketball, hockey) show the time remaining rounded up; soccer shows the
elapsed time of the match rounded down, so an event at clock c first appears on screen when the
displayed value becomes c. Period labels follow common broadcast usage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COUNTDOWN: dict[str, bool] = {"basketball": True, "hockey": True, "soccer": False}
REGULATION_PERIODS: dict[str, int] = {"basketball": 4, "hockey": 3, "soccer": 2}

_HOCKEY = {1: "1ST", 2: "2ND", 3: "3RD"}


@dataclass(frozen=True, slots=True)
class MatchState:
    period: int
    clock: int  # displayed game clock in whole seconds (remaining or elapsed, see COUNTDOWN)
    home: int
    away: int


def period_label(sport: str, period: int) -> str:
    """Q1..Q4 / OT, 2OT (basketball); 1ST..3RD / OT (hockey); 1H, 2H / ET1, ET2 (soccer)."""
    regulation = REGULATION_PERIODS[sport]
    if period <= regulation:
        if sport == "basketball":
            return f"Q{period}"
        if sport == "hockey":
            return _HOCKEY[period]
        return f"{period}H"
    extra = period - regulation
    if sport == "soccer":
        return f"ET{extra}"
    return "OT" if extra == 1 else f"{extra}OT"


_LABELS: dict[str, dict[str, int]] = {
    sport: {period_label(sport, p): p for p in range(1, REGULATION_PERIODS[sport] + 5)}
    for sport in COUNTDOWN
}


def parse_period(sport: str, text: str) -> int | None:
    """Inverse of period_label; None when the text is not a period label of this sport."""
    return _LABELS[sport].get(text.strip().upper())


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


# (regulation period, overtime period) lengths in seconds
PERIOD_SECONDS: dict[str, tuple[int, int]] = {
    "basketball": (720, 300),
    "hockey": (1200, 300),
    "soccer": (2700, 900),
}


def period_length(sport: str, period: int) -> int:
    regulation, overtime = PERIOD_SECONDS[sport]
    return regulation if period <= REGULATION_PERIODS[sport] else overtime


def remaining_and_elapsed(sport: str, period: int, clock: int) -> tuple[int, int]:
    """(time remaining in the period, elapsed game time) of a displayed clock value; soccer's
    elapsed clock runs over the whole match (45:00 at the start of the second half)."""
    length = period_length(sport, period)
    if COUNTDOWN[sport]:
        return clock, max(0, length - clock)
    start = sum(period_length(sport, p) for p in range(1, period))
    return max(0, start + length - clock), clock
