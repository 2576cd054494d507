"""What playscout knows about one sport, as one record: its leagues, periods and their word, the
scoreboard's clock and labels, team nicknames, the stat a game's leader is named by, the T5
forecast margins and the T6 judge's hints.

Every layer that needs a sport fact reads it here (through `playscout.corpus.sports.sport`), so
a sport is declared once, below all of them; the synthetic generator's `SportSpec` refers to its
record instead of repeating it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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


@dataclass(frozen=True, slots=True)
class Coverage:
    """The sport's section of T6's coverage judge prompt (evaluation/eval_coverage.py): what
    polarity, numbers and timing a fact may carry, and examples of a vague miss."""

    directionality: str
    numbers: str
    timing: str
    examples: str


@dataclass(frozen=True, slots=True)
class SportRecord:
    """One sport, as every layer sees it (the generator's own choices live in its SportSpec)."""

    name: str  # as in the corpus layout: data/{name}/, questions/{name}.json
    leagues: tuple[str, ...]  # league names published data use (T4 qa.json's `league`)
    board: Board  # periods, their length, the clock's direction, scoreboard labels
    period_word: str  # what a period is called: 'quarter', 'period', 'half'
    lead_stat: str  # the box-score stat a team's leader is named by (T4, T6 key facts)
    forecast_margin: int  # T5: a win by more than this is its own option
    forecast_periods: int  # T5: periods played before the forecast's cutoff
    coverage: Coverage  # T6 coverage judge hints
    # lower-case nickname -> canonical team name (applied only to teams the index holds)
    team_aliases: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
