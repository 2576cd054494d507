"""The broadcast scoreboard contract shared by the renderer and the reader.

A match state is what the scoreboard shows: period, game clock (whole seconds, as displayed) and
score. Countdown sports (basketball, hockey) show the time remaining rounded up; soccer shows the
elapsed time of the match rounded down, so an event at clock c first appears on screen when the
displayed value becomes c. Period labels follow common broadcast usage.

Each sport's rules are one `Board` in BOARDS (data, not branches), so the renderer, the reader and
a new sport all read the same table; the module-level dicts are views of it for older callers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Board:
    """How one sport's scoreboard counts and labels time.

    `period_format` labels a regulation period ({n}: 1, 2..; {nth}: 1ST, 2ND..); an extra period
    k (overtime / extra time) is `first_extra` when k == 1, else `extra_format` with {n} = k.
    """

    countdown: bool  # clock shows time remaining in the period (else elapsed match time)
    regulation_periods: int
    period_seconds: int
    overtime_seconds: int
    period_format: str
    first_extra: str
    extra_format: str

    def period_length(self, period: int) -> int:
        return self.period_seconds if period <= self.regulation_periods else self.overtime_seconds

    def period_label(self, period: int) -> str:
        if period <= self.regulation_periods:
            return self.period_format.format(n=period, nth=_nth(period))
        extra = period - self.regulation_periods
        return self.first_extra if extra == 1 else self.extra_format.format(n=extra)


def _nth(n: int) -> str:
    """'1ST', '2ND', '3RD', '4TH', ... '11TH'."""
    suffix = "TH" if 10 <= n % 100 <= 20 else {1: "ST", 2: "ND", 3: "RD"}.get(n % 10, "TH")
    return f"{n}{suffix}"


BOARDS: dict[str, Board] = {
    # Q1..Q4 / OT, 2OT
    "basketball": Board(True, 4, 720, 300, "Q{n}", "OT", "{n}OT"),
    # 1ST..3RD / OT, 2OT
    "hockey": Board(True, 3, 1200, 300, "{nth}", "OT", "{n}OT"),
    # 1H, 2H / ET1, ET2
    "soccer": Board(False, 2, 2700, 900, "{n}H", "ET1", "ET{n}"),
}
COUNTDOWN: dict[str, bool] = {s: b.countdown for s, b in BOARDS.items()}
REGULATION_PERIODS: dict[str, int] = {s: b.regulation_periods for s, b in BOARDS.items()}
# (regulation period, overtime period) lengths in seconds
PERIOD_SECONDS: dict[str, tuple[int, int]] = {
    s: (b.period_seconds, b.overtime_seconds) for s, b in BOARDS.items()
}


@dataclass(frozen=True, slots=True)
class MatchState:
    period: int
    clock: int  # displayed game clock in whole seconds (remaining or elapsed, see COUNTDOWN)
    home: int
    away: int


def period_label(sport: str, period: int) -> str:
    """Q1..Q4 / OT, 2OT (basketball); 1ST..3RD / OT (hockey); 1H, 2H / ET1, ET2 (soccer)."""
    return BOARDS[sport].period_label(period)


_LABELS: dict[str, dict[str, int]] = {
    sport: {period_label(sport, p): p for p in range(1, REGULATION_PERIODS[sport] + 5)}
    for sport in BOARDS
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


def period_length(sport: str, period: int) -> int:
    return BOARDS[sport].period_length(period)


def remaining_and_elapsed(sport: str, period: int, clock: int) -> tuple[int, int]:
    """(time remaining in the period, elapsed game time) of a displayed clock value; soccer's
    elapsed clock runs over the whole match (45:00 at the start of the second half)."""
    length = period_length(sport, period)
    if BOARDS[sport].countdown:
        return clock, max(0, length - clock)
    start = sum(period_length(sport, p) for p in range(1, period))
    return max(0, start + length - clock), clock
