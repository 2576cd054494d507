"""The shape of the box-score documents: `### Team` sections of `Name: 34 points, 13 rebounds,
...` rows (game_stat_player) or `Label: value` rows (game_stat_team). One parser for the
offline reader, which answers from these rows, and the plain questions made from them, so a
question's gold and the reader's answer read the same table the same way."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ROW = re.compile(r"^([^:#][^:]*): (.+)$")
_COUNT = re.compile(r"^([+-]?\d+) (\S.*)$")  # "34 points", "+2 +/-"
_SIDE = re.compile(r"\s*\((home|away)\)\s*$")


@dataclass(frozen=True)
class StatRow:
    """One row under a section: its name (before the first ': '), the row as written, and its
    `N label` counts ('34 points' -> {'points': 34})."""

    section: str
    name: str
    line: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def team(self) -> str:
        """The section's team ('Boston Celtics (home)' -> 'Boston Celtics')."""
        return section_team(self.section)

    @property
    def side(self) -> str | None:
        """'home' or 'away' when the section says so (game_stat_team does)."""
        m = _SIDE.search(self.section)
        return m.group(1) if m else None


def section_team(section: str) -> str:
    return _SIDE.sub("", section).strip()


def stat_rows(text: str) -> list[StatRow]:
    """Every row that sits under a `###` section; prose before any section is not a table."""
    rows: list[StatRow] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("###"):
            section = line.lstrip("#").strip()
            continue
        m = _ROW.match(line)
        if not section or not m:
            continue
        counts: dict[str, int] = {}
        for part in m.group(2).split(", "):
            n = _COUNT.match(part.strip())
            if n:
                counts.setdefault(n.group(2), int(n.group(1)))
        rows.append(StatRow(section, m.group(1).strip(), line, counts))
    return rows


def finals(rows: list[StatRow]) -> list[tuple[str, int]]:
    """(team, final score) of each section's `Final` row (game_stat_team), home first when the
    sections say which side they are."""
    final = [r for r in rows if r.name.lower() == "final" and r.counts]
    final.sort(key=lambda r: r.side != "home")
    return [(r.team, next(iter(r.counts.values()))) for r in final]
