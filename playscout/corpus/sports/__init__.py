"""The sports playscout knows: one `SportRecord` each, looked up by name.

A built-in sport is one module of this package that defines `RECORD`, listed in `SPORTS`'s
table and imported on first use. Code outside the package (a plugin, a test) adds a sport with
`register_sport(record)`. `sport(name)` is the one lookup every layer uses: an unknown name
fails there, in one line naming the known sports, never with another sport's facts or a default.
"""

from __future__ import annotations

import re

from playscout.errors import PlayscoutError
from playscout.registry import Registry, RegistryError

from .record import Board, Coverage, SportRecord


class UnknownSport(PlayscoutError, ValueError):
    """A sport name no record is registered for."""


def _a_record_of_its_name(name: str, record: SportRecord) -> None:
    if not isinstance(record, SportRecord) or record.name != name:
        raise RegistryError(f"sport {name!r}: its entry must be a SportRecord named {name!r}")


SPORTS: Registry[SportRecord] = Registry(
    "sport",
    {
        "basketball": "playscout.corpus.sports.basketball:RECORD",
        "hockey": "playscout.corpus.sports.hockey:RECORD",
        "soccer": "playscout.corpus.sports.soccer:RECORD",
    },
    unknown=UnknownSport,
    check=_a_record_of_its_name,
)


def register_sport(record: SportRecord) -> SportRecord:
    """Add a sport; registering another record under a taken name is an error."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", record.name):
        raise ValueError(f"sport name {record.name!r} must be lower-case letters, digits, '_'")
    return SPORTS.add(record.name, record)


def unregister_sport(name: str) -> None:
    """Remove a sport registered with `register_sport` (tests)."""
    SPORTS.remove(name)


def sport(name: str) -> SportRecord:
    """The record of a sport; UnknownSport (one line, the known names) when there is none."""
    return SPORTS.get(name)


def sport_names() -> tuple[str, ...]:
    """Every registered sport, in name order."""
    return tuple(sorted(SPORTS.names()))


def is_sport(name: str) -> bool:
    return name in SPORTS


def sport_of_league(league: str) -> str | None:
    """The sport whose record lists this league name (exact match); None when none does."""
    for name in sport_names():
        if league in sport(name).leagues:
            return name
    return None


def period_words() -> dict[str, str]:
    """Each sport's word for a period ({'basketball': 'quarter', ...}), for text that names
    them all (tool descriptions)."""
    return {name: sport(name).period_word for name in sport_names()}


def periods_phrase() -> str:
    """'quarter (basketball), period (hockey) or half (soccer)': every sport's period word."""
    parts = [f"{word} ({name})" for name, word in period_words().items()]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


__all__ = [
    "SPORTS",
    "Board",
    "Coverage",
    "SportRecord",
    "UnknownSport",
    "is_sport",
    "period_words",
    "periods_phrase",
    "register_sport",
    "sport",
    "sport_names",
    "sport_of_league",
    "unregister_sport",
]
